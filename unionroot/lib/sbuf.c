// SPDX-License-Identifier: MIT
/* Bounded string builder: the one place strings are assembled. */
#include "lib/sbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "lib/fmt.h"

void sbuf_init(struct sbuf *sb, char *buf, size_t cap)
{
	sb->buf = buf;
	sb->cap = cap;
	sb->len = 0;
	sb->err = cap ? 0 : -ENAMETOOLONG;
	if (cap)
		buf[0] = '\0';
}

void sbuf_addn(struct sbuf *sb, const char *s, size_t n)
{
	if (sb->err)
		return;
	if (n >= sb->cap - sb->len) {
		sb->err = -ENAMETOOLONG;
		return;
	}
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sbuf_add(struct sbuf *sb, const char *s)
{
	sbuf_addn(sb, s, strlen(s));
}

void sbuf_addf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (sb->err)
		return;
	va_start(ap, fmt);
	n = fmt_vsn(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	if (n >= sb->cap - sb->len) {
		sb->buf[sb->len] = '\0';
		sb->err = -ENAMETOOLONG;
		return;
	}
	sb->len += (size_t)n;
}

int sbuf_done(const struct sbuf *sb)
{
	return sb->err;
}

int strfmt(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (!cap)
		return -ENAMETOOLONG;
	va_start(ap, fmt);
	n = fmt_vsn(buf, cap, fmt, ap);
	va_end(ap);
	if (n >= cap) {
		buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

int strcopy(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (!cap)
		return -ENAMETOOLONG;
	if (n >= cap) {
		dst[0] = '\0';
		return -ENAMETOOLONG;
	}
	memcpy(dst, src, n + 1);
	return 0;
}
