/* SPDX-License-Identifier: MIT */
/* The identity of a read-only layer: what tells an upgraded image from the
 * one booted before, for the control state and for copy-up's manifest. */
#ifndef UNIONROOT_IDENTITY_H
#define UNIONROOT_IDENTITY_H

#include <stddef.h>
#include <stdint.h>

#include "lib/defs.h"

#define IDENTITY_MAX 72            /* "size=N,mkfs=N,hash=16hex" */
#define IDENTITY_SPAN (64u * 1024) /* hashed at each end of the layer */

/* From bytes in memory: the first and the last IDENTITY_SPAN bytes of a
 * layer of size bytes (they may overlap). Pure; 0 or -ENAMETOOLONG. */
int identity_bytes(const unsigned char *head, size_t hlen, const unsigned char *tail,
		   size_t tlen, uint64_t size, char *out, size_t cap) WUR;
/* From a device or image file: its size, the mkfs time its superblock
 * records (squashfs, ext2/3/4; 0 otherwise) and a 64-bit hash of its two
 * ends, where superblocks and squashfs/erofs tables live. Reads at most
 * 128 KiB whatever the size. 0 or -errno. */
int identity_fd(int fd, char *out, size_t cap) WUR;
int identity_path(const char *path, char *out, size_t cap) WUR;

#endif
