/* SPDX-License-Identifier: MIT */
/* A UBI volume's content read through /dev/ubiD_V, and the read-only block
 * device (ubiblock) that a squashfs in a volume is mounted from. */
#ifndef UNIONROOT_UBIBLOCK_H
#define UNIONROOT_UBIBLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "lib/defs.h"

/* What volume ("ubi0_1") holds: enum ubi_holds, with the probed type
 * ("squashfs") in type (cap bytes) for UBI_HOLDS_BLOCKFS; -errno when
 * /dev/VOLUME cannot be read. */
int ubiblock_probe(const char *volume, char *type, size_t cap) WUR;
/* The ubiblock node of volume ("/dev/ubiblock0_1"); 0 or -ENAMETOOLONG. */
int ubiblock_path(const char *volume, char *out, size_t cap) WUR;
/* Creates the ubiblock device of volume (UBI_IOCVOLCRBLK); one that exists
 * already is fine. 0 or -errno (-ENOSYS: no CONFIG_MTD_UBI_BLOCK). */
int ubiblock_create(const char *volume) WUR;

/* The lowest-numbered UBI volume called name (*dev, *vol), or with name
 * NULL the UBI device attached to MTD mtd (*dev; vol may be NULL), as
 * /sys/class/ubi lists them: 0, -ENOENT, or -errno. The boot and
 * `unionroot plan` both find volumes so. */
int ubi_find(const char *name, int mtd, int *dev, int *vol) WUR;
/* /sys/class/ubi/ubiDEV/FILE as a number: 0 or -errno. */
int ubi_sys_num(int dev, const char *file, uint64_t *out) WUR;

#endif
