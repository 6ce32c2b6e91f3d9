/* SPDX-License-Identifier: MIT */
/* /proc/self/mountinfo's lines: a mount's root, mount point, type and
 * source, read in place. */
#ifndef UNIONROOT_MOUNTINFO_H
#define UNIONROOT_MOUNTINFO_H

struct mountinfo {
	const char *target; /* the \ooo escapes decoded */
	const char *root, *type, *source; /* as the kernel escaped them */
};

/* The next mount of the text at *pos (NUL-terminated, cut into words in
 * place): 1 with *m filled, 0 at the end. Lines without the fields are
 * skipped. */
int mountinfo_next(char **pos, struct mountinfo *m);

#endif
