/* SPDX-License-Identifier: MIT */
/* Walking a text line by line without copying it, and the bounded copy the
 * strict state-file parsers need. */
#ifndef UNIONROOT_LINES_H
#define UNIONROOT_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "lib/defs.h"

struct line {
	const char *s;   /* not NUL-terminated */
	size_t len;      /* without the '\n' */
	int terminated;  /* a '\n' followed it (a cut file's last line has none) */
};

/* The next line of *p; advances *p past it. 1, or 0 at the end of the text. */
int line_next(const char **p, struct line *l);
/* How many lines text holds, a last one without '\n' included: no index
 * parsed from text has more entries, so its table is sized by this. */
size_t lines_count(const char *text);
/* Copies a terminated line into buf (cap bytes) as a string. 0, or -EINVAL
 * for an unterminated or too long line: state files are all or nothing. */
int line_copy_strict(const struct line *l, char *buf, size_t cap) WUR;
/* A strict control file: the line magic first, then fn for every other line
 * (in buf, cap bytes). 0, or -EINVAL for no magic, a cut or too long line,
 * or a line fn refuses (< 0): such a file is all or nothing. */
int lines_strict(const char *text, const char *magic, char *buf, size_t cap,
		 int (*fn)(const char *line, void *ctx), void *ctx) WUR;
/* The "KEY:  N kB" field of /proc/meminfo or /proc/PID/status text, in
 * bytes: 0, or -ENOENT when the key is absent or has no number. */
int proc_kb(const char *text, const char *key, uint64_t *bytes) WUR;

#endif
