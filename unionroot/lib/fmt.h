/* SPDX-License-Identifier: MIT */
/* printf formatting without stdio, malloc or floating point: the conversions
 * the project uses (d i u x X o c s %, flags - 0 + space, width, precision,
 * lengths hh h l ll j z t). */
#ifndef UNIONROOT_FMT_H
#define UNIONROOT_FMT_H

#include <stdarg.h>
#include <stddef.h>

#include "lib/defs.h"

/* Receives the output in pieces (a literal run, a field, padding). */
typedef void fmt_put_fn(void *ctx, const char *s, size_t n);

/* Formats through put; returns the length of the whole output. */
size_t fmt_out(fmt_put_fn *put, void *ctx, const char *fmt, va_list ap);
/* vsnprintf's contract: buf holds a NUL-terminated prefix when cap > 0; the
 * result is the length the whole output needs (>= cap: it was cut). */
size_t fmt_vsn(char *buf, size_t cap, const char *fmt, va_list ap);
size_t fmt_sn(char *buf, size_t cap, const char *fmt, ...) PRINTF(3, 4);

#endif
