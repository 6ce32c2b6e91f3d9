/* SPDX-License-Identifier: MIT */
/* device-mapper through its ioctls (linux/dm-ioctl.h): one read-only
 * target per device, without dmsetup or libdevmapper. */
#ifndef UNIONROOT_DM_H
#define UNIONROOT_DM_H

#include <stddef.h>
#include <stdint.h>

#include "lib/defs.h"

/* Creates device name with one read-only target of type over sectors
 * (512 bytes) and params, and resumes it; node gets "/dev/dm-N". 0 or
 * -errno; on failure nothing is left behind. */
int dm_create(const char *name, const char *type, uint64_t sectors, const char *params,
	      char *node, size_t cap) WUR;
/* Removes device name. 0 or -errno. */
int dm_remove(const char *name) WUR;

#endif
