// SPDX-License-Identifier: MIT
/* Raw flash for step 4: mtd:NAME (or mtd:N) becomes /dev/mtdblockN, judged
 * by what its eraseblocks hold; ubi:VOLUME is found by name after attaching
 * union.ubi= (UBI_IOCATT), a read-only one holding squashfs is mounted
 * through ubiblock, and a missing writable volume is made from the free
 * space on first boot (UBI_IOCMKVOL). Nothing here erases anything unless
 * union.format=jffs2 asked for it, or OpenWrt's end-of-image marker says
 * the flash from there on is blank (as fstools and OpenWrt's kernel read
 * it). */
#include <errno.h>
#include <fcntl.h>
#include <mtd/mtd-user.h>
#include <mtd/ubi-user.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "branch/crashpoint.h"
#include "lib/log.h"
#include "media/mtd.h"
#include "lib/sbuf.h"
#include "lib/sysx.h"
#include "lib/sys.h"
#include "media/ubi.h"
#include "media/ubiblock.h"

#define HEAD_BYTES 4096u

static char proc_mtd[4096];

/* What step 4 learnt about the writable MTD, for flash_format_upper(). */
static struct {
	int known;
	struct mtd_part part;
	int content;            /* enum flash_content */
	uint64_t marker;        /* FLASH_MARKER: the offset of the block holding it */
} upper_mtd;

static struct {
	int tried;              /* union.ubi= handled (attached or failed) */
	int dev;                /* the UBI device of union.ubi=, -1 none */
	int made;               /* a volume was created this boot */
} ubi = { 0, -1, 0 };

static int find_part(const char *want, struct mtd_part *part)
{
	if (sys_read_file("/proc/mtd", proc_mtd, sizeof(proc_mtd)) < 0)
		return -ENOENT; /* no MTD support loaded (yet) */
	return mtd_find(proc_mtd, want, part);
}

/* What eraseblock off holds: its first bytes tell a jffs2 node, UBI or
 * foreign data; only a block that starts erased needs its whole head read
 * to be called erased. A jffs2 in use is judged from 16 bytes a block. */
static int classify_block(int fd, uint64_t off, size_t len, uint8_t *head)
{
	size_t first = len < 16 ? len : 16;
	int kind;

	if (sys_pread(fd, head, first, (off_t)off) != (ssize_t)first)
		return -EIO;
	kind = flash_classify(head, first);
	if (kind != FLASH_ERASED || first == len)
		return kind;
	if (sys_pread(fd, head, len, (off_t)off) != (ssize_t)len)
		return -EIO;
	return flash_classify(head, len);
}

/* Judges every eraseblock through /dev/mtdN (bad NAND blocks skipped) up
 * to OpenWrt's marker, whose block's offset goes to *marker, and folds the
 * verdicts; -errno when it cannot read. */
static int scan_part(const struct mtd_part *p, uint64_t *marker)
{
	static uint8_t head[HEAD_BYTES];
	unsigned counts[FLASH_KINDS] = { 0 };
	char path[32];
	size_t len = p->erasesize && p->erasesize < HEAD_BYTES ? p->erasesize : HEAD_BYTES;
	int fd, rc = 0;

	if (!p->erasesize || strfmt(path, sizeof(path), "/dev/mtd%d", p->index) < 0)
		return -EINVAL;
	fd = sys_open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fd;
	for (uint64_t off = 0; off + len <= p->size; off += p->erasesize) {
		loff_t at = (loff_t)off;
		int kind;

		if (sys_ioctl(fd, MEMGETBADBLOCK, &at) > 0)
			continue;
		kind = classify_block(fd, off, len, head);
		if (kind < 0) {
			rc = kind;
			break;
		}
		counts[kind]++;
		*marker = off;
		if (counts[FLASH_DATA] || counts[FLASH_MARKER])
			break; /* the verdict cannot change any more */
	}
	sys_close(fd);
	return rc < 0 ? rc : flash_verdict(counts);
}

/* Says what the content of an MTD partition (not a probed file system)
 * makes of it; type "jffs2" when it mounts as it is, "" otherwise: a
 * writable one bearing OpenWrt's marker gets its blank part erased by the
 * first-boot step (flash_format_upper) before it mounts. */
