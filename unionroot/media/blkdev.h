/* SPDX-License-Identifier: MIT */
/* The block devices the kernel has shown so far, each probed once: name,
 * size, removable, file system TYPE/UUID/LABEL, and partition identity. */
#ifndef UNIONROOT_BLKDEV_H
#define UNIONROOT_BLKDEV_H

#include <stdint.h>
#include <sys/types.h>

#include "conf/spec.h"
#include "lib/defs.h"
#include "probe/probe.h"

#define BLKDEV_MAX 128 /* a phone: 40 partitions and more on one eMMC */

struct blkdev {
	char name[32];          /* "vda1" */
	char path[DEVNODE_MAX];          /* "/dev/vda1" */
	dev_t dev;
	uint64_t size;          /* bytes */
	int removable;
	int partnum;            /* 0 for a whole disk */
	char disk[32];          /* a partition's whole disk, "sda"; "" for a whole disk */
	/* a whole disk holding a file system and a partition table (a hybrid
	 * ISO written with dd): the table's partition that starts at its first
	 * sector, and that partition's size; 0 none. parts: the table's
	 * partitions, 0 no table */
	unsigned parts, zero_part;
	uint64_t zero_part_bytes;
	char partuuid[40];
	char partlabel[148];
	char dmname[128];       /* a device-mapper device's name: /dev/mapper/NAME; "" */
	int probed;             /* 1 known fs, 0 unknown, < 0 -errno */
	struct probe_info info;
};

struct blkdev_table {
	struct blkdev d[BLKDEV_MAX];
	unsigned n;
	int overflow;           /* more devices than BLKDEV_MAX were seen */
};

/* Devices never scanned, by kernel name: loop devices are unionroot's own
 * (image files), ram disks hold nothing, and a floppy drive with no disk
 * in it (the PC chipset QEMU's "pc" machine and many a PC have) shows a
 * size yet fails every read, which filled the log at each look. */
int blkdev_ignored(const char *name);

/* Adds devices that appeared since the last call (from /sys/class/block) and
 * probes them. Devices of size 0 (empty drives) and failed probes are retried
 * on the next call. Loop and RAM disks are never listed: unionroot makes its
 * loop devices itself, and an image inside a medium must not pass for one. Returns the number of new devices, or -errno. */
int blkdev_refresh(struct blkdev_table *t) WUR;
/* 1 when d is the medium s names (ignoring s's image paths), else 0. */
int blkdev_match(const struct blkdev *d, const struct spec *s);

/* The module a disk (or partition) name needed: the first device up its
 * sysfs parents bound to a driver that is a module, past the command-set
 * layers every disk of a kind has (SCSI's sd/sr, MMC's mmc_block), so an
 * AHCI DVD gives "ahci", a USB stick "usb_storage"; a device-mapper
 * device (dm-verity) over one device gives that device's. 0, or -ENOENT
 * when no such driver is bound (built in, or a virtual device). */
int blkdev_driver(const char *name, char *out, size_t cap) WUR;

#endif
