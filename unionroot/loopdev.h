/* SPDX-License-Identifier: MIT */
/* Read-only loop devices over image files: LOOP_CONFIGURE (5.8+), else the
 * older LOOP_SET_FD + LOOP_SET_STATUS64 pair. */
#ifndef UNIONROOT_LOOPDEV_H
#define UNIONROOT_LOOPDEV_H

#include <stddef.h>

#include "defs.h"

struct loopdev {
	char path[32];    /* "/dev/loop0" */
	int direct_io;    /* the kernel accepted LO_FLAGS_DIRECT_IO */
	int legacy;       /* attached with LOOP_SET_FD (no LOOP_CONFIGURE) */
};

/* Attaches a free loop device, read-only, to backing_fd (opened O_RDONLY);
 * asks for direct I/O when want_dio (the kernel keeps buffered I/O where the
 * backing file system cannot). Returns an fd of the loop device or -errno. */
int loop_attach(int backing_fd, int want_dio, struct loopdev *out) WUR;
/* Detaches the loop device at path (it must not be mounted). 0 or -errno. */
int loop_detach(const char *path) WUR;

#endif
