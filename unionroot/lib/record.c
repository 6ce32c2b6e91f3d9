// SPDX-License-Identifier: MIT
/* The status record's lines: the writer PID 1 uses and the reader of
 * `unionroot status` and `unionroot plan`. */
#include "record.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "lines.h"

static void put_sbuf(void *ctx, const char *s, size_t n)
{
	sbuf_addn(ctx, s, n);
}

static void put_line(void *ctx, const char *s, size_t n)
{
	record_escape(put_sbuf, ctx, s, n);
}

void record_addf(struct sbuf *sb, const char *fmt, ...)
{
	size_t start = sb->len;
	va_list ap;

	va_start(ap, fmt);
	IGNORE(fmt_out(put_line, sb, fmt, ap)); /* the length: sb keeps its own */
	va_end(ap);
	sbuf_addn(sb, "\n", 1);
	if (sb->err && sb->cap) {
		sb->len = start;
		sb->buf[start] = '\0';
	}
}

void record_escape(fmt_put_fn *put, void *ctx, const char *s, size_t n)
{
	put(ctx, s, n);
}

int record_next(const char **p, struct record_line *l)
{
	struct line ln;
	const char *eq;

	while (line_next(p, &ln)) {
		if (!ln.terminated)
			return 0;
		eq = memchr(ln.s, '=', ln.len);
		if (!eq)
			continue;
		l->key = ln.s;
		l->key_len = (size_t)(eq - ln.s);
		l->val = eq + 1;
		l->val_len = ln.len - l->key_len - 1;
		return 1;
	}
	return 0;
}

size_t record_unescape(const char *s, size_t n, char *out)
{
	memcpy(out, s, n);
	out[n] = '\0';
	return n;
}

int record_get(const char *text, const char *key, char *buf, size_t cap)
{
	struct record_line l;
	size_t klen = strlen(key);

	while (record_next(&text, &l)) {
		if (l.key_len != klen || memcmp(l.key, key, klen) != 0)
			continue;
		if (l.val_len >= cap)
			return -ENAMETOOLONG;
		IGNORE(record_unescape(l.val, l.val_len, buf)); /* the length: buf ends in NUL */
		return 0;
	}
	return -ENOENT;
}
