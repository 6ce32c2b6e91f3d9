// SPDX-License-Identifier: MIT
/* Step 5, before the persistent writable branch is mounted: its file system
 * checker, the initramfs' (build.conf TOOLS="e2fsck fsck.f2fs") or else the
 * image's own (init/tool_place.c), in preen mode, under a time limit. The exit codes follow e2fsck(8):
 * 0 clean, 1 repaired, 2 repaired (reboot wanted: only for a mounted root),
 * 4 errors left; 8 and up mean the check itself could not be done. */
#include <errno.h>
#include <string.h>

#include "boot.h"
#include "lib/log.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"

/* e2fsck -p on a large, damaged fs can take long; a boot must not hang. */
#define FSCK_TIMEOUT_S 300

/* Arrays, not pointers: static-pie relocates each pointer at start-up. */
static const struct {
	char type[5];
	char path[16];
	char arg[3];
} checkers[] = {
	{ "ext2", "/sbin/e2fsck", "-p" },
	{ "ext3", "/sbin/e2fsck", "-p" },
	{ "ext4", "/sbin/e2fsck", "-p" },
	{ "f2fs", "/sbin/fsck.f2fs", "-a" },
};

int fsck_branch(struct boot *b, const char *type, char *why, size_t cap)
{
	const char *dev = b->upper_dev, *path[1];
	uint64_t t0 = sys_now_ms();
	struct tool t;
	char *argv[4];
	size_t i = 0;
	int rc;

	if (!b->cfg.fsck)
		return 0;
	while (i < ARRAY_SIZE(checkers) && strcmp(checkers[i].type, type) != 0)
		i++;
	if (i == ARRAY_SIZE(checkers))
		return 0; /* no checker for this type (jffs2, ubifs, vfat, ...) */
	path[0] = checkers[i].path;
	if (tool_find(b, path, 1, &t) < 0) {
		log_warn("writable branch %s: no %s in this initramfs or in the image; not checked", dev,
			 path[0]);
		return 0;
	}
	argv[0] = (char *)t.path;
	argv[1] = (char *)checkers[i].arg;
	argv[2] = (char *)dev;
	argv[3] = NULL;
	rc = tool_run(&t, argv, FSCK_TIMEOUT_S);
	b->fsck_ms = sys_now_ms() - t0;
	if (b->fsck_ms == 0)
		b->fsck_ms = 1; /* it ran */
	if (rc == -ETIMEDOUT) {
		log_err("writable branch %s: %s did not finish in %d s; mounting it unchecked", dev, t.path,
			FSCK_TIMEOUT_S);
	} else if (rc < 0 || rc >= 8) {
		log_err("writable branch %s: %s could not check it (%s %d); mounting it unchecked", dev,
			t.path, rc < 0 ? strerror(-rc) : "exit", rc < 0 ? 0 : rc);
	} else if (rc & 4) {
		IGNORE(strfmt(why, cap, "writable branch %s (%s): %s found errors it cannot repair (exit %d)",
			      dev, type, t.path, rc)); /* cut is fine */
		return -EUCLEAN;
	} else if (rc) {
		log_warn("writable branch %s: %s repaired its file system (exit %d) in %llu ms", dev, t.path,
			 rc, (unsigned long long)b->fsck_ms);
	} else {
		log_note("writable branch %s: %s: clean, %llu ms", dev, t.path,
			 (unsigned long long)b->fsck_ms);
	}
	return 0;
}
