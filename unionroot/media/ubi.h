/* SPDX-License-Identifier: MIT */
/* UBI, pure: names and numbers of /sys/class/ubi, the size of a volume made
 * from a device's free space, and what a volume holds (ubifs, or a file
 * system for a ubiblock device). */
#ifndef UNIONROOT_UBI_H
#define UNIONROOT_UBI_H

#include <stddef.h>
#include <stdint.h>

#include "lib/defs.h"

enum ubi_entry { UBI_NOT_OURS, UBI_DEVICE, UBI_VOLUME };

/* Classifies a /sys/class/ubi entry: "ubi0" a device (*dev = 0), "ubi0_3"
 * a volume (*dev = 0, *vol = 3), anything else (ubi_ctrl) not ours. */
int ubi_entry(const char *name, int *dev, int *vol);
/* A sysfs number ("123\n"), decimal; 0 or -EINVAL. */
int ubi_parse_u64(const char *text, uint64_t *out) WUR;
/* A sysfs name file's text without its newline; 0 or -EINVAL (empty, too
 * long for cap, or holding a control character). */
int ubi_parse_name(const char *text, char *out, unsigned cap) WUR;
/* Bytes of a volume that takes every free eraseblock; 0 when none is free
 * or the product does not fit. */
uint64_t ubi_free_bytes(uint64_t avail_ebs, uint64_t eb_size);

enum ubi_holds {
	UBI_HOLDS_UBIFS,        /* a ubifs node, or empty (ubifs formats it) */
	UBI_HOLDS_BLOCKFS,      /* a block file system (squashfs): ubiblock */
	UBI_HOLDS_UNKNOWN,      /* anything else */
};

/* What a UBI volume holds, from its first len bytes and the type the probe
 * table found in it ("" none): a probed file system wins (squashfs in a
 * volume goes through ubiblock), then the ubifs node magic, then an empty
 * (all 0xFF) head, which ubifs formats at its first mount. */
int ubi_holds(const uint8_t *head, size_t len, const char *probed);

#endif
