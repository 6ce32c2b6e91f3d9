/* SPDX-License-Identifier: MIT */
/* Loop devices over image files, read-only or (a persistence file)
 * read-write: LOOP_CONFIGURE (5.8+), else the older LOOP_SET_FD +
 * LOOP_SET_STATUS64 pair. */
#ifndef UNIONROOT_LOOPDEV_H
#define UNIONROOT_LOOPDEV_H

#include <stddef.h>

#include "lib/defs.h"

struct loopdev {
	char path[32];    /* "/dev/loop0" */
	int direct_io;    /* the kernel accepted LO_FLAGS_DIRECT_IO */
	int legacy;       /* attached with LOOP_SET_FD (no LOOP_CONFIGURE) */
};

/* loop_attach's how: bits. */
#define LOOP_WANT_DIO 1  /* ask for direct I/O: the kernel keeps buffered I/O
			  * where the backing file system cannot */
#define LOOP_WRITABLE 2  /* read-write; backing_fd must be O_RDWR */
#define LOOP_AUTOCLEAR 4 /* detach itself when its last user (a mount) goes */

/* Attaches a free loop device to backing_fd, read-only unless LOOP_WRITABLE.
 * Returns an fd of the loop device or -errno. */
int loop_attach(int backing_fd, int how, struct loopdev *out) WUR;
/* Detaches the loop device at path (it must not be mounted). 0 or -errno. */
int loop_detach(const char *path) WUR;
/* After loop_detach: waits up to ms for the kernel to let the loop's file
 * go (an autoclear runs after the last close, from a work queue), so that
 * the file's medium can be unmounted. 0, or -EBUSY when it still holds it. */
int loop_wait_free(const char *path, unsigned ms);

#endif
