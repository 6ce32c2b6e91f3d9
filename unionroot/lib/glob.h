/* SPDX-License-Identifier: MIT */
/* Shell-style matching of one path component: '*', '?', '[a-z]', '[!x]',
 * '\' escapes; a leading '.' must be matched by a literal dot (fnmatch's
 * FNM_PERIOD). Bytewise, no locale: musl's fnmatch pulls in ~13 KB of
 * wide-character tables the PID-1 binary does not need. */
#ifndef UNIONROOT_GLOB_H
#define UNIONROOT_GLOB_H

/* 1 when name matches pattern, else 0 (a malformed class matches nothing). */
int glob_match(const char *pattern, const char *name);

#endif
