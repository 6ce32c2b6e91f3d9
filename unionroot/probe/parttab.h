/* SPDX-License-Identifier: MIT */
/* Partition tables (GPT, MBR with logical partitions): PARTUUID and
 * PARTLABEL per partition number, as blkid and the kernel number them. */
#ifndef UNIONROOT_PARTTAB_H
#define UNIONROOT_PARTTAB_H

#include "probe/probe.h"

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
 * an I/O error from src. A GPT's entry array is read whole, whatever max
 * is, up to 1 MiB (8192 entries of 128 bytes); a header claiming a larger
 * array counts as corrupt and its backup is read instead. */
int parttab_read(const struct probe_src *src, unsigned sector_size,
		 struct part_entry *parts, unsigned max) PROBE_WUR;
/* Partition num of the table on src into *out, numbered as parttab_read
 * numbers them: 1 found, 0 not in the table or no table, -errno as
 * parttab_read but never -ENOBUFS. It keeps no list, so any number the
 * table holds is found (a GPT's 128th entry, an MBR's 132nd partition). */
int parttab_find(const struct probe_src *src, unsigned sector_size, unsigned num,
		 struct part_entry *out) PROBE_WUR;

#endif
