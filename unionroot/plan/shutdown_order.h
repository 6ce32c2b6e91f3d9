/* SPDX-License-Identifier: MIT */
/* The order of a shutdown, pure: the union's layers and their devices from
 * the status record, and any other mounts deepest first. */
#ifndef UNIONROOT_SHUTDOWN_ORDER_H
#define UNIONROOT_SHUTDOWN_ORDER_H

#include <stddef.h>

#include "lib/defs.h"
#include "lib/runstate.h"

enum shutdown_do {
	SHUTDOWN_UMOUNT, /* path: a mount point, remounted read-only first */
	SHUTDOWN_LOOP,   /* path: a loop device to detach */
	SHUTDOWN_DM,     /* path: a device-mapper name to remove */
};

struct shutdown_step {
	int what; /* enum shutdown_do */
	char path[48];
};

/* the branch, the saved branch, its LUKS container, its loop; each layer, its device */
#define SHUTDOWN_STEPS_MAX (4 + 2 * RUNSTATE_LOWER_MAX)

/* The steps that take the union's layers apart once the root above them is
 * gone: the writable branch, then its loop device, then each read-only
 * layer from the top, then its dm-verity device or loop device. The media
 * under them come after, with every other mount. Returns the number of
 * steps, -ENOSPC beyond cap, or -ENAMETOOLONG for a device name longer
 * than a step holds. */
int shutdown_order(const struct runstate *rs, struct shutdown_step *steps, size_t cap) WUR;

/* Sorts the mount points of /proc/self/mountinfo (in its order) so that
 * each comes before the one it is mounted on: deepest first, and of those
 * at one path the last mounted first. */
void shutdown_deepest_first(const char **mounts, size_t n);

#endif
