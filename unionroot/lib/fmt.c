// SPDX-License-Identifier: MIT
/* The project's printf: PID 1 formats its log lines and file contents here,
 * the admin commands their output (cmd/out.c). musl's vfprintf is 10 KB,
 * half of it floating point the project never prints. */
#include "lib/fmt.h"

#include <stdint.h>
#include <string.h>

enum fmt_len { LEN_INT, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_J, LEN_Z, LEN_T };

struct conv {
	int left, zero;        /* flags '-' and '0' */
	char sign;             /* flag '+' or ' ', 0 none */
	size_t width;
	int prec;              /* -1: none */
	int len;               /* enum fmt_len */
	char type;
};

struct out {
	fmt_put_fn *put;
	void *ctx;
	size_t total;
};

static void emit(struct out *o, const char *s, size_t n)
{
	if (n)
		o->put(o->ctx, s, n);
	o->total += n;
}

static void pad(struct out *o, char c, size_t n)
{
	char run[16];

	memset(run, c, sizeof(run));
	for (size_t k; n; n -= k) {
		k = n < sizeof(run) ? n : sizeof(run);
		emit(o, run, k);
	}
}

static size_t number(const char *p, size_t *n)
{
	size_t used = 0;

	for (*n = 0; p[used] >= '0' && p[used] <= '9'; used++)
		*n = *n * 10 + (size_t)(p[used] - '0');
	return used;
}

/* Parses one conversion after its '%' (flags, width, precision, length);
 * returns where the conversion letter is. */
static const char *parse(const char *p, struct conv *c, va_list *ap)
{
	static const char lens[] = "hljztL";
	size_t n;

	memset(c, 0, sizeof(*c));
	for (;; p++) {
		if (*p == '-')
			c->left = 1;
		else if (*p == '0')
			c->zero = 1;
		else if (*p == '+' || (*p == ' ' && c->sign != '+'))
			c->sign = *p;
		else if (*p != '#')
			break;
	}
	if (*p == '*') {
		int w = va_arg(*ap, int);

		c->left |= w < 0;
		c->width = w < 0 ? 0 - (size_t)w : (size_t)w;
		p++;
	} else {
		p += number(p, &c->width);
	}
	c->prec = -1;
	if (*p == '.') {
		p++;
		if (*p == '*') {
			c->prec = va_arg(*ap, int);
			c->prec = c->prec < 0 ? -1 : c->prec;
			p++;
		} else {
			p += number(p, &n);
			c->prec = n > INT32_MAX ? INT32_MAX : (int)n;
		}
	}
	for (; *p && strchr(lens, *p); p++) {
		if (*p == 'h')
			c->len = c->len == LEN_H ? LEN_HH : LEN_H;
		else if (*p == 'l' || *p == 'L')
			c->len = c->len == LEN_L ? LEN_LL : LEN_L;
		else
			c->len = *p == 'j' ? LEN_J : *p == 'z' ? LEN_Z : LEN_T;
	}
	c->type = *p;
	return p;
}

/* An integer argument of the conversion's length, as its magnitude;
 * *neg for a negative signed one. The types of the branches that look the
 * same differ where long is 32 bits. */
// NOLINTBEGIN(bugprone-branch-clone)
static uintmax_t fetch(const struct conv *c, va_list *ap, int *neg)
{
	intmax_t v;

	*neg = 0;
	if (c->type != 'd' && c->type != 'i') {
		switch (c->len) {
		case LEN_HH: return (unsigned char)va_arg(*ap, unsigned);
		case LEN_H: return (unsigned short)va_arg(*ap, unsigned);
		case LEN_L: return va_arg(*ap, unsigned long);
		case LEN_LL: return va_arg(*ap, unsigned long long);
		case LEN_J: return va_arg(*ap, uintmax_t);
		case LEN_Z: return va_arg(*ap, size_t);
		case LEN_T: return (uintmax_t)va_arg(*ap, ptrdiff_t);
		default: return va_arg(*ap, unsigned);
		}
	}
	switch (c->len) {
	case LEN_HH: v = ((va_arg(*ap, int) & 0xff) ^ 0x80) - 0x80; break;
	case LEN_H: v = (short)va_arg(*ap, int); break;
	case LEN_L: v = va_arg(*ap, long); break;
	case LEN_LL: v = va_arg(*ap, long long); break;
	case LEN_J: v = va_arg(*ap, intmax_t); break;
	case LEN_Z: v = (intmax_t)va_arg(*ap, size_t); break;
	case LEN_T: v = va_arg(*ap, ptrdiff_t); break;
	default: v = va_arg(*ap, int); break;
	}
	*neg = v < 0;
	return v < 0 ? 0 - (uintmax_t)v : (uintmax_t)v;
}
// NOLINTEND(bugprone-branch-clone)

