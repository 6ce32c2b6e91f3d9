// SPDX-License-Identifier: MIT
/* init/firstboot.c's formatter choice on a fake initramfs: the first mkfs
 * there wins, none is named as missing, a failed run is said. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../init/boot.h"
#include "fake_sys.h"
#include "init_log.h"
#include "init_tool.h"
#include "unit.h"

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
}

static void mkfs_missing(void)
{
	initramfs(0);
	fake_sys_fail("fstatat", NULL, 0, -ENOENT);
	CHECK_INT(firstboot_mkfs("/dev/vdb", "f2fs"), -ENOENT);
	CHECK_INT(fake_sys_count("fstatat /sbin/mkfs.f2fs"), 1);
	CHECK_INT(fake_sys_count("fstatat /usr/sbin/mkfs.f2fs"), 1);
	CHECK_INT(fake_sys_count("fstatat /sbin/mkfs.ext4"), 0);
	CHECK_INT(tool_runs, 0);
	CHECK(strstr(console_said(), "/dev/vdb: this initramfs carries no mkfs for f2fs (add it to the board's TOOLS=)"));
}

static void second_path_wins(void)
{
	initramfs(0);
	fake_sys_fail("fstatat", "/sbin/mkfs.ext4", 0, -ENOENT);
	CHECK_INT(firstboot_mkfs("/dev/vdb", "ext4"), 0);
	CHECK_STR(tool_argv[0], "/usr/sbin/mkfs.ext4");
}

static void mkfs_fails(void)
{
	initramfs(1);
	CHECK_INT(firstboot_mkfs("/dev/vdb", "ext4"), -EIO);
	CHECK_STR(tool_argv[0], "/sbin/mkfs.ext4");
	CHECK(strstr(console_said(), "formatting /dev/vdb as ext4 with /sbin/mkfs.ext4 failed"));
}

UNIT_SUITE(init_firstboot, { "no mkfs for the type: -ENOENT, and said", mkfs_missing },
	   { "the first formatter present wins", second_path_wins },
	   { "a failing formatter is said", mkfs_fails });
