/* SPDX-License-Identifier: MIT */
/* The status record, /run/unionroot/status: one KEY=VALUE line a field.
 * PID 1 writes it and `unionroot status` reads it through this one pair. */
#ifndef UNIONROOT_RECORD_H
#define UNIONROOT_RECORD_H

#include <stddef.h>

#include "defs.h"
#include "fmt.h"
#include "sbuf.h"

/* the most the writer writes and the reader reads */
#define RECORD_MAX 8192

/* One line as stored: the key, and the value still escaped. */
struct record_line {
	const char *key;
	size_t key_len;
	const char *val;
	size_t val_len;
};

/* Appends the line fmt formats (KEY=VALUE) and its '\n'; a line that does
 * not fit is not written at all, and sb's error says so. */
void record_addf(struct sbuf *sb, const char *fmt, ...) PRINTF(2, 3);
/* Hands s (n bytes) to put as it is stored. */
void record_escape(fmt_put_fn *put, void *ctx, const char *s, size_t n);
/* The next KEY=VALUE line of *p, which it advances: 1, or 0 at the end.
 * Lines without '=' and a cut last line are skipped. */
int record_next(const char **p, struct record_line *l);
/* The value s (n bytes, as stored) into out, which holds n + 1 bytes: its
 * length; out is NUL-terminated. */
size_t record_unescape(const char *s, size_t n, char *out);
/* The value of the first line with this key, into buf (cap bytes): 0,
 * -ENOENT, or -ENAMETOOLONG. */
int record_get(const char *text, const char *key, char *buf, size_t cap) WUR;

#endif
