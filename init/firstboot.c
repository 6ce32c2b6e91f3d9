// SPDX-License-Identifier: MIT
/* Between steps 4 and 5: a writable medium that holds no file system gets
 * one, but only when union.format= (or the board) names the type, and only
 * when it is blank: no known superblock and the first MiB all 0x00 or all
 * 0xFF. A medium that merely lost its superblock is never formatted. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "branch/blank.h"
#include "boot.h"
#include "lib/fmt.h"
#include "lib/log.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"

/* Formatting a large eMMC takes a while; a tool that hangs must not. */
#define MKFS_TIMEOUT_S 600

/* How a formatter takes the file system's size after the device path. */
enum size_arg { SIZE_KSUFFIX, SIZE_SECTORS, SIZE_KIB };

/* The formatters the initramfs may carry (board/NAME/build.conf TOOLS=),
 * or else the image (tool_find's order); the device path is appended, then the size if given.
 * Arrays, not pointers: static-pie relocates each pointer at start-up. */
static const struct {
	char type[6];
	char path[20];
	char args[2][8];   /* "" ends them */
	unsigned char size; /* enum size_arg */
} mkfs_tools[] = {
	{ "ext4", "/sbin/mkfs.ext4", { "-q", "-F" }, SIZE_KSUFFIX },
	{ "ext4", "/usr/sbin/mkfs.ext4", { "-q", "-F" }, SIZE_KSUFFIX },
	{ "f2fs", "/sbin/mkfs.f2fs", { "-q", "-f" }, SIZE_SECTORS },
	{ "f2fs", "/usr/sbin/mkfs.f2fs", { "-q", "-f" }, SIZE_SECTORS },
	{ "vfat", "/sbin/mkfs.vfat", { "" }, SIZE_KIB },
	{ "vfat", "/usr/sbin/mkfs.vfat", { "" }, SIZE_KIB },
	{ "vfat", "/bin/busybox", { "mkdosfs" }, SIZE_KIB },
};

/* The medium's geometry, for the file system's size and the mark's place. */
struct geometry {
	uint64_t bytes;
	unsigned sector;
};

static int is_blank(const char *dev)
{
	static uint8_t buf[65536];
	int fd = sys_open(dev, O_RDONLY | O_CLOEXEC), blank = 1;
	size_t total = 0;
	uint8_t first = 0;

	if (fd < 0)
		return fd;
	while (blank && total < BLANK_CHECK_BYTES) {
		ssize_t n = sys_pread(fd, buf, sizeof(buf), (off_t)total);

		if (n == -EINTR)
			continue;
		if (n < 0) {
			blank = (int)n;
			break;
		}
		if (n == 0)
			break; /* a device smaller than a MiB: what exists counts */
		if (total == 0)
			first = buf[0];
		blank = blank_bytes(buf, (size_t)n) && buf[0] == first;
		total += (size_t)n;
	}
	sys_close(fd);
	return total ? blank : -EIO;
}

enum mark_op { MARK_READ, MARK_SET, MARK_CLEAR };

/* Reads (1: the mark is there), sets or clears the mark of a format in
 * progress in the medium's last MiB, and fills g. A medium under two MiB
 * has no room for it: -ENOSPC, and it is formatted whole, as before. */
