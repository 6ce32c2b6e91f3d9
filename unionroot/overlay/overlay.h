/* SPDX-License-Identifier: MIT */
/* The overlayfs mount options unionroot uses, and why (see overlay.c); the
 * marks overlayfs leaves in an upper; whether the kernel offers overlayfs. */
#ifndef UNIONROOT_OVERLAY_H
#define UNIONROOT_OVERLAY_H

#include <stddef.h>
#include <sys/stat.h>

#include "lib/defs.h"

/* lowers top-most first; upper/work NULL for a read-only union.
 * 0 or -ENAMETOOLONG / -EINVAL (a path holding ',' or ':'). */
int overlay_options(char *buf, size_t cap, const char *const *lowers, unsigned nlower,
		    const char *upper, const char *work) WUR;

#define OVERLAY_OPAQUE "trusted.overlay.opaque"

/* A whiteout: a character device 0:0 hides the lower layers' entry. */
int overlay_is_whiteout(const struct stat *st);
/* 1 for a directory marked opaque (hides the lower layers' one), else 0. */
int overlay_is_opaque(int dir);
/* 1 when the running kernel has overlayfs (/proc/filesystems), else 0. */
int overlay_in_kernel(void);
/* The i-th path an overlay module for the running kernel may have in a root
 * (absolute: resolve it in that root): 0 for a plain .ko, 1 compressed,
 * -ENOENT past the last, -errno. */
int overlay_module_path(unsigned i, char *buf, size_t cap) WUR;

#endif