static void judge_mtd(const struct spec *s, const struct mtd_part *part, int content,
		      uint64_t marker, int is_upper, const char *dev, char *type, const char *role)
{
	if (content == FLASH_ERASED || content == FLASH_JFFS2) {
		IGNORE(strcopy(type, FSTYPE_MAX, "jffs2"));
		log_info("%s: mtd:%s is %s (mtd%d, %s%s)", role, s->value, dev, part->index,
			 content == FLASH_ERASED ? "erased flash" : "jffs2",
			 content == FLASH_ERASED ? ": mounts as an empty jffs2" : "");
	} else if (content == FLASH_MARKER && is_upper) {
		/* jffs2 upstream reads the marker as 4 dirty bytes and scans on:
		 * leftovers behind it would come back as files */
		log_note("%s: mtd:%s is %s (mtd%d) with OpenWrt's end-of-image marker (de ad c0 de) at 0x%llx: blank from there on, as fstools reads it; erasing that part, then it mounts as %s",
			 role, s->value, dev, part->index, (unsigned long long)marker,
			 marker ? "the jffs2 before the marker" : "an empty jffs2");
	} else if (content == FLASH_MARKER) {
		log_err("%s: mtd:%s (mtd%d) holds OpenWrt's end-of-image marker (de ad c0 de) at 0x%llx: a blank writable partition, not a read-only layer; not using it",
			role, s->value, part->index, (unsigned long long)marker);
	} else if (content == FLASH_UBI) {
		log_err("%s: mtd:%s (mtd%d) holds UBI, not jffs2; attach it with union.ubi=mtd:%s and name a volume with ubi:VOLUME",
			role, s->value, part->index, s->value);
	} else if (content < 0) {
		log_err("%s: reading mtd:%s (mtd%d) failed: %s; not using it", role, s->value,
			part->index, strerror(-content));
	} else {
		log_err("%s: mtd:%s (mtd%d) holds data that is neither erased flash nor jffs2; not touching it%s",
			role, s->value, part->index,
			is_upper ? " (union.format=jffs2 erases it)" : "");
	}
	/* measured on 6.1: overlayfs mounts over jffs2 (it warns that
	 * RENAME_WHITEOUT is missing) and serves writes, deletions and new
	 * files; what needs RENAME_WHITEOUT or RENAME_EXCHANGE fails */
	if (is_upper && (type[0] || content == FLASH_MARKER))
		log_warn("writable branch %s is jffs2, which lacks RENAME_WHITEOUT and RENAME_EXCHANGE: renaming a file of the image and re-creating a directory deleted from it fail with EINVAL (UBI/ubifs has neither limit)",
			 dev);
}

static int resolve_mtd(struct boot *b, const struct spec *s, int is_upper, char *dev,
		       char *type, const char *role)
{
	struct mtd_part part;
	const struct blkdev *d = NULL;
	char name[32];
	struct stat st;
	uint64_t marker = 0;
	int content;

	if (find_part(s->value, &part) < 0)
		return 0;
	if (strfmt(name, sizeof(name), "mtdblock%d", part.index) < 0 ||
	    strfmt(dev, DEVNODE_MAX, "/dev/%s", name) < 0)
		return 0;
	if (sys_stat(dev, &st) < 0 || !S_ISBLK(st.st_mode))
		return 0; /* mtdblock not loaded yet, or its node is still coming */
	for (unsigned i = 0; i < b->devs.n; i++)
		if (strcmp(b->devs.d[i].name, name) == 0)
			d = &b->devs.d[i];
	if (!d)
		return 0; /* the next refresh probes it */
	type[0] = '\0';
	if (d->probed == 1) {
		IGNORE(strcopy(type, FSTYPE_MAX, d->info.type)); /* probe types are short */
		log_info("%s: mtd:%s is %s (mtd%d, %s)", role, s->value, dev, part.index, type);
		return 1;
	}
	content = scan_part(&part, &marker);
	if (is_upper) {
		upper_mtd.known = 1;
		upper_mtd.part = part;
		upper_mtd.content = content;
		upper_mtd.marker = marker;
	}
	judge_mtd(s, &part, content, marker, is_upper, dev, type, role);
	return 1;
}

