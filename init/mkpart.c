// SPDX-License-Identifier: MIT
/* The persistence partition (union.upper=LABEL=NAME with union.persist.size)
 * that the wait did not find, made behind the last partition of the disk
 * read-only layer 1 was found on, as casper and dracut's rd.live.overlay
 * make theirs: the kernel is told of it first (BLKPG, nothing written), its
 * file system is made and labelled NAME, and only then is the partition
 * table written, in parttab_add's order, each write synced. A power cut
 * before the table leaves the old one (the file system in free space no
 * entry names); one among a GPT's writes leaves the old table or the whole
 * new one. A half-made partition is never there to be taken for a branch. */
#include <errno.h>
#include <fcntl.h>
#include <linux/blkpg.h>
#include <linux/fs.h>
#include <string.h>

#include "boot.h"
#include "branch/crashpoint.h"
#include "lib/bytes.h"
#include "lib/fmt.h"
#include "lib/log.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"
#include "probe/parttab.h"
#include "steps.h"

#define SECTOR_MAX 4096

/* The disk's table as read, then as parttab_add rewrote it. */
struct disk {
	int fd;
	unsigned ss;                   /* logical sector size */
	uint64_t sectors;              /* of ss bytes */
	int gpt;
	uint8_t sector0[512];
	uint8_t hdr[SECTOR_MAX], backup[SECTOR_MAX];
	size_t array_bytes;
	uint64_t backup_lba;
	struct part_new part;
};
static uint8_t array[PARTADD_ARRAY_MAX];

static int read_at(int fd, void *buf, size_t len, uint64_t at)
{
	ssize_t n = sys_pread(fd, buf, len, (off_t)at);

	return n < 0 ? (int)n : (size_t)n == len ? 0 : -EIO;
}

static int write_at(int fd, const void *buf, size_t len, uint64_t at)
{
	ssize_t n = sys_pwrite(fd, buf, len, (off_t)at);

	if (n >= 0 && (size_t)n != len)
		return -EIO;
	return n < 0 ? (int)n : sys_fsync(fd);
}

/* A GPT's partition GUID: random, version 4. */
static int new_guid(uint8_t guid[16])
{
	int fd = sys_open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? fd : sys_read(fd, guid, 16);

	if (fd >= 0)
		sys_close(fd);
	if (n != 16)
		return n < 0 ? (int)n : -EIO;
	guid[7] = (uint8_t)((guid[7] & 0x0f) | 0x40);
	guid[8] = (uint8_t)((guid[8] & 0x3f) | 0x80);
	return 0;
}

/* The table read and the new partition placed in memory; *what says the
 * part that failed. */
static int place(struct disk *k, const struct plan *p, const char **what)
{
	uint64_t bytes;
	uint64_t want;
	int ro = 0, ss = 0, rc;
	uint8_t guid[16];

	*what = "reading its size";
	if ((rc = sys_ioctl(k->fd, BLKGETSIZE64, &bytes)) < 0 || (rc = sys_ioctl(k->fd, BLKSSZGET, &ss)) < 0 ||
	    (rc = sys_ioctl(k->fd, BLKROGET, &ro)) < 0)
		return rc;
	*what = "it is read-only";
	if (ro)
		return -EROFS;
	*what = "its sector size";
	if (ss < 512 || ss > SECTOR_MAX || (ss & (ss - 1)))
		return -EINVAL;
	k->ss = (unsigned)ss;
	k->sectors = bytes / k->ss;
	want = p->persist_bytes / k->ss;
	*what = "reading its partition table";
	if ((rc = read_at(k->fd, k->sector0, sizeof(k->sector0), 0)) < 0)
		return rc;
	for (int i = 0; i < 4; i++)
		k->gpt |= k->sector0[446 + i * 16 + 4] == 0xee;
	if (!k->gpt) {
		*what = k->ss != 512 ? "an MBR on sectors other than 512 bytes" :
		       p->facts->cfg->upper_spec.kind == SPEC_PARTLABEL ? "an MBR names no partition (use LABEL=)" :
									   "placing it in its MBR";
		if (k->ss != 512 || p->facts->cfg->upper_spec.kind == SPEC_PARTLABEL)
			return -EINVAL;
		return parttab_add_mbr(k->sector0, k->sectors, want, want, &k->part);
	}
	if ((rc = read_at(k->fd, k->hdr, k->ss, k->ss)) < 0)
		return rc;
	k->array_bytes = (size_t)get_le32(k->hdr + 80) * get_le32(k->hdr + 84);
	*what = "its GPT's entry array";
	if (!k->array_bytes || k->array_bytes > sizeof(array))
		return -EINVAL;
	if ((rc = read_at(k->fd, array, k->array_bytes, get_le64(k->hdr + 72) * k->ss)) < 0)
		return rc;
	*what = "a GUID for it";
	if ((rc = new_guid(guid)) < 0)
		return rc;
	*what = "placing it in its GPT";
	return parttab_add_gpt(k->hdr, k->backup, array, k->array_bytes, k->ss, k->sectors, want, want, guid,
			       p->persist_part, &k->part, &k->backup_lba);
}

/* The table written: a GPT's backup array and header at the disk's end
 * first, then its primary array and header; an MBR's one sector. */
