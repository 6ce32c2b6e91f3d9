/* SPDX-License-Identifier: MIT */
/* The relative path of a tree walk, grown and shrunk one name at a time. */
#ifndef UNIONROOT_RELPATH_H
#define UNIONROOT_RELPATH_H

#include <stddef.h>

#include "lib/defs.h"

#define RELPATH_MAX 4096 /* with its NUL */

struct relpath {
	char s[RELPATH_MAX]; /* "a/b/c", no leading '/' */
	size_t len;
};

/* Appends "/name" (or "name" at the top); *old is what relpath_pop() takes
 * back. 0 or -ENAMETOOLONG (the path is unchanged). */
int relpath_push(struct relpath *p, const char *name, size_t *old) WUR;
void relpath_pop(struct relpath *p, size_t old);

#endif
