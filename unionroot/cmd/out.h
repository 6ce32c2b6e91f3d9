/* SPDX-License-Identifier: MIT */
/* The admin commands' output, without stdio (3 KB of the binary): stdout
 * gathered as stdio does it (a line at a time on a terminal, else a page),
 * stderr written at once, a message a write. */
#ifndef UNIONROOT_OUT_H
#define UNIONROOT_OUT_H

#include "lib/defs.h"

/* printf to stdout: 0, or the -errno of a write that failed since the last
 * out_flush(). */
int out(const char *fmt, ...) PRINTF(1, 2);
/* fprintf to stderr, written at once; 0. */
int out_err(const char *fmt, ...) PRINTF(1, 2);
/* Writes what stdout gathered (before an exec, at the end of a command): 0,
 * or the -errno of the first write that failed since the last call. */
int out_flush(void);

#endif
