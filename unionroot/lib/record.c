// SPDX-License-Identifier: MIT
/* The status record's lines: the writer PID 1 uses and the reader of
 * `unionroot status` and `unionroot plan`. A value escaped as C does, so
 * that a label or a path from a device cannot end its line and add a key. */
#include "lib/record.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "lib/lines.h"

static const char hex[] = "0123456789abcdef";

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
	size_t run = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };
		size_t len = 4;

		if (c == '\\' || c == '\n') {
			esc[1] = c == '\n' ? 'n' : '\\';
			len = 2;
		} else if (c >= 0x20 && c != 0x7f) {
			continue;
		}
		put(ctx, s + run, i - run);
		put(ctx, esc, len);
		run = i + 1;
	}
	put(ctx, s + run, n - run);
}

/* A key is a name: letters, digits and '_'. */
static int is_key(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return 0;
	}
	return n > 0;
}

int record_next(const char **p, struct record_line *l)
{
	struct line ln;
	const char *eq;

	while (line_next(p, &ln)) {
		if (!ln.terminated)
			return 0;
		eq = memchr(ln.s, '=', ln.len);
		if (!eq || !is_key(ln.s, (size_t)(eq - ln.s)))
			continue;
		l->key = ln.s;
		l->key_len = (size_t)(eq - ln.s);
		l->val = eq + 1;
		l->val_len = ln.len - l->key_len - 1;
		return 1;
	}
	return 0;
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

size_t record_unescape(const char *s, size_t n, char *out)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		int hi, lo;

		if (c == '\\' && i + 1 < n && (s[i + 1] == '\\' || s[i + 1] == 'n')) {
			c = s[++i] == 'n' ? '\n' : '\\';
		} else if (c == '\\' && i + 3 < n && s[i + 1] == 'x' &&
			   (hi = hex_digit(s[i + 2])) >= 0 && (lo = hex_digit(s[i + 3])) >= 0) {
			c = (char)(hi << 4 | lo);
			i += 3;
		}
		out[len++] = c;
	}
	out[len] = '\0';
	return len;
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