/* union.ubi=mtd:NAME: attach that MTD once (unless ubi.mtd= already did). */
static void ubi_attach(struct boot *b)
{
	struct spec s;
	struct mtd_part part;
	struct ubi_attach_req req;
	char err[128];
	int fd, rc;

	if (ubi.tried || !b->cfg.ubi[0])
		return;
	if (spec_parse(b->cfg.ubi, &s, err, sizeof(err)) < 0 || s.kind != SPEC_MTD) {
		ubi.tried = 1; /* configure() validated it: cannot happen */
		return;
	}
	if (find_part(s.value, &part) < 0)
		return; /* the MTD is not there yet */
	if (ubi_find(NULL, part.index, &ubi.dev, NULL) == 0) {
		ubi.tried = 1;
		log_info("UBI: mtd:%s (mtd%d) is attached as ubi%d already", s.value, part.index,
			 ubi.dev);
		return;
	}
	fd = sys_open("/dev/ubi_ctrl", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return; /* ubi not loaded yet, or its node is still coming */
	memset(&req, 0, sizeof(req));
	req.ubi_num = UBI_DEV_NUM_AUTO;
	req.mtd_num = part.index;
	rc = sys_ioctl(fd, UBI_IOCATT, &req);
	rc = rc < 0 ? rc : req.ubi_num;
	sys_close(fd);
	ubi.tried = 1;
	if (rc < 0) {
		log_err("UBI: attaching mtd:%s (mtd%d) failed: %s; ubi: volumes on it stay missing",
			s.value, part.index, strerror(-rc));
		return;
	}
	ubi.dev = rc;
	log_info("UBI: attached mtd:%s (mtd%d) as ubi%d", s.value, part.index, rc);
}

/* A missing writable volume on first boot: all the free space of the UBI
 * device of union.ubi= (ubifs formats an empty volume at its first mount). */
static int ubi_make_volume(const char *name)
{
	struct ubi_mkvol_req req;
	uint64_t avail, ebsize, bytes;
	char path[32];
	int fd, rc;

	if (ubi_sys_num(ubi.dev, "avail_eraseblocks", &avail) < 0 ||
	    ubi_sys_num(ubi.dev, "eraseblock_size", &ebsize) < 0)
		return -ENOENT;
	bytes = ubi_free_bytes(avail, ebsize);
	if (!bytes)
		return -ENOSPC;
	memset(&req, 0, sizeof(req));
	req.vol_id = UBI_VOL_NUM_AUTO;
	req.alignment = 1;
	req.bytes = (__s64)bytes;
	req.vol_type = UBI_DYNAMIC_VOLUME;
	req.name_len = (__s16)strlen(name);
	if (strcopy(req.name, sizeof(req.name), name) < 0 ||
	    strfmt(path, sizeof(path), "/dev/ubi%d", ubi.dev) < 0)
		return -ENAMETOOLONG;
	fd = sys_open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fd;
	rc = sys_ioctl(fd, UBI_IOCMKVOL, &req);
	rc = rc < 0 ? rc : 0;
	sys_close(fd);
	if (rc == 0)
		log_note("UBI: created volume \"%s\" on ubi%d (%llu bytes, all the free space); ubifs formats it at its first mount",
			 name, ubi.dev, (unsigned long long)bytes);
	return rc;
}

/* A read-only layer in UBI volume dev ("ubi0_1"): ubifs is mounted as it
 * is; a squashfs (any file system the probe table knows) is mounted from
 * the volume's ubiblock device, created here. Always 1 (resolved): type ""
 * when the volume cannot be used, said why. */
static int lower_volume(const struct spec *s, char *dev, char *type, const char *role)
{
	char block[DEVNODE_MAX];
	int rc = ubiblock_probe(dev, type, FSTYPE_MAX);

	if (rc == UBI_HOLDS_UBIFS) {
		IGNORE(strcopy(type, FSTYPE_MAX, "ubifs")); /* fits */
		log_info("%s: ubi:%s is %s (ubifs)", role, s->value, dev);
		return 1;
	}
	if (rc < 0 || rc == UBI_HOLDS_UNKNOWN) {
		log_err("%s: ubi:%s (%s) %s%s; not using it", role, s->value, dev,
			rc < 0 ? "cannot be read: " : "holds neither ubifs nor a file system for ubiblock",
			rc < 0 ? strerror(-rc) : "");
		type[0] = '\0';
		return 1;
	}
	rc = ubiblock_path(dev, block, sizeof(block));
	if (rc == 0)
		rc = ubiblock_create(dev);
	if (rc < 0) {
		log_err("%s: ubi:%s (%s) holds %s, but creating its ubiblock device failed: %s%s; not using it",
			role, s->value, dev, type, strerror(-rc),
			rc == -ENOSYS ? " (a kernel without CONFIG_MTD_UBI_BLOCK)" : "");
		type[0] = '\0';
		return 1;
	}
	log_info("%s: ubi:%s is %s (%s in UBI volume %s)", role, s->value, block, type, dev);
	IGNORE(strcopy(dev, DEVNODE_MAX, block)); /* same size */
	return 1;
}

static int resolve_ubi(struct boot *b, const struct spec *s, int is_upper, char *dev,
		       char *type, const char *role)
{
	int rc, vdev, vol;

	ubi_attach(b);
	if (ubi_find(s->value, 0, &vdev, &vol) < 0) {
		/* first boot: make the writable volume, once, on the device the
		 * user named; a read-only layer is never invented */
		if (!is_upper || ubi.dev < 0 || ubi.made)
			return 0;
		ubi.made = 1;
		rc = ubi_make_volume(s->value);
		if (rc < 0) {
			log_err("%s: creating UBI volume \"%s\" on ubi%d failed: %s", role, s->value,
				ubi.dev, strerror(-rc));
			return 0;
		}
		if (ubi_find(s->value, 0, &vdev, &vol) < 0)
			return 0;
	}
	if (strfmt(dev, DEVNODE_MAX, "ubi%d_%d", vdev, vol) < 0)
		return 0;
	IGNORE(strcopy(type, FSTYPE_MAX, "ubifs")); /* fits */
	if (!is_upper)
		return lower_volume(s, dev, type, role);
	log_info("%s: ubi:%s is %s (ubifs)", role, s->value, dev);
	return 1;
}

int flash_resolve(struct boot *b, const struct spec *s, int is_upper, char *dev, char *type,
		  const char *role)
{
	modules_for_need(NEED_FLASH);
	if (s->kind == SPEC_MTD)
		return resolve_mtd(b, s, is_upper, dev, type, role);
	if (s->kind == SPEC_UBI)
		return resolve_ubi(b, s, is_upper, dev, type, role);
	return 0;
}

int flash_upper_marked(void)
{
	return upper_mtd.known && upper_mtd.content == FLASH_MARKER;
}

/* Erases the eraseblocks first to end - 1 of the writable MTD, the last
 * first; the count goes to *n. Closing /dev/mtdN opened for writing syncs
 * the MTD (mtdchar_close: mtd_sync), so what was erased is on the flash
 * when this returns 0 (block2mtd erases into the page cache). */
static int erase_down(uint32_t first, uint32_t end, unsigned *n)
{
	struct erase_info_user ei;
	char path[32];
	int fd, rc = 0;

	if (strfmt(path, sizeof(path), "/dev/mtd%d", upper_mtd.part.index) < 0)
		return -ENAMETOOLONG;
	fd = sys_open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fd;
	for (uint32_t i = end; i > first; i--) {
		loff_t at = (loff_t)(i - 1) * upper_mtd.part.erasesize;

		if (sys_ioctl(fd, MEMGETBADBLOCK, &at) > 0)
			continue;
		ei.start = (__u32)at;
		ei.length = upper_mtd.part.erasesize;
		if ((rc = sys_ioctl(fd, MEMERASE, &ei)) < 0)
			break;
		(*n)++;
	}
	sys_close(fd);
	return rc;
}

int flash_format_upper(struct boot *b)
{
	const struct mtd_part *p = &upper_mtd.part;
	int marked = flash_upper_marked(), rc;
	uint32_t first, end;
	unsigned erased = 0;

	if (!upper_mtd.known)
		return -ENODEV;
	if (upper_mtd.content == FLASH_UBI) {
		log_err("writable branch %s holds UBI; union.format=jffs2 does not erase UBI (its erase counters would be lost)",
			b->upper_dev);
		return -EEXIST;
	}
	if (!p->erasesize || p->size / p->erasesize > UINT32_MAX)
		return -EINVAL;
	end = (uint32_t)(p->size / p->erasesize);
	first = marked ? (uint32_t)(upper_mtd.marker / p->erasesize) : 0;
	/* The first block goes last, once every other is erased: until then
	 * it still says what the flash was (OpenWrt's marker, or data that is
	 * not jffs2), so a cut leaves a partition the next boot erases as
	 * this one did, never a jffs2 with leftovers behind it. */
	rc = first < end ? erase_down(first + 1, end, &erased) : 0;
	if (rc == 0)
		IGNORE(crashpoint_hit("flasherase", NULL)); /* returns unless a test armed it */
	if (rc == 0 && first < end)
		rc = erase_down(first, first + 1, &erased);
	if (rc < 0)
		log_err("writable branch %s: erasing it failed: %s; %s", b->upper_dev, strerror(-rc),
			marked ? "OpenWrt's marker stays, and the next boot erases it again" :
				 "not using it");
	else if (marked)
		log_note("writable branch %s: erased %u eraseblocks from OpenWrt's end-of-image marker at 0x%llx on; it mounts as jffs2",
			 b->upper_dev, erased, (unsigned long long)upper_mtd.marker);
	else
		log_note("writable branch %s: erased %u eraseblocks (union.format=jffs2); it mounts as an empty jffs2",
			 b->upper_dev, erased);
	return rc;
}
