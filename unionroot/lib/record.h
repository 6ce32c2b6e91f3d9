/* SPDX-License-Identifier: MIT */
/* The status record, /run/unionroot/status: one KEY=VALUE line a field.
 * PID 1 writes it and `unionroot status` reads it through this one pair.
 * KEY is letters, digits and '_'; VALUE is any bytes, escaped: a backslash
 * as \\, a newline as \n, every other byte below 0x20 and 0x7f as \xNN
 * (lowercase hex); bytes from 0x80 on are written as they are, UTF-8 or not.
 * A backslash that starts none of these reads as itself. */
#ifndef UNIONROOT_RECORD_H
#define UNIONROOT_RECORD_H

#include <stddef.h>

#include "lib/defs.h"
#include "lib/fmt.h"
#include "lib/sbuf.h"

/* the most PID 1 writes at the status step, and the hand-off's line it
 * appends later: what the reader reads */
#define RECORD_MAX 8192
#define RECORD_TAIL_MAX 160

/* One line as stored: the key, and the value still escaped. */
struct record_line {
	const char *key;
	size_t key_len;
	const char *val;
	size_t val_len;
};

/* Appends the line fmt formats (KEY=VALUE), escaped, and its '\n'; a line
 * that does not fit is not written at all, and sb's error says so. */
void record_addf(struct sbuf *sb, const char *fmt, ...) PRINTF(2, 3);
/* Hands s (n bytes) to put escaped, as a value is stored. */
void record_escape(fmt_put_fn *put, void *ctx, const char *s, size_t n);
/* The next KEY=VALUE line of *p, which it advances: 1, or 0 at the end.
 * Lines without '=' or whose KEY is no name, and a cut last line, are
 * skipped. */
int record_next(const char **p, struct record_line *l);
/* The value s (n bytes, as stored) into out, which holds n + 1 bytes: its
 * length; out is NUL-terminated. */
size_t record_unescape(const char *s, size_t n, char *out);
/* The value of the first line with this key, decoded into buf (cap bytes,
 * room for it as stored): 0, -ENOENT, or -ENAMETOOLONG. */
int record_get(const char *text, const char *key, char *buf, size_t cap) WUR;

#endif
