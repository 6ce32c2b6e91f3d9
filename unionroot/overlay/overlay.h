/* SPDX-License-Identifier: MIT */
/* The overlayfs mount options unionroot uses, and why (see overlay.c). */
#ifndef UNIONROOT_OVERLAY_H
#define UNIONROOT_OVERLAY_H

#include <stddef.h>

#include "defs.h"

/* lowers top-most first; upper/work NULL for a read-only union.
 * 0 or -ENAMETOOLONG / -EINVAL (a path holding ',' or ':'). */
int overlay_options(char *buf, size_t cap, const char *const *lowers, unsigned nlower,
		    const char *upper, const char *work) WUR;

#endif
