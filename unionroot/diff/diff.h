/* SPDX-License-Identifier: MIT */
/* What the upper directory changes relative to the read-only layers, from
 * the upper only: each upper entry is compared with the same path in the
 * layers below (looked up component by component, never following a
 * symlink). Admin-tool code: it allocates. */
#ifndef UNIONROOT_DIFF_H
#define UNIONROOT_DIFF_H

#include <stddef.h>

#include "lib/defs.h"

#define DIFF_LOWER_MAX 8
#define DIFF_DEPTH_MAX 256

/* kind: 'A' added, 'M' modified (content or metadata), 'D' deleted: a
 * whiteout, or an opaque directory replacing one of the image (then 'D' and
 * 'A' for the same path). path starts with '/'. Called in path order
 * (entries of a directory sorted bytewise, each before its contents). */
typedef int (*diff_fn)(char kind, const char *path, void *ctx);

/* upper, lowers[]: open directory fds (lowers top-most first). 0 or -errno
 * (the first error; the walk goes on past unreadable entries). */
int diff_run(int upper, const int *lowers, unsigned nlower, diff_fn fn, void *ctx) WUR;
/* Copy-up mode, the writable branch top rw: upper/ against the manifest
 * in .unionroot/, through fn in path order like diff_run. 0, or -errno with
 * the reason in why (cap bytes) for the command to print. */
int diff_copyup(const char *rw, diff_fn fn, void *ctx, char *why, size_t cap) WUR;

#endif
