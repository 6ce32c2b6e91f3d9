// SPDX-License-Identifier: MIT
/* Raw flash for step 4: mtd:NAME (or mtd:N) becomes /dev/mtdblockN, judged
 * by what its eraseblocks hold; ubi:VOLUME is found by name after attaching
 * union.ubi= (UBI_IOCATT), a read-only one holding squashfs is mounted
 * through ubiblock, and a missing writable volume is made from the free
 * space on first boot (UBI_IOCMKVOL). Nothing here erases anything unless
 * union.format=jffs2 asked for it. */
#include <errno.h>
#include <fcntl.h>
#include <mtd/mtd-user.h>
#include <mtd/ubi-user.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
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

/* Judges every eraseblock through /dev/mtdN (bad NAND blocks skipped) and
 * folds the verdicts; -errno when it cannot read. */
static int scan_part(const struct mtd_part *p)
{
	static uint8_t head[HEAD_BYTES];
	unsigned counts[4] = { 0 };
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
		if (counts[FLASH_DATA])
			break; /* the verdict cannot change any more */
	}
	sys_close(fd);
	return rc < 0 ? rc : flash_verdict(counts);
}

static int resolve_mtd(struct boot *b, const struct spec *s, int is_upper, char *dev,
		       char *type, const char *role)
{
	struct mtd_part part;
	const struct blkdev *d = NULL;
	char name[32];
	struct stat st;
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
	content = scan_part(&part);
	if (is_upper) {
		upper_mtd.known = 1;
		upper_mtd.part = part;
		upper_mtd.content = content;
	}
	if (content == FLASH_ERASED || content == FLASH_JFFS2) {
		IGNORE(strcopy(type, FSTYPE_MAX, "jffs2"));
		log_info("%s: mtd:%s is %s (mtd%d, %s%s)", role, s->value, dev, part.index,
			 content == FLASH_ERASED ? "erased flash" : "jffs2",
			 content == FLASH_ERASED ? ": mounts as an empty jffs2" : "");
		/* measured on 6.1: overlayfs mounts over jffs2 (it warns that
		 * RENAME_WHITEOUT is missing) and serves writes, deletions and
		 * new files; what needs RENAME_WHITEOUT or RENAME_EXCHANGE fails */
		if (is_upper)
			log_warn("writable branch %s is jffs2, which lacks RENAME_WHITEOUT and RENAME_EXCHANGE: renaming a file of the image and re-creating a directory deleted from it fail with EINVAL (UBI/ubifs has neither limit)",
				 dev);
	} else if (content == FLASH_UBI) {
		log_err("%s: mtd:%s (mtd%d) holds UBI, not jffs2; attach it with union.ubi=mtd:%s and name a volume with ubi:VOLUME",
			role, s->value, part.index, s->value);
	} else if (content < 0) {
		log_err("%s: reading mtd:%s (mtd%d) failed: %s; not using it", role, s->value,
			part.index, strerror(-content));
	} else {
		log_err("%s: mtd:%s (mtd%d) holds data that is neither erased flash nor jffs2; not touching it%s",
			role, s->value, part.index,
			is_upper ? " (union.format=jffs2 erases it)" : "");
	}
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

int flash_format_upper(struct boot *b)
{
	struct erase_info_user ei;
	char path[32];
	int fd, rc = 0;
	unsigned erased = 0;

	if (!upper_mtd.known)
		return -ENODEV;
	if (upper_mtd.content == FLASH_UBI) {
		log_err("writable branch %s holds UBI; union.format=jffs2 does not erase UBI (its erase counters would be lost)",
			b->upper_dev);
		return -EEXIST;
	}
	if (strfmt(path, sizeof(path), "/dev/mtd%d", upper_mtd.part.index) < 0)
		return -ENAMETOOLONG;
	fd = sys_open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fd;
	for (uint64_t off = 0; off + upper_mtd.part.erasesize <= upper_mtd.part.size;
	     off += upper_mtd.part.erasesize) {
		loff_t at = (loff_t)off;

		if (sys_ioctl(fd, MEMGETBADBLOCK, &at) > 0)
			continue;
		ei.start = (__u32)off;
		ei.length = upper_mtd.part.erasesize;
		if ((rc = sys_ioctl(fd, MEMERASE, &ei)) < 0)
			break;
		erased++;
	}
	sys_close(fd);
	if (rc == 0)
		log_note("writable branch %s: erased %u eraseblocks (union.format=jffs2); it mounts as an empty jffs2",
			 b->upper_dev, erased);
	return rc;
}
