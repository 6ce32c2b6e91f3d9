// SPDX-License-Identifier: MIT
/* Between steps 4 and 5: a writable medium that holds no file system gets
 * one, but only when union.format= (or the board) names the type, and only
 * when it is blank: no known superblock and the first MiB all 0x00 or all
 * 0xFF. A medium that merely lost its superblock is never formatted. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blank.h"
#include "boot.h"
#include "log.h"
#include "sbuf.h"
#include "sys.h"

/* Formatting a large eMMC takes a while; a tool that hangs must not. */
#define MKFS_TIMEOUT_S 600

/* The formatters the initramfs may carry (board/NAME/build.conf TOOLS=),
 * first found wins; the device path is appended. */
static const struct {
	const char *type;
	const char *path;
	const char *args[4];
} mkfs_tools[] = {
	{ "ext4", "/sbin/mkfs.ext4", { "-q", "-F", NULL } },
	{ "ext4", "/usr/sbin/mkfs.ext4", { "-q", "-F", NULL } },
	{ "f2fs", "/sbin/mkfs.f2fs", { "-q", "-f", NULL } },
	{ "f2fs", "/usr/sbin/mkfs.f2fs", { "-q", "-f", NULL } },
	{ "vfat", "/sbin/mkfs.vfat", { NULL } },
	{ "vfat", "/usr/sbin/mkfs.vfat", { NULL } },
	{ "vfat", "/bin/busybox", { "mkdosfs", NULL } },
};

static int is_blank(const char *dev)
{
	static uint8_t buf[65536];
	int fd = open(dev, O_RDONLY | O_CLOEXEC), blank = 1;
	size_t total = 0;
	uint8_t first = 0;

	if (fd < 0)
		return -errno;
	while (blank && total < BLANK_CHECK_BYTES) {
		ssize_t n = pread(fd, buf, sizeof(buf), (off_t)total);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			blank = -errno;
			break;
		}
		if (n == 0)
			break; /* a device smaller than a MiB: what exists counts */
		if (total == 0)
			first = buf[0];
		blank = blank_bytes(buf, (size_t)n) && buf[0] == first;
		total += (size_t)n;
	}
	close(fd);
	return total ? blank : -EIO;
}

static int run_mkfs(const char *path, const char *const *args, const char *dev)
{
	char *argv[8];
	int argc = 0, rc;

	argv[argc++] = (char *)path;
	for (unsigned i = 0; args[i] && argc < 6; i++)
		argv[argc++] = (char *)args[i];
	argv[argc++] = (char *)dev;
	argv[argc] = NULL;
	rc = tool_run(path, argv, MKFS_TIMEOUT_S);
	return rc == 0 ? 0 : rc < 0 ? rc : -EIO;
}

static int format_block(struct boot *b, const char *type)
{
	uint64_t t0 = sys_now_ms();
	int blank = is_blank(b->upper_dev), rc;

	if (blank < 0) {
		log_err("writable branch %s: reading it failed: %s; not formatting it", b->upper_dev,
			strerror(-blank));
		return blank;
	}
	if (!blank) {
		log_err("writable branch %s holds no file system unionroot knows but is not blank (data in its first MiB); not formatting it",
			b->upper_dev);
		return -EEXIST;
	}
	log_note("writable branch %s is blank; formatting it as %s (union.format=%s)", b->upper_dev,
		 type, type);
	rc = firstboot_mkfs(b->upper_dev, type);
	if (rc == 0)
		log_note("writable branch %s: formatted as %s in %llu ms", b->upper_dev, type,
			 (unsigned long long)(sys_now_ms() - t0));
	return rc;
}

int firstboot_mkfs(const char *dev, const char *type)
{
	struct stat st;

	for (size_t i = 0; i < ARRAY_SIZE(mkfs_tools); i++) {
		int rc;

		if (strcmp(mkfs_tools[i].type, type) != 0 || stat(mkfs_tools[i].path, &st) < 0)
			continue;
		rc = run_mkfs(mkfs_tools[i].path, mkfs_tools[i].args, dev);
		if (rc < 0)
			log_err("formatting %s as %s with %s failed", dev, type, mkfs_tools[i].path);
		return rc;
	}
	log_err("%s: this initramfs carries no mkfs for %s (add it to the board's TOOLS=)", dev, type);
	return -ENOENT;
}

void firstboot(struct boot *b)
{
	const char *fmt = b->cfg.format;
	int rc;

	if (b->upper_kind != UPPER_DEVICE || !b->upper_dev[0] || b->upper_type[0] ||
	    b->cfg.upperfs[0])
		return; /* nothing found, a known file system, or a forced type */
	if (!fmt[0]) {
		if (b->upper.kind != SPEC_MTD && is_blank(b->upper_dev) == 1)
			log_note("writable branch %s is blank; union.format=ext4|f2fs|vfat would give it a file system",
				 b->upper_dev);
		return;
	}
	if (b->upper.kind == SPEC_MTD) {
		if (strcmp(fmt, "jffs2") != 0) {
			log_err("union.format=%s does not apply to raw flash %s (only jffs2 does)", fmt,
				b->upper_dev);
			return;
		}
		rc = flash_format_upper(b);
	} else if (b->upper.kind == SPEC_UBI || strcmp(fmt, "jffs2") == 0) {
		log_err("union.format=%s does not apply to %s", fmt, b->upper_dev);
		return;
	} else {
		rc = format_block(b, fmt);
	}
	if (rc == 0)
		IGNORE(strcopy(b->upper_type, sizeof(b->upper_type), fmt)); /* format names are short */
}
