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

/* ---- a partition added (parttab_add.c) ----
 * The persistence partition made at first boot goes into the free space
 * behind the disk's last partition, from the first MiB boundary there. The
 * functions below only compute: the caller reads the table's sectors in,
 * and writes the result out in the order given, syncing after each, so
 * that a power cut at any write leaves the old table or the whole new one.
 * A partition of under min sectors, or of want sectors (0: to the disk's
 * end) that do not fit, is -ENOSPC. */
#define PARTADD_ALIGN 2048u               /* sectors of 512 bytes: 1 MiB */
#define PARTADD_ARRAY_MAX (512u * 128u)   /* a GPT entry array we rewrite */

struct part_new {
	unsigned num;             /* as parttab_read numbers it */
	uint64_t start, sectors;  /* in sectors of the table's size */
};

/* An MBR disk (sector 0 holds the signature and no protective 0xEE entry)
 * of disk_sectors 512-byte sectors: a primary partition of type 0x83 in a
 * free slot. mbr is rewritten: one sector, written at once. 0, -ENOSPC
 * (no free slot, no room, past 2 TiB), -EINVAL (not such an MBR). */
int parttab_add_mbr(uint8_t mbr[512], uint64_t disk_sectors, uint64_t want, uint64_t min,
		    struct part_new *out) PROBE_WUR;

/* A GPT disk: hdr holds its valid primary header (sector 1), array its
 * entry array (array_bytes, from the header's entries LBA). The new entry
 * (Linux file system data, unique GUID guid, name label) goes into the
 * first unused slot; the usable end moves to the disk's end, where the
 * backup goes (a GPT written to an image smaller than the disk, as a dd'd
 * ISO is, ends there). Writes, in order: the array at *backup_lba, then
 * backup (one sector) at disk_sectors - 1; the array at the header's
 * entries LBA, then hdr at sector 1. A cut before the last write leaves
 * the old primary valid, or a primary whose array fails its CRC, and then
 * the new backup at the disk's end is the table the kernel and
 * parttab_read take. 0, -ENOSPC, -EINVAL (a header or array that is not
 * as parttab_read accepts, or an array over PARTADD_ARRAY_MAX). */
int parttab_add_gpt(uint8_t *hdr, uint8_t *backup, uint8_t *array, size_t array_bytes,
		    unsigned ss, uint64_t disk_sectors, uint64_t want, uint64_t min,
		    const uint8_t guid[16], const char *label, struct part_new *out,
		    uint64_t *backup_lba) PROBE_WUR;

#endif
