// SPDX-License-Identifier: MIT
/* init/flash.c's writable MTD on a fake /proc/mtd and a file for /dev/mtd1:
 * OpenWrt's end-of-image marker is named, and the first boot erases from
 * it to the end, the last block first and the marker's own last of all,
 * after the others were synced (closing /dev/mtd1); union.format=jffs2
 * erases data the same way; a failed erase leaves the marker's block. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../init/boot.h"
#include "fake_sys.h"
#include "init_log.h"
#include "unit.h"

#define EB 0x20000u
#define BLOCKS 4u

static struct boot b;

/* rootfs_data as mtd1, BLOCKS eraseblocks; head[i] the first 16 bytes of
 * block i ("": erased), the rest of each block 0xFF */
static void flash(const char head[BLOCKS][17])
{
	static const char proc_mtd[] = "dev:    size   erasesize  name\n"
				       "mtd0: 00100000 00020000 \"rootfs\"\n"
				       "mtd1: 00080000 00020000 \"rootfs_data\"\n";
	static unsigned char block[EB];
	char path[512];
	int fd;

	fake_sys_reset(unit_tmpdir());
	console_catch();
	memset(&b, 0, sizeof(b));
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s%s", unit_tmpdir(), i ? "/dev" : "/proc");
		mkdir(path, 0755);
	}
	snprintf(path, sizeof(path), "%s/proc/mtd", unit_tmpdir());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(write(fd, proc_mtd, sizeof(proc_mtd) - 1) == (ssize_t)sizeof(proc_mtd) - 1);
	close(fd);
	snprintf(path, sizeof(path), "%s/dev/mtdblock1", unit_tmpdir());
	close(open(path, O_WRONLY | O_CREAT, 0600));
	fake_sys_blockdev("/dev/mtdblock1");
	snprintf(path, sizeof(path), "%s/dev/mtd1", unit_tmpdir());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	for (unsigned i = 0; i < BLOCKS; i++) {
		memset(block, 0xff, sizeof(block));
		if (head[i][0])
			memcpy(block, head[i], 16);
		CHECK(write(fd, block, sizeof(block)) == (ssize_t)sizeof(block));
	}
	close(fd);
	b.devs.n = 1;
	snprintf(b.devs.d[0].name, sizeof(b.devs.d[0].name), "mtdblock1");
	b.cfg.upper_spec.kind = SPEC_MTD;
	snprintf(b.cfg.upper_spec.value, sizeof(b.cfg.upper_spec.value), "rootfs_data");
}

/* step 4 on it, as the writable branch: 1, with the type it leaves */
static int resolve(char *type)
{
	return flash_resolve(&b, &b.cfg.upper_spec, 1, b.upper_dev, type, "writable branch");
}

/* the erases since the last reset, in order, and whether /dev/mtd1 was
 * closed between the last two (what syncs block2mtd) */
static const char *erases(int *closed_before_last)
{
	static char out[256];
	const char *log = fake_sys_log(), *last = NULL;
	size_t len = 0;

	out[0] = '\0';
	for (const char *p = log; *p; p = strchr(p, '\n') + 1)
		if (strncmp(p, "erase ", 6) == 0) {
			const char *nl = strchr(p, '\n');

			len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%.*s", len ? " " : "",
						(int)(nl - p - 6), p + 6);
			last = p;
		}
	*closed_before_last = 0;
	if (last) {
		const char *prev = NULL;

		for (const char *p = log; p < last; p = strchr(p, '\n') + 1)
			if (strncmp(p, "erase ", 6) == 0)
				prev = p;
		for (const char *p = prev ? prev : log; p < last; p = strchr(p, '\n') + 1)
			if (strncmp(p, "close /dev/mtd1\n", 16) == 0)
				*closed_before_last = 1;
	}
	return out;
}

/* a freshly flashed rootfs_data: the marker at its head, leftovers behind */
static void marker_at_head(void)
{
	static const char head[BLOCKS][17] = { "\xde\xad\xc0\xde\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff",
					       "stale leftovers", "", "\x85\x19\x03\x20\x0c" };
	char type[FSTYPE_MAX];
	int closed;

	flash(head);
	CHECK_INT(resolve(type), 1);
	CHECK_STR(type, ""); /* not mountable before the erase: the first-boot step runs */
	CHECK(strstr(console_said(),
		     "writable branch: mtd:rootfs_data is /dev/mtdblock1 (mtd1) with OpenWrt's end-of-image marker (de ad c0 de) at 0x0: blank from there on") != NULL);
	CHECK_INT(flash_upper_marked(), 1);
	CHECK_INT(flash_format_upper(&b), 0);
	CHECK_STR(erases(&closed), "0x60000 0x40000 0x20000 0x0");
	CHECK_INT(closed, 1);
	CHECK(strstr(console_said(), "erased 4 eraseblocks from OpenWrt's end-of-image marker at 0x0 on") != NULL);
}

/* sysupgrade's saved settings: jffs2 in block 0, the marker in block 1 */
static void marker_after_jffs2(void)
{
	static const char head[BLOCKS][17] = { "\x85\x19\x03\x20\x0c", "\xde\xad\xc0\xde",
					       "\x85\x19\x01\xe0", "garbage" };
	char type[FSTYPE_MAX];
	int closed;

	flash(head);
	CHECK_INT(resolve(type), 1);
	CHECK(strstr(console_said(), "at 0x20000: blank from there on, as fstools reads it; erasing that part, then it mounts as the jffs2 before the marker") != NULL);
	CHECK_INT(flash_format_upper(&b), 0);
	CHECK_STR(erases(&closed), "0x60000 0x40000 0x20000"); /* block 0 keeps the settings */
	CHECK_INT(closed, 1);
}

/* data, then a marker: not ours, and never erased unasked */
static void data_before_marker(void)
{
	static const char head[BLOCKS][17] = { "foreign bytes", "\xde\xad\xc0\xde", "", "" };
	char type[FSTYPE_MAX];
	int closed;

	flash(head);
	CHECK_INT(resolve(type), 1);
	CHECK_STR(type, "");
	CHECK_INT(flash_upper_marked(), 0);
	CHECK(strstr(console_said(), "holds data that is neither erased flash nor jffs2; not touching it") != NULL);
	/* union.format=jffs2 erases it whole, block 0 last */
	CHECK_INT(flash_format_upper(&b), 0);
	CHECK_STR(erases(&closed), "0x60000 0x40000 0x20000 0x0");
	CHECK_INT(closed, 1);
}

/* a cut or a failure before the marker's block: it is still there */
static void failed_erase_keeps_marker(void)
{
	static const char head[BLOCKS][17] = { "\xde\xad\xc0\xde", "", "", "" };
	char type[FSTYPE_MAX];
	int closed;

	flash(head);
	CHECK_INT(resolve(type), 1);
	fake_sys_fail("erase", "0x40000", 0, -EIO);
	CHECK_INT(flash_format_upper(&b), -EIO);
	CHECK_STR(erases(&closed), "0x60000 0x40000");
	CHECK(strstr(console_said(), "erasing it failed: Input/output error; OpenWrt's marker stays") != NULL);
}

UNIT_SUITE(init_flash, { "OpenWrt's marker at rootfs_data's head: named, erased last", marker_at_head },
	   { "the marker behind jffs2: the blocks before it are kept", marker_after_jffs2 },
	   { "data before a marker: not touched unasked, union.format=jffs2 erases it all", data_before_marker },
	   { "a failed erase never reaches the marker's block", failed_erase_keeps_marker });
