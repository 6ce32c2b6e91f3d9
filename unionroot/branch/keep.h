/* SPDX-License-Identifier: MIT */
/* The keep list of a factory reset: absolute paths of the merged root, globs
 * allowed per component (fnmatch: * ? [..], a leading dot matched only by a
 * dot), from 'unionroot reset --keep' and /etc/unionroot/keep. Pure: parsing
 * and validation only; keepcopy.c carries the entries over. */
#ifndef UNIONROOT_KEEP_H
#define UNIONROOT_KEEP_H

#include <stddef.h>

#include "lib/defs.h"

#define KEEP_MAX 64
#define KEEP_PATH_MAX 256
#define KEEP_FILE "/etc/unionroot/keep"
#define KEEP_FILE_MAX 8192

struct keep_list {
	unsigned n;
	char path[KEEP_MAX][KEEP_PATH_MAX];
};

/* NULL when pattern is a valid keep path, else why not: relative, "/" alone,
 * a "." or ".." component (it would leave the root), an empty component, a
 * control character, too long. */
const char *keep_invalid(const char *pattern);
/* Adds a valid pattern once. 0, -EINVAL (see keep_invalid), -ENOSPC full. */
int keep_add(struct keep_list *kl, const char *pattern) WUR;
/* Adds every line of a keep file: '#' comments, blank lines and surrounding
 * blanks ignored. Bad lines are reported through bad(line, why, ctx) and
 * skipped; returns how many were bad, or -ENOSPC when the list is full. */
int keep_add_text(struct keep_list *kl, const char *text,
		  void (*bad)(const char *line, const char *why, void *ctx), void *ctx) WUR;
/* 1 when the component has glob characters. */
int keep_is_glob(const char *component);

#endif
