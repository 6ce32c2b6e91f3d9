/* SPDX-License-Identifier: MIT */
/* Tokenizer for the kernel command line and the board config, with the
 * kernel's own quoting rules (param="a b", "param=a b"). */
#ifndef UNIONROOT_CMDLINE_H
#define UNIONROOT_CMDLINE_H

#include <stddef.h>

#include "lib/defs.h"

/* key is never NULL; val is NULL for a bare word ("ro"), "" for "key=". */
typedef void (*cmdline_fn)(const char *key, const char *val, void *ctx);

/* Splits buf in place and calls fn for each parameter up to a lone "--".
 * Returns the number of parameters seen. */
unsigned cmdline_split(char *buf, cmdline_fn fn, void *ctx);

/* What cmdline_read left out of a command line longer than its buffer. */
struct cmdline_cut {
	size_t kept;    /* bytes kept: up to the last whole word that fits */
	int cut;        /* the text was longer than the buffer */
	int verity;     /* a union.verity word lies past the bytes kept */
};

/* The command line in fd (/proc/cmdline) into buf, NUL-terminated. One
 * longer than cap - 1 bytes (no kernel's default COMMAND_LINE_SIZE is, but
 * s390's is a setting and bootconfig appends) is kept up to its last whole
 * word, and the rest read through for a union.verity word, which fails
 * closed where a cut one would be lost. 0 or -errno. */
int cmdline_read(int fd, char *buf, size_t cap, struct cmdline_cut *cut) WUR;

/* Turns "# comment" to the end of each line into blanks (config files). */
void cmdline_strip_comments(char *buf);

/* Same module name? The kernel treats '-' and '_' alike. */
int modname_eq(const char *a, size_t alen, const char *b, size_t blen);

#endif