static int format_mark(const char *dev, enum mark_op op, struct geometry *g)
{
	static uint8_t blk[FORMAT_MARK_BLOCK];
	int fd = sys_open(dev, (op == MARK_READ ? O_RDONLY : O_RDWR) | O_CLOEXEC), ss = 512, rc = 0;
	ssize_t n = 0;
	off_t at;

	if (fd < 0)
		return fd;
	if ((rc = sys_ioctl(fd, BLKGETSIZE64, &g->bytes)) < 0 ||
	    (rc = sys_ioctl(fd, BLKSSZGET, &ss)) < 0 || ss <= 0) {
		sys_close(fd);
		return rc < 0 ? rc : -EINVAL;
	}
	g->sector = (unsigned)ss;
	if (g->bytes < 2ull * FORMAT_MARK_SPAN) {
		sys_close(fd);
		return -ENOSPC;
	}
	at = (off_t)(g->bytes - FORMAT_MARK_SPAN);
	memset(blk, 0, sizeof(blk));
	if (op == MARK_SET)
		memcpy(blk, FORMAT_MARK, sizeof(FORMAT_MARK) - 1);
	if (op == MARK_READ)
		n = sys_pread(fd, blk, sizeof(blk), at);
	else if ((n = sys_pwrite(fd, blk, sizeof(blk), at)) == (ssize_t)sizeof(blk) &&
		 (rc = sys_fsync(fd)) < 0)
		n = rc;
	if (n < 0)
		rc = (int)n;
	else if (op == MARK_READ)
		rc = format_mark_is(blk, (size_t)n);
	else if (n != (ssize_t)sizeof(blk))
		rc = -EIO;
	sys_close(fd);
	return rc;
}

/* The option that names the file system's label, by the formatter's type. */
static const char *label_option(const char *type)
{
	return strcmp(type, "ext4") == 0 ? "-L" : strcmp(type, "f2fs") == 0 ? "-l" : "-n";
}

static int run_mkfs(const struct tool *t, const char (*args)[8], const char *type, const char *label,
		    const char *dev, const char *size)
{
	char *argv[11];
	int argc = 0, rc;

	argv[argc++] = (char *)t->path;
	for (unsigned i = 0; i < 2 && args[i][0]; i++)
		argv[argc++] = (char *)args[i];
	if (label) {
		argv[argc++] = (char *)label_option(type);
		argv[argc++] = (char *)label;
	}
	argv[argc++] = (char *)dev;
	if (size)
		argv[argc++] = (char *)size;
	argv[argc] = NULL;
	rc = tool_run(t, argv, MKFS_TIMEOUT_S);
	return rc == 0 ? 0 : rc < 0 ? rc : -EIO;
}

/* g: the whole medium, of which the file system leaves the last MiB to the
 * mark; NULL: the whole medium (or file) is the file system. */
static int firstboot_mkfs_sized(struct boot *b, const char *dev, const char *type,
				const char *label, const struct geometry *g)
{
	uint64_t fs = g ? g->bytes - FORMAT_MARK_SPAN : 0;
	unsigned sector = g && g->sector ? g->sector : 512, row[ARRAY_SIZE(mkfs_tools)], n = 0;
	const char *path[ARRAY_SIZE(mkfs_tools)];
	struct tool t;
	char size[32];
	int i, rc;

	for (unsigned k = 0; k < ARRAY_SIZE(mkfs_tools); k++)
		if (strcmp(mkfs_tools[k].type, type) == 0) {
			row[n] = k;
			path[n++] = mkfs_tools[k].path;
		}
	i = tool_find(b, path, n, &t);
	if (i < 0) {
		log_err("%s: no mkfs for %s in this initramfs or in the image (%s%s%s); add one to the board's TOOLS=",
			dev, type, n ? path[0] : "", n > 1 ? " or " : "", n > 1 ? path[n - 1] : "");
		return -ENOENT;
	}
	i = (int)row[i];
	if (mkfs_tools[i].size == SIZE_SECTORS)
		fmt_sn(size, sizeof(size), "%llu", (unsigned long long)(fs / sector));
	else
		fmt_sn(size, sizeof(size), mkfs_tools[i].size == SIZE_KSUFFIX ? "%lluk" : "%llu",
		       (unsigned long long)(fs / 1024));
	rc = run_mkfs(&t, mkfs_tools[i].args, type, label, dev, g ? size : NULL);
	if (rc < 0)
		log_err("formatting %s as %s with %s failed", dev, type, t.path);
	return rc;
}

