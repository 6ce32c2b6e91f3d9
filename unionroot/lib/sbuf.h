/* SPDX-License-Identifier: MIT */
/* Bounded string builder over a caller's buffer: truncation is an error
 * (-ENAMETOOLONG) that sticks, never a silently shortened string. */
#ifndef UNIONROOT_SBUF_H
#define UNIONROOT_SBUF_H

#include <stddef.h>

#include "lib/defs.h"

struct sbuf {
	char *buf;
	size_t cap;
	size_t len;
	int err;
};

void sbuf_init(struct sbuf *sb, char *buf, size_t cap);
void sbuf_add(struct sbuf *sb, const char *s);
void sbuf_addn(struct sbuf *sb, const char *s, size_t n);
void sbuf_addf(struct sbuf *sb, const char *fmt, ...) PRINTF(2, 3);
/* 0 when everything fit, else -ENAMETOOLONG (the buffer holds a prefix). */
int sbuf_done(const struct sbuf *sb) WUR;
/* Formats into buf; 0 or -ENAMETOOLONG. */
int strfmt(char *buf, size_t cap, const char *fmt, ...) PRINTF(3, 4) WUR;
/* Copies src into dst of size cap; 0 or -ENAMETOOLONG (dst then holds ""). */
int strcopy(char *dst, size_t cap, const char *src) WUR;

#endif
