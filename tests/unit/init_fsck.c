// SPDX-License-Identifier: MIT
/* init/fsck.c with the checker's presence faked and its run answered here:
 * absent, failing, out of time, finding what it cannot repair. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "../../init/boot.h"
#include "fake_sys.h"
#include "init_log.h"
#include "init_tool.h"
#include "unit.h"

static struct boot b;
/* a board whose initramfs carries e2fsck, at the scratch root */
static void board(int answer)
{
	char path[512];

	fake_sys_reset(unit_tmpdir());
	console_catch();
	snprintf(path, sizeof(path), "%s/sbin", unit_tmpdir());
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sbin/e2fsck", unit_tmpdir());
	close(open(path, O_WRONLY | O_CREAT, 0755));
	snprintf(b.upper_dev, sizeof(b.upper_dev), "/dev/vdb");
	b.cfg.fsck = 1;
	b.fsck_ms = 0;
	tool_forget(answer);
	tool_took_ms = 1500;
}

static void clean(void)
{
	char why[160] = "";

	board(0);
	CHECK_INT(fsck_branch(&b, "ext4", why, sizeof(why)), 0);
	CHECK_INT(fake_sys_count("fstatat /sbin/e2fsck"), 1);
	CHECK_INT(tool_runs, 1);
	CHECK_STR(tool_argv[1], "-p");
	CHECK_STR(tool_argv[2], "/dev/vdb");
	CHECK(b.fsck_ms >= 1500);
	CHECK(strstr(console_said(), "writable branch /dev/vdb: /sbin/e2fsck: clean, 15"));
}

static void absent(void)
{
	char why[160] = "";

	board(0);
	fake_sys_fail("fstatat", "/sbin/e2fsck", 0, -ENOENT);
	CHECK_INT(fsck_branch(&b, "ext4", why, sizeof(why)), 0);
	CHECK_INT(tool_runs, 0);
	CHECK_INT(b.fsck_ms, 0);
	CHECK(strstr(console_said(), "writable branch /dev/vdb: no /sbin/e2fsck in this initramfs or in the image; not checked"));
}

static void cannot_run(void)
{
	char why[160] = "";

	board(-ENOEXEC);
	CHECK_INT(fsck_branch(&b, "ext4", why, sizeof(why)), 0);
	CHECK(strstr(console_said(), "/sbin/e2fsck could not check it (Exec format error 0); mounting it unchecked"));
}

static void times_out(void)
{
	char why[160] = "";

	board(-ETIMEDOUT);
	CHECK_INT(fsck_branch(&b, "ext3", why, sizeof(why)), 0);
	CHECK(strstr(console_said(), "/sbin/e2fsck did not finish in 300 s; mounting it unchecked"));
}

static void errors_left(void)
{
	char why[160] = "";

	board(4);
	CHECK_INT(fsck_branch(&b, "ext4", why, sizeof(why)), -EUCLEAN);
	CHECK_STR(why, "writable branch /dev/vdb (ext4): /sbin/e2fsck found errors it cannot repair (exit 4)");
}

static void other_type_unchecked(void)
{
	char why[160] = "";

	board(0);
	CHECK_INT(fsck_branch(&b, "vfat", why, sizeof(why)), 0);
	CHECK_INT(tool_runs, 0);
	CHECK_STR(fake_sys_log(), "");
}

UNIT_SUITE(init_fsck, { "a clean branch is checked with e2fsck -p", clean },
	   { "no checker in the initramfs or the image: not checked", absent },
	   { "a checker that cannot run: mounted unchecked", cannot_run },
	   { "a checker out of time: mounted unchecked", times_out },
	   { "errors it cannot repair refuse the branch", errors_left },
	   { "a type without a checker is not checked", other_type_unchecked });