static int write_table(struct disk *k)
{
	int rc;

	if (!k->gpt)
		return write_at(k->fd, k->sector0, sizeof(k->sector0), 0);
	if ((rc = write_at(k->fd, array, k->array_bytes, k->backup_lba * k->ss)) < 0 ||
	    (rc = write_at(k->fd, k->backup, k->ss, (k->sectors - 1) * k->ss)) < 0)
		return rc;
	IGNORE(crashpoint_hit("partbackup", NULL)); /* returns unless a test armed it */
	if ((rc = write_at(k->fd, array, k->array_bytes, get_le64(k->hdr + 72) * k->ss)) < 0)
		return rc;
	return write_at(k->fd, k->hdr, k->ss, k->ss);
}

static int blkpg(int fd, int op, const struct disk *k)
{
	struct blkpg_partition bp = { .start = (long long)(k->part.start * k->ss),
				      .length = (long long)(k->part.sectors * k->ss), .pno = (int)k->part.num };
	struct blkpg_ioctl_arg a = { .op = op, .datalen = sizeof(bp), .data = &bp };

	return sys_ioctl(fd, BLKPG, &a);
}

/* The new partition's node, "/dev/sda2", "/dev/mmcblk0p2", there within a second. */
static int part_node(const char *disk, unsigned num, char *node, size_t cap)
{
	size_t n = strlen(disk);
	struct stat st;
	int rc = strfmt(node, cap, "/dev/%s%s%u", disk, n && disk[n - 1] >= '0' && disk[n - 1] <= '9' ? "p" : "",
			num);

	for (unsigned t = 0; rc >= 0 && (rc = sys_stat(node, &st)) == -ENOENT && t < 50; t++)
		sys_sleep_ms(20);
	return rc;
}

/* Its file system, made and synced: the last write before the table's. */
static int format(struct boot *b, const char *node)
{
	int rc = firstboot_mkfs(b, node, b->plan.persist_fs, b->plan.persist_part), fd;

	if (rc < 0)
		return rc;
	fd = sys_open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fd;
	rc = sys_fsync(fd);
	sys_close(fd);
	return rc;
}

/* The partition as the boot finds any: listed, probed, matching the SPEC. */
static int find(struct boot *b, const char *node)
{
	int rc = blkdev_refresh(&b->devs);

	for (unsigned i = 0; rc >= 0 && i < b->devs.n; i++) {
		const struct blkdev *d = &b->devs.d[i];

		if (strcmp(d->path, node) != 0)
			continue;
		if (d->probed != 1 || !blkdev_match(d, &b->cfg.upper_spec))
			return -ENOMEDIUM;
		IGNORE(strcopy(b->upper_dev, sizeof(b->upper_dev), d->path)); /* same sizes */
		IGNORE(strcopy(b->upper_type, sizeof(b->upper_type), d->info.type));
		return 0;
	}
	return rc < 0 ? rc : -ENOENT;
}

static int make(struct boot *b, struct disk *k, char *node, size_t cap, const char **what)
{
	int rc = place(k, &b->plan, what), added;

	if (rc < 0)
		return rc;
	*what = "the free space behind its partitions overlaps the read-only image";
	if (k->part.start * k->ss < b->lower_disk_end)
		return -ENOSPC;
	*what = "telling the kernel of it";
	if ((rc = blkpg(k->fd, BLKPG_ADD_PARTITION, k)) < 0)
		return rc;
	added = 1;
	*what = "its node";
	rc = part_node(b->lower_disk, k->part.num, node, cap);
	if (rc >= 0) {
		*what = "formatting it";
		rc = format(b, node);
	}
	if (rc >= 0) {
		IGNORE(crashpoint_hit("partformatted", NULL));
		*what = "writing the partition table";
		rc = write_table(k);
		added = rc < 0;
	}
	if (added && blkpg(k->fd, BLKPG_DEL_PARTITION, k) < 0)
		log_warn("cannot take partition %u of %s back from the kernel", k->part.num, b->lower_disk);
	if (rc < 0)
		return rc;
	IGNORE(crashpoint_hit("parttable", NULL));
	*what = "finding it by its label";
	return find(b, node);
}

int step_make_part(struct boot *b, struct step_out *o)
{
	static struct disk k;
	const struct plan *p = &b->plan;
	const char *what = "the read-only layer's disk is not known";
	char dev[DEVNODE_MAX], node[DEVNODE_MAX] = "";
	uint64_t t0 = sys_now_ms();
	int rc = -ENODEV;

	o->step = STEP_FIND;
	memset(&k, 0, sizeof(k));
	IGNORE(strfmt(dev, sizeof(dev), "/dev/%s", b->lower_disk)); /* lower_disk is 32 bytes */
	log_note("writable branch: no partition labelled %s; making one of %s as %s behind the last on %s (union.persist.size)",
		 p->persist_part, b->cfg.persist_size, p->persist_fs, dev);
	watchdog_step(0, "making the persistence partition on %s", dev); /* mkfs has its own limit */
	if (b->lower_disk[0]) {
		what = "opening it";
		k.fd = rc = sys_open(dev, O_RDWR | O_CLOEXEC);
	}
	if (rc >= 0) {
		rc = make(b, &k, node, sizeof(node), &what);
		sys_close(k.fd);
	}
	watchdog_step_end();
	if (rc < 0) {
		IGNORE(strfmt(o->why, sizeof(o->why),
			      "writable branch: making persistence partition %s on %s failed: %s: %s",
			      p->persist_part, dev, what, strerror(-rc))); /* may cut */
		return rc;
	}
	log_note("writable branch: persistence partition %s made as %s in %llu ms", p->persist_part, node,
		 (unsigned long long)(sys_now_ms() - t0));
	devices_found_upper(b);
	return 0;
}
