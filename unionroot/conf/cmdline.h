/* SPDX-License-Identifier: MIT */
/* Tokenizer for the kernel command line and the board config, with the
 * kernel's own quoting rules (param="a b", "param=a b"). */
#ifndef UNIONROOT_CMDLINE_H
#define UNIONROOT_CMDLINE_H

#include <stddef.h>

#include "defs.h"

/* key is never NULL; val is NULL for a bare word ("ro"), "" for "key=". */
typedef void (*cmdline_fn)(const char *key, const char *val, void *ctx);

/* Splits buf in place and calls fn for each parameter up to a lone "--".
 * Returns the number of parameters seen. */
unsigned cmdline_split(char *buf, cmdline_fn fn, void *ctx);

/* Turns "# comment" to the end of each line into blanks (config files). */
void cmdline_strip_comments(char *buf);

/* Same module name? The kernel treats '-' and '_' alike. */
int modname_eq(const char *a, size_t alen, const char *b, size_t blen);

#endif
