// SPDX-License-Identifier: MIT
/* The order of a shutdown: a layer before its device, a device before its
 * medium, from what the status record says was set up; other mounts
 * deepest first. */
#include <errno.h>
#include <string.h>

#include "plan/shutdown_order.h"
#include "unit.h"

static int order_of(const char *record, struct shutdown_step *steps, size_t cap)
{
	static struct runstate rs;
	char why[128];

	if (runstate_parse(record, &rs, why, sizeof(why)) < 0)
		return -EINVAL;
	return shutdown_order(&rs, steps, cap);
}

static void check_step(const struct shutdown_step *s, int what, const char *path)
{
	CHECK_INT(s->what, what);
	CHECK_STR(s->path, path);
}

/* the reported stick: a verified image over a loop, then a plain one, the
 * persistence file on a loop; the rw branch goes before its loop */
static void a_persistence_file_before_its_loop_a_layer_before_its_device(void)
{
	struct shutdown_step s[SHUTDOWN_STEPS_MAX];
	int n = order_of("backend=overlay\n"
			 "lower1=LABEL=LIVE:/live/fs.squashfs /dev/loop0 squashfs /run/unionroot/lower/0\n"
			 "lower2=LABEL=LIVE:/live/extra.squashfs /dev/dm-0 squashfs /run/unionroot/lower/1\n"
			 "lower2_verity=verified sha256 root hash 0123\n"
			 "upper=LABEL=STICK:/persistence.img /dev/loop2 ext4 /run/unionroot/rw\n",
			 s, SHUTDOWN_STEPS_MAX);

	CHECK_INT(n, 6);
	check_step(&s[0], SHUTDOWN_UMOUNT, "/run/unionroot/rw");
	check_step(&s[1], SHUTDOWN_LOOP, "/dev/loop2");
	check_step(&s[2], SHUTDOWN_UMOUNT, "/run/unionroot/lower/1");
	check_step(&s[3], SHUTDOWN_DM, "unionroot-verity-2");
	check_step(&s[4], SHUTDOWN_UMOUNT, "/run/unionroot/lower/0");
	check_step(&s[5], SHUTDOWN_LOOP, "/dev/loop0");
}

/* disks stay attached; a tmpfs branch has no device; a saved branch goes
 * with the branch */
static void disks_and_tmpfs_have_no_device_step(void)
{
	struct shutdown_step s[SHUTDOWN_STEPS_MAX];
	int n = order_of("backend=overlay\n"
			 "lower1=/dev/vdb /dev/vdb squashfs /run/unionroot/lower/0\n"
			 "upper=tmpfs - tmpfs /run/unionroot/rw\n"
			 "saved=/run/unionroot/saved\n",
			 s, SHUTDOWN_STEPS_MAX);

	CHECK_INT(n, 3);
	check_step(&s[0], SHUTDOWN_UMOUNT, "/run/unionroot/rw");
	check_step(&s[1], SHUTDOWN_UMOUNT, "/run/unionroot/saved");
	check_step(&s[2], SHUTDOWN_UMOUNT, "/run/unionroot/lower/0");
}

/* a LUKS persistence file: the branch, the opened container, its loop */
static void a_luks_container_is_closed_before_its_loop(void)
{
	struct shutdown_step s[SHUTDOWN_STEPS_MAX];
	int n = order_of("backend=overlay\n"
			 "lower1=/dev/vdb /dev/vdb squashfs /run/unionroot/lower/0\n"
			 "upper=LABEL=STICK:/persistence.img /dev/dm-0 ext4 /run/unionroot/rw\n"
			 "upper_luks=/dev/loop1\n",
			 s, SHUTDOWN_STEPS_MAX);

	CHECK_INT(n, 4);
	check_step(&s[0], SHUTDOWN_UMOUNT, "/run/unionroot/rw");
	check_step(&s[1], SHUTDOWN_DM, "unionroot-crypt");
	check_step(&s[2], SHUTDOWN_LOOP, "/dev/loop1");
	check_step(&s[3], SHUTDOWN_UMOUNT, "/run/unionroot/lower/0");
}

static void a_read_only_boot_and_a_full_table(void)
{
	struct shutdown_step s[2];
	const char *ro = "backend=overlay\n"
			 "lower1=LABEL=LIVE /dev/sr0 iso9660 /run/unionroot/lower/0\n"
			 "upper=none\n";

	CHECK_INT(order_of(ro, s, 2), 1);
	check_step(&s[0], SHUTDOWN_UMOUNT, "/run/unionroot/lower/0");
	CHECK_INT(order_of("backend=overlay\n"
			   "lower1=/dev/vdb /dev/loop1 squashfs /run/unionroot/lower/0\n"
			   "upper=LABEL=data /dev/loop2 ext4 /run/unionroot/rw\n", s, 2), -ENOSPC);
}

static void mounts_go_deepest_first_the_last_mounted_first(void)
{
	/* as /proc/self/mountinfo lists them: a mount after the one it is on */
	const char *m[] = { "/oldroot", "/oldroot/dev", "/oldroot/run", "/oldroot/dev/pts",
			    "/oldroot/run/user/0", "/oldroot/mnt", "/oldroot/mnt" };
	const char *want[] = { "/oldroot/run/user/0", "/oldroot/dev/pts", "/oldroot/mnt", "/oldroot/mnt",
			       "/oldroot/run", "/oldroot/dev", "/oldroot" };

	shutdown_deepest_first(m, ARRAY_SIZE(m));
	for (size_t i = 0; i < ARRAY_SIZE(m); i++)
		CHECK_STR(m[i], want[i]);
}

static void of_two_mounts_at_one_path_the_upper_goes_first(void)
{
	static const char under[] = "/oldroot/mnt", over[] = "/oldroot/mnt";
	const char *m[] = { "/oldroot", under, over };

	shutdown_deepest_first(m, ARRAY_SIZE(m));
	CHECK(m[0] == over);
	CHECK(m[1] == under);
	CHECK_STR(m[2], "/oldroot");
}

UNIT_SUITE(shutdown_order,
	{ "a LUKS container is closed before its loop", a_luks_container_is_closed_before_its_loop },
	   { "a persistence file before its loop, a layer before its device", a_persistence_file_before_its_loop_a_layer_before_its_device },
	   { "disks and a tmpfs branch have no device step; the saved branch goes with it", disks_and_tmpfs_have_no_device_step },
	   { "a read-only boot, and a table too small", a_read_only_boot_and_a_full_table },
	   { "mounts go deepest first", mounts_go_deepest_first_the_last_mounted_first },
	   { "of two mounts at one path the last mounted goes first", of_two_mounts_at_one_path_the_upper_goes_first });
