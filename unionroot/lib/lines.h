/* SPDX-License-Identifier: MIT */
/* Walking a text line by line without copying it, and the bounded copy the
 * strict state-file parsers need. */
#ifndef UNIONROOT_LINES_H
#define UNIONROOT_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "defs.h"

struct line {
	const char *s;   /* not NUL-terminated */
	size_t len;      /* without the '\n' */
	int terminated;  /* a '\n' followed it (a cut file's last line has none) */
};

/* The next line of *p; advances *p past it. 1, or 0 at the end of the text. */
int line_next(const char **p, struct line *l);
/* Copies a terminated line into buf (cap bytes) as a string. 0, or -EINVAL
 * for an unterminated or too long line: state files are all or nothing. */
int line_copy_strict(const struct line *l, char *buf, size_t cap) WUR;
/* The "KEY:  N kB" field of /proc/meminfo or /proc/PID/status text, in
 * bytes: 0, or -ENOENT when the key is absent or has no number. */
int proc_kb(const char *text, const char *key, uint64_t *bytes) WUR;

#endif
