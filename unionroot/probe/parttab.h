/* SPDX-License-Identifier: MIT */
/* Partition tables (GPT, MBR with logical partitions): PARTUUID and
 * PARTLABEL per partition number, as blkid and the kernel number them. */
#ifndef UNIONROOT_PARTTAB_H
#define UNIONROOT_PARTTAB_H

#include "probe.h"

#include <stdint.h>

struct part_entry {
	unsigned num;             /* 1-based; MBR logical partitions from 5 */
	uint64_t start_lba, nr_lba; /* in sector_size units */
	char partuuid[40];        /* GPT: lower-case GUID; MBR: "ssssssss-pp" */
	char partlabel[148];      /* GPT name as UTF-8, "" for MBR */
};

/* Number of partitions (>= 0; 0 when there is no table), or -errno:
 * -EINVAL for a sector size other than 512..4096 (a power of two), -ENOBUFS
 * when the table holds more than max partitions (the first max are filled),
 * an I/O error from src. */
int parttab_read(const struct probe_src *src, unsigned sector_size,
		 struct part_entry *parts, unsigned max) PROBE_WUR;

#endif
