/* SPDX-License-Identifier: MIT */
/* The persistent writable branch as the admin commands find it: at
 * /run/unionroot/rw, or read-only at /run/unionroot/saved in a failsafe or
 * kiosk boot, where it is made writable for one durable write only. */
#ifndef UNIONROOT_PERSIST_H
#define UNIONROOT_PERSIST_H

#include "lib/defs.h"

struct persist {
	int fd;             /* the branch's top */
	const char *dir;    /* where it is mounted */
	int volatile_only;  /* this boot has no persistent branch: fd is a tmpfs */
	int remounted;      /* saved/ was made writable */
};

/* Opens saved/ when it holds a persistent branch, else rw/. 0 or -errno
 * (no writable branch at all). */
int persist_open(struct persist *p) WUR;
/* Makes a read-only branch writable, its mount flags (nodev, nosuid of
 * removable media) kept. 0 or -errno. */
int persist_writable(struct persist *p) WUR;
/* Closes it; what persist_writable remounted goes read-only again. 0, or
 * -errno when it stays writable. */
int persist_close(struct persist *p) WUR;

#endif
