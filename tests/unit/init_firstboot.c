// SPDX-License-Identifier: MIT
/* init/firstboot.c's formatter choice on a fake initramfs and image: the
 * initramfs' first mkfs wins, else the read-only layer's own; never one of
 * a writable mount or reached by a symlink out of the layer; none is named
 * as missing, a failed run is said. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "../../init/boot.h"
#include "fake_sys.h"
#include "init_log.h"
#include "init_tool.h"
#include "unit.h"

static struct boot b;

/* an initramfs at the scratch root carrying both ext4 formatters */
static void initramfs(int answer)
{
	static const char *const carried[] = { "/sbin/mkfs.ext4", "/usr/sbin/mkfs.ext4" };
	char path[512];

	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s%s", unit_tmpdir(), (const char *[]){ "/sbin", "/usr", "/usr/sbin" }[i]);
		mkdir(path, 0755);
	}
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s%s", unit_tmpdir(), carried[i]);
		close(open(path, O_WRONLY | O_CREAT, 0755));
	}
	fake_sys_reset(unit_tmpdir());
	console_catch();
	tool_forget(answer);
	memset(&b, 0, sizeof(b));
}

/* read-only layer 1 mounted, a Debian root of merged /usr: sbin -> usr/sbin,
 * with mkfs.ext4 (executable) and a planted one on the writable branch that
 * the layer's mkfs.f2fs points at, out of the layer */
static void image(unsigned long flags, int in_initramfs)
{
	static const char *const dirs[] = { "/run", "/run/unionroot", "/run/unionroot/lower",
					    "/run/unionroot/lower/0", "/run/unionroot/lower/0/usr",
					    "/run/unionroot/lower/0/usr/sbin", "/run/unionroot/rw",
					    "/run/unionroot/rw/usr", "/run/unionroot/rw/usr/sbin" };
	struct statfs sfs = { .f_flags = flags };
	char path[512], to[512];

	initramfs(0);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", unit_tmpdir(), dirs[i]);
		mkdir(path, 0755);
	}
	snprintf(path, sizeof(path), "%s/run/unionroot/lower/0/sbin", unit_tmpdir());
	unlink(path);
	CHECK_INT(symlink("usr/sbin", path), 0);
	snprintf(path, sizeof(path), "%s/run/unionroot/lower/0/usr/sbin/mkfs.ext4", unit_tmpdir());
	close(open(path, O_WRONLY | O_CREAT, 0755));
	snprintf(path, sizeof(path), "%s/run/unionroot/rw/usr/sbin/mkfs.f2fs", unit_tmpdir());
	close(open(path, O_WRONLY | O_CREAT, 0755));
	snprintf(path, sizeof(path), "%s/run/unionroot/lower/0/usr/sbin/mkfs.f2fs", unit_tmpdir());
	snprintf(to, sizeof(to), "../../../../rw/usr/sbin/mkfs.f2fs");
	unlink(path);
	CHECK_INT(symlink(to, path), 0);
	fake_sys_statfs(&sfs);
	if (!in_initramfs) {
		fake_sys_fail("fstatat", "/sbin/mkfs.ext4", 0, -ENOENT);
		fake_sys_fail("fstatat", "/usr/sbin/mkfs.ext4", 0, -ENOENT);
	}
	fake_sys_fail("fstatat", "/sbin/mkfs.f2fs", 0, -ENOENT);
	fake_sys_fail("fstatat", "/usr/sbin/mkfs.f2fs", 0, -ENOENT);
	b.facts.lowers_mounted = 1;
}

static void image_mkfs_runs(void)
{
	image(ST_RDONLY, 0);
	CHECK_INT(firstboot_mkfs(&b, "/dev/loop1", "ext4", NULL), 0);
	CHECK_INT(tool_layer, 1);
	CHECK_STR(tool_argv[0], "/sbin/mkfs.ext4");
	CHECK_STR(b.tools_ran, "/sbin/mkfs.ext4 (read-only layer 1)");
	CHECK(strstr(console_said(), "/sbin/mkfs.ext4: none in this initramfs; running read-only layer 1's own"));
}

static void initramfs_mkfs_first(void)
{
	image(ST_RDONLY, 1);
	CHECK_INT(firstboot_mkfs(&b, "/dev/loop1", "ext4", NULL), 0);
	CHECK_INT(tool_layer, TOOL_INITRAMFS);
	CHECK_STR(b.tools_ran, "/sbin/mkfs.ext4 (initramfs)");
}

static void writable_mount_never_runs(void)
{
	image(0, 0); /* the "layer" is mounted read-write */
	CHECK_INT(firstboot_mkfs(&b, "/dev/loop1", "ext4", NULL), -ENOENT);
	CHECK_INT(tool_runs, 0);
	CHECK_STR(b.tools_ran, "");
}

static void symlink_out_of_layer_never_runs(void)
{
	image(ST_RDONLY, 0);
	CHECK_INT(firstboot_mkfs(&b, "/dev/loop1", "f2fs", NULL), -ENOENT);
	CHECK_INT(tool_runs, 0);
	CHECK(strstr(console_said(), "/dev/loop1: no mkfs for f2fs in this initramfs or in the image (/sbin/mkfs.f2fs or /usr/sbin/mkfs.f2fs)"));
}

static void mkfs_missing(void)
{
	initramfs(0);
	fake_sys_fail("fstatat", NULL, 0, -ENOENT);
	CHECK_INT(firstboot_mkfs(&b, "/dev/vdb", "f2fs", NULL), -ENOENT);
	CHECK_INT(fake_sys_count("fstatat /sbin/mkfs.f2fs"), 1);
	CHECK_INT(fake_sys_count("fstatat /usr/sbin/mkfs.f2fs"), 1);
	CHECK_INT(fake_sys_count("fstatat /sbin/mkfs.ext4"), 0);
	CHECK_INT(tool_runs, 0);
	CHECK(strstr(console_said(), "/dev/vdb: no mkfs for f2fs in this initramfs or in the image (/sbin/mkfs.f2fs or /usr/sbin/mkfs.f2fs); add one to the board's TOOLS="));
}

static void second_path_wins(void)
{
	initramfs(0);
	fake_sys_fail("fstatat", "/sbin/mkfs.ext4", 0, -ENOENT);
	CHECK_INT(firstboot_mkfs(&b, "/dev/vdb", "ext4", NULL), 0);
	CHECK_STR(tool_argv[0], "/usr/sbin/mkfs.ext4");
}

static void mkfs_fails(void)
{
	initramfs(1);
	CHECK_INT(firstboot_mkfs(&b, "/dev/vdb", "ext4", NULL), -EIO);
	CHECK_STR(tool_argv[0], "/sbin/mkfs.ext4");
	CHECK(strstr(console_said(), "formatting /dev/vdb as ext4 with /sbin/mkfs.ext4 failed"));
}

UNIT_SUITE(init_firstboot, { "no mkfs for the type: -ENOENT, and said", mkfs_missing },
	   { "the first formatter present wins", second_path_wins },
	   { "a failing formatter is said", mkfs_fails },
	   { "no mkfs in the initramfs: the read-only layer's own runs", image_mkfs_runs },
	   { "the initramfs' mkfs before the image's", initramfs_mkfs_first },
	   { "a tool on a writable mount never runs", writable_mount_never_runs },
	   { "a layer's symlink to the writable branch is never followed", symlink_out_of_layer_never_runs });
