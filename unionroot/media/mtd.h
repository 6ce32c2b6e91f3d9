/* SPDX-License-Identifier: MIT */
/* Raw flash, pure: the partition table in /proc/mtd, and what an eraseblock
 * holds judged from its first bytes (erased, jffs2, UBI, OpenWrt's
 * end-of-image marker, something else). */
#ifndef UNIONROOT_MTD_H
#define UNIONROOT_MTD_H

#include <stddef.h>
#include <stdint.h>

#include "lib/defs.h"

#define MTD_NAME_MAX 64

struct mtd_part {
	int index;              /* N of mtdN */
	uint64_t size;          /* bytes */
	uint32_t erasesize;     /* bytes */
	char name[MTD_NAME_MAX];
};

/* Finds a partition in the text of /proc/mtd, by name ("rootfs_data") or,
 * when want is all digits, by index ("3"). 0 and *out filled, -ENOENT when
 * absent, -EINVAL when a line is malformed. */
int mtd_find(const char *proc_mtd, const char *want, struct mtd_part *out) WUR;

enum flash_content {
	FLASH_ERASED,   /* every byte 0xFF */
	FLASH_JFFS2,    /* a jffs2 node header (magic 0x1985, either order) */
	FLASH_UBI,      /* a UBI erase-counter header ("UBI#") */
	FLASH_DATA,     /* anything else */
	FLASH_MARKER,   /* OpenWrt's end-of-image marker at the block's head */
	FLASH_KINDS
};

/* OpenWrt's image builder (padjffs2) ends a NOR image with these 4 bytes
 * at the head of the first eraseblock after it; fstools reads them as the
 * big-endian word 0xdeadc0de on every CPU (FS_DEADCODE: blank, make a
 * jffs2), and OpenWrt's kernel patch 532-jffs2_eofdetect erases that block
 * and every later one at the first mount. */
#define FLASH_MARKER_BYTES "\xde\xad\xc0\xde"

/* What an eraseblock holds, from its first len bytes (len >= 12). */
int flash_classify(const uint8_t *head, size_t len);
/* Folds the verdicts of a partition's eraseblocks into one, counted up to
 * and with the first that holds the marker (what follows it is the image
 * builder's padding or leftovers, erased with it). counts[] is indexed by
 * enum flash_content: FLASH_MARKER when a marker ends blocks that are
 * erased or jffs2 (an upgrade's saved settings), jffs2 or UBI when any
 * block says so (and none says the other), erased when all are, else
 * FLASH_DATA. */
int flash_verdict(const unsigned counts[FLASH_KINDS]);
const char *flash_content_name(int content);

#endif