/* A field: prefix (sign), zeros, body, each padded to the width. */
static void field(struct out *o, const struct conv *c, const char *pre, size_t npre, size_t zeros,
		  const char *body, size_t n)
{
	size_t all = npre + zeros + n;
	size_t fill = c->width > all ? c->width - all : 0;

	if (!c->left && !(c->zero && c->prec < 0 && c->type != 's' && c->type != 'c'))
		pad(o, ' ', fill);
	emit(o, pre, npre);
	if (!c->left && c->zero && c->prec < 0 && c->type != 's' && c->type != 'c')
		zeros += fill;
	pad(o, '0', zeros);
	emit(o, body, n);
	if (c->left)
		pad(o, ' ', fill);
}

static void integer(struct out *o, const struct conv *c, va_list *ap)
{
	static const char digits[] = "0123456789abcdef0123456789ABCDEF";
	unsigned base = c->type == 'o' ? 8 : c->type == 'x' || c->type == 'X' ? 16 : 10;
	const char *set = digits + (c->type == 'X' ? 16 : 0);
	char tmp[3 * sizeof(uintmax_t)];
	char *e = tmp + sizeof(tmp), *s = e;
	int neg;
	uintmax_t v = fetch(c, ap, &neg);
	char sign = neg ? '-' : (c->type == 'd' || c->type == 'i') ? c->sign : 0;
	size_t n;

	for (; v; v /= base)
		*--s = set[v % base];
	if (s == e && c->prec != 0)
		*--s = '0';
	n = (size_t)(e - s);
	field(o, c, &sign, sign ? 1 : 0, c->prec > 0 && (size_t)c->prec > n ? (size_t)c->prec - n : 0, s, n);
}

size_t fmt_out(fmt_put_fn *put, void *ctx, const char *fmt, va_list ap)
{
	struct out o = { put, ctx, 0 };
	struct conv c;
	va_list args;
	const char *p = fmt, *s;
	char ch;

	va_copy(args, ap);
	while (*p) {
		const char *run = strchrnul(p, '%');

		emit(&o, p, (size_t)(run - p));
		if (!*run)
			break;
		p = parse(run + 1, &c, &args);
		if (c.type == 's') {
			s = va_arg(args, const char *);
			s = s ? s : "(null)";
			field(&o, &c, "", 0, 0, s, c.prec < 0 ? strlen(s) : strnlen(s, (size_t)c.prec));
		} else if (c.type == 'c' || c.type == '%') {
			ch = c.type == 'c' ? (char)va_arg(args, int) : '%';
			field(&o, &c, "", 0, 0, &ch, 1);
		} else if (c.type && strchr("diuoxX", c.type)) {
			integer(&o, &c, &args);
		} else {
			/* not a conversion the project uses (%f, %n, %p): the rest is
			 * shown as written, as the arguments after it cannot be found */
			emit(&o, run, strlen(run));
			break;
		}
		p++;
	}
	va_end(args);
	return o.total;
}

struct into_buf {
	char *buf;
	size_t cap, len;
};

static void to_buf(void *ctx, const char *s, size_t n)
{
	struct into_buf *b = ctx;
	size_t room = b->cap - 1 - b->len;
	size_t k = n < room ? n : room;

	if (k)
		memcpy(b->buf + b->len, s, k);
	b->len += k;
}

size_t fmt_vsn(char *buf, size_t cap, const char *fmt, va_list ap)
{
	struct into_buf b = { buf, cap, 0 };
	size_t n;

	if (!cap)
		return fmt_out(to_buf, &(struct into_buf){ NULL, 1, 0 }, fmt, ap);
	n = fmt_out(to_buf, &b, fmt, ap);
	buf[b.len] = '\0';
	return n;
}

size_t fmt_sn(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = fmt_vsn(buf, cap, fmt, ap);
	va_end(ap);
	return n;
}
