// SPDX-License-Identifier: MIT
/* stdout and stderr for the admin commands: formatted by fmt.c into each
 * stream's own buffer, written with write(2). */
#include "cmd/out.h"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "lib/fdcopy.h"
#include "lib/fmt.h"

/* zero at start, so that the buffers stay in .bss, out of the file */
struct stream {
	int err; /* the first failed write's -errno since out_flush() */
	size_t len;
	char buf[4096];
};

static struct stream so, se;
static int so_mode; /* 0 not known yet, 1 a terminal (by line), 2 not */

static void flush(struct stream *s)
{
	int rc = fd_write_all(s == &se ? 2 : 1, s->buf, s->len);

	if (rc < 0 && !s->err)
		s->err = rc;
	s->len = 0;
}

static void put(void *ctx, const char *p, size_t n)
{
	struct stream *s = ctx;

	while (n) {
		size_t k = sizeof(s->buf) - s->len < n ? sizeof(s->buf) - s->len : n;

		memcpy(s->buf + s->len, p, k);
		s->len += k;
		p += k;
		n -= k;
		if (s->len == sizeof(s->buf))
			flush(s);
	}
}

int out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	IGNORE(fmt_out(put, &so, fmt, ap)); /* the length: printf's, unused */
	va_end(ap);
	if (!so_mode)
		so_mode = isatty(1) ? 1 : 2;
	if (so_mode == 1 && memchr(so.buf, '\n', so.len))
		flush(&so);
	return so.err;
}

int out_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	IGNORE(fmt_out(put, &se, fmt, ap)); /* the length: printf's, unused */
	va_end(ap);
	flush(&se);
	return 0; /* nobody asks whether stderr failed */
}

int out_flush(void)
{
	int rc;

	flush(&so);
	rc = so.err;
	so.err = 0;
	return rc;
}