int firstboot_mkfs(struct boot *b, const char *dev, const char *type, const char *label)
{
	return firstboot_mkfs_sized(b, dev, type, label, NULL);
}

/* Not blank, but marked by a format of ours that a cut stopped: 1. */
static int cut_format(const char *dev)
{
	struct geometry g;

	if (format_mark(dev, MARK_READ, &g) != 1)
		return 0;
	log_note("writable branch %s: an earlier union.format was cut short (its mark is still there); formatting it again",
		 dev);
	return 1;
}

static int format_block(struct boot *b, const char *type)
{
	uint64_t t0 = sys_now_ms();
	int blank = is_blank(b->upper_dev), rc;
	struct geometry g = { 0, 0 };

	if (blank < 0) {
		log_err("writable branch %s: reading it failed: %s; not formatting it", b->upper_dev,
			strerror(-blank));
		return blank;
	}
	if (!blank && !cut_format(b->upper_dev)) {
		log_err("writable branch %s holds no file system unionroot knows but is not blank (data in its first MiB); not formatting it",
			b->upper_dev);
		return -EEXIST;
	}
	if (blank)
		log_note("writable branch %s is blank; formatting it as %s (union.format=%s)",
			 b->upper_dev, type, type);
	rc = format_mark(b->upper_dev, MARK_SET, &g);
	if (rc < 0 && rc != -ENOSPC) {
		log_err("writable branch %s: marking the format in progress failed: %s; not formatting it",
			b->upper_dev, strerror(-rc));
		return rc;
	}
	rc = firstboot_mkfs_sized(b, b->upper_dev, type, NULL, rc < 0 ? NULL : &g);
	if (rc == 0 && g.bytes >= 2ull * FORMAT_MARK_SPAN &&
	    (rc = format_mark(b->upper_dev, MARK_CLEAR, &g)) < 0)
		log_err("writable branch %s: clearing the mark of the format failed: %s; it is formatted again at the next boot",
			b->upper_dev, strerror(-rc));
	if (rc == 0)
		log_note("writable branch %s: formatted as %s in %llu ms", b->upper_dev, type,
			 (unsigned long long)(sys_now_ms() - t0));
	return rc;
}

void firstboot(struct boot *b)
{
	const char *fmt = b->cfg.format;
	int rc;

	if (b->plan.upper_kind != UPPER_DEVICE || !b->upper_dev[0] || b->upper_type[0])
		return; /* nothing found, or a known file system */
	/* OpenWrt's marker means blank, as erased flash does: a jffs2 without
	 * union.format, as fstools makes one; a forced type (union.upperfs=)
	 * names the file system, not what the flash holds, so it is erased
	 * under one too: jffs2 would scan leftovers behind the marker */
	if (b->cfg.upper_spec.kind == SPEC_MTD && flash_upper_marked())
		fmt = "jffs2";
	else if (b->cfg.upperfs[0])
		return; /* a forced type */
	if (!fmt[0]) {
		if (b->cfg.upper_spec.kind != SPEC_MTD && is_blank(b->upper_dev) == 1)
			log_note("writable branch %s is blank; union.format=ext4|f2fs|vfat would give it a file system",
				 b->upper_dev);
		return;
	}
	if (b->cfg.upper_spec.kind == SPEC_MTD) {
		if (strcmp(fmt, "jffs2") != 0) {
			log_err("union.format=%s does not apply to raw flash %s (only jffs2 does)", fmt,
				b->upper_dev);
			return;
		}
		rc = flash_format_upper(b);
	} else if (b->cfg.upper_spec.kind == SPEC_UBI || strcmp(fmt, "jffs2") == 0) {
		log_err("union.format=%s does not apply to %s", fmt, b->upper_dev);
		return;
	} else {
		rc = format_block(b, fmt);
	}
	if (rc == 0)
		IGNORE(strcopy(b->upper_type, sizeof(b->upper_type), fmt)); /* format names are short */
}
