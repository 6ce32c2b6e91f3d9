// SPDX-License-Identifier: MIT
/* init/room.c on a fake branch: a full one gives its reserve up before the
 * boot writes, a roomy one gets one, and a failure in between is said. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../init/boot.h"
#include "fake_sys.h"
#include "init_log.h"
#include "unit.h"

static struct boot b;

/* A branch in the scratch directory with a reserve file; its fd. */
static int branch(int with_reserve)
{
	char path[512];
	int fd;

	fake_sys_reset(unit_tmpdir());
	console_catch();
	snprintf(b.upper_dev, sizeof(b.upper_dev), "/dev/vdb");
	b.cfg.warnfull = 90;
	snprintf(path, sizeof(path), "%s/rw", unit_tmpdir());
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/rw/.unionroot", unit_tmpdir());
	mkdir(path, 0755);
	if (with_reserve) {
		snprintf(path, sizeof(path), "%s/rw/.unionroot/reserve", unit_tmpdir());
		close(open(path, O_WRONLY | O_CREAT, 0600));
	}
	snprintf(path, sizeof(path), "%s/rw", unit_tmpdir());
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd;
}

/* 100 MiB in 4 KiB blocks, free as given */
static void branch_free(unsigned long long free_blocks)
{
	struct statfs sfs = { .f_blocks = 25600, .f_bfree = free_blocks, .f_frsize = 4096,
			      .f_files = 1000, .f_ffree = 500 };

	fake_sys_statfs(&sfs);
}

static int reserve_there(void)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/rw/.unionroot/reserve", unit_tmpdir());
	return access(path, F_OK) == 0;
}

/* a full branch: the reserve goes, and the boot says how much it freed */
static void full_gives_reserve_up(void)
{
	int rw = branch(1);

	branch_free(10); /* 40 KiB of 100 MiB */
	room_at_mount(&b, rw);
	close(rw);
	CHECK_INT(fake_sys_count("openat .unionroot"), 1);
	CHECK(!reserve_there());
	CHECK(strstr(console_said(), "writable branch /dev/vdb is full: gave up its reserve of 1280 KiB"));
}

/* room enough: nothing is opened, the reserve stays */
static void roomy_keeps_reserve(void)
{
	int rw = branch(1);

	branch_free(20000);
	room_at_mount(&b, rw);
	close(rw);
	CHECK_INT(fake_sys_count("openat .unionroot"), 0);
	CHECK(reserve_there());
	CHECK_STR(console_said(), "");
}

/* the state directory cannot be opened (EIO): a new branch's answer, no word */
static void full_state_unreadable(void)
{
	int rw = branch(1);

	branch_free(10);
	fake_sys_fail("openat", ".unionroot", 0, -EIO);
	room_at_mount(&b, rw);
	close(rw);
	CHECK_INT(fake_sys_count("openat .unionroot"), 1);
	CHECK(reserve_there());
	CHECK_STR(console_said(), "");
}

/* after the boot: past union.warnfull it warns; 4 MB free still hold two
 * reserves, so one is set aside */
static void after_boot_warns_full(void)
{
	const char *said;
	int rw = branch(0);

	branch_free(1000); /* 97% used */
	room_after_boot(&b, rw);
	close(rw);
	said = console_said();
	CHECK(strstr(said, "writable branch /dev/vdb is 97% full (union.warnfull=90)"));
	CHECK(strstr(said, "writable branch /dev/vdb: set 1280 KiB aside"));
	CHECK_INT(fake_sys_count("openat .unionroot"), 1);
	CHECK(reserve_there());
}

/* too little room for two reserves: none is made, nothing is opened */
static void after_boot_no_room(void)
{
	int rw = branch(0);

	branch_free(500); /* 2 MB: less than two reserves */
	room_after_boot(&b, rw);
	close(rw);
	CHECK_INT(fake_sys_count("openat .unionroot"), 0);
	CHECK(!reserve_there());
}

/* fstatfs fails: room_used_percent cannot tell */
static void statfs_fails(void)
{
	int rw = branch(0);

	fake_sys_fail("fstatfs", NULL, 1, -EIO);
	CHECK_INT(room_used_percent(rw), -1);
	branch_free(1000);
	CHECK_INT(room_used_percent(rw), 97);
	close(rw);
}

UNIT_SUITE(init_room, { "a full branch gives its reserve up", full_gives_reserve_up },
	   { "a roomy branch keeps its reserve", roomy_keeps_reserve },
	   { "an unreadable state directory is left alone", full_state_unreadable },
	   { "after the boot a full branch is warned about", after_boot_warns_full },
	   { "no reserve where two would not fit", after_boot_no_room },
	   { "a failed statfs leaves the fullness unknown", statfs_fails });
