// SPDX-License-Identifier: MIT
/* Media rules and opening paths inside a medium: which devices `auto` looks
 * at, which media carry images, whether union.toram fits, and that a path
 * never leaves its medium (symlinks out, "..", absolute links). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/config.h"
#include "lib/lines.h"
#include "lib/resolve.h"
#include "lib/sys.h"
#include "media/media.h"
#include "unit.h"

static struct blkdev dev(const char *type, int removable, int probed)
{
	struct blkdev d;

	memset(&d, 0, sizeof(d));
	snprintf(d.info.type, sizeof(d.info.type), "%s", type);
	d.removable = removable;
	d.probed = probed;
	return d;
}

static void auto_scans_mountable_media_only(void)
{
	struct blkdev cd = dev("iso9660", 1, 1), disk = dev("ext4", 0, 1);
	struct blkdev luks = dev("crypto_LUKS", 1, 1), unknown = dev("", 1, 0);
	struct blkdev swap = dev("swap", 0, 1);

	luks.info.encrypted = 1;
	CHECK(media_scan_candidate(&cd, SCAN_ALL));
	CHECK(media_scan_candidate(&disk, SCAN_ALL));
	CHECK(!media_scan_candidate(&luks, SCAN_ALL));
	CHECK(!media_scan_candidate(&unknown, SCAN_ALL));
	CHECK(!media_scan_candidate(&swap, SCAN_ALL));
}

static void scan_removable_skips_fixed_disks(void)
{
	struct blkdev cd = dev("iso9660", 1, 1), disk = dev("ext4", 0, 1);

	CHECK(media_scan_candidate(&cd, SCAN_REMOVABLE));
	CHECK(!media_scan_candidate(&disk, SCAN_REMOVABLE));
}

static void live_media_carry_images_layers_do_not(void)
{
	CHECK(media_holds_images("iso9660"));
	CHECK(media_holds_images("vfat"));
	CHECK(media_holds_images("exfat")); /* Ventoy's sticks */
	CHECK(!media_holds_images("squashfs"));
	CHECK(!media_holds_images("ext4"));
	CHECK(!media_holds_images(""));
}

static void vfat_media_mount_with_utf8(void)
{
	CHECK_STR(media_mount_options("vfat"), "iocharset=utf8");
	CHECK_STR(media_mount_options("exfat"), "iocharset=utf8");
	CHECK(media_mount_options("iso9660") == NULL);
}

static void meminfo_gives_memavailable_in_bytes(void)
{
	uint64_t b = 0;

	CHECK_INT(proc_kb("MemTotal:  466360 kB\nMemFree:  428724 kB\n"
				    "MemAvailable:     431216 kB\nBuffers: 1 kB\n", "MemAvailable", &b), 0);
	CHECK_INT(b, 431216ull * 1024);
	CHECK_INT(proc_kb("MemTotal: 1 kB\n", "MemAvailable", &b), -ENOENT);
	CHECK_INT(proc_kb("MemAvailable:\n", "MemAvailable", &b), -ENOENT);
	CHECK_INT(proc_kb("", "MemAvailable", &b), -ENOENT);
	/* absurd digits stop at 19, no overflow trap under UBSan */
	CHECK_INT(proc_kb("MemAvailable: 99999999999999999999999999 kB\n", "MemAvailable", &b), 0);
	/* a key is a whole name before its colon */
	CHECK_INT(proc_kb("VmHWMx: 5 kB\nVmHWM:\t  1500 kB\n", "VmHWM", &b), 0);
	CHECK_INT(b, 1500ull * 1024);
	CHECK_INT(proc_kb("VmHWM", "VmHWM", &b), -ENOENT);
}

static void toram_keeps_headroom(void)
{
	uint64_t need = 0;

	CHECK_INT(toram_fits(100ull << 20, 200ull << 20, &need), 0);
	CHECK_INT(need, (100ull << 20) + TORAM_HEADROOM);
	CHECK_INT(toram_fits(150ull << 20, 200ull << 20, &need), -ENOMEM);
	CHECK_INT(toram_fits(UINT64_MAX, UINT64_MAX, &need), 0);
	CHECK_INT(need, UINT64_MAX);
	CHECK_INT(toram_fits(1, 0, &need), -ENOMEM);
}

static int medium(void)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/outside", unit_tmpdir());
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/m", unit_tmpdir());
	mkdir(path, 0755);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	mkdirat(fd, "live", 0755);
	close(openat(fd, "live/fs.squashfs", O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	IGNORE(symlinkat("fs.squashfs", fd, "live/inside"));
	IGNORE(symlinkat("../../outside", fd, "live/dotdot"));
	IGNORE(symlinkat("/etc/passwd", fd, "live/absolute"));
	IGNORE(symlinkat("..", fd, "up"));
	return fd;
}

static void paths_open_beneath_the_medium(void)
{
	int m = medium(), fd;

	CHECK(m >= 0);
	fd = sys_open_beneath(m, "/live/fs.squashfs", O_RDONLY);
	CHECK(fd >= 0);
	close(fd);
	fd = sys_open_beneath(m, "live//fs.squashfs", O_RDONLY);
	CHECK(fd >= 0);
	close(fd);
	fd = sys_open_beneath(m, "/live/inside", O_RDONLY);
	CHECK(fd >= 0); /* a link that stays inside is fine */
	close(fd);
	CHECK_INT(sys_open_beneath(m, "/live/missing", O_RDONLY), -ENOENT);
	CHECK_INT(sys_open_beneath(m, "/", O_RDONLY), -EINVAL);
	close(m);
}

static void paths_never_leave_the_medium(void)
{
	int m = medium();

	CHECK(m >= 0);
	CHECK_INT(sys_open_beneath(m, "/live/dotdot", O_RDONLY), -EXDEV);
	CHECK_INT(sys_open_beneath(m, "/live/absolute", O_RDONLY), -EXDEV);
	CHECK_INT(sys_open_beneath(m, "/../outside", O_RDONLY), -EXDEV);
	CHECK_INT(sys_open_beneath(m, "/up/outside", O_RDONLY), -EXDEV);
	close(m);
}

/* A table of labelled devices: name, removable, label; the label "" none. */
static void table(struct blkdev_table *t, const char *const (*rows)[3], unsigned n)
{
	memset(t, 0, sizeof(*t));
	for (unsigned i = 0; i < n; i++) {
		struct blkdev *d = &t->d[t->n++];

		*d = dev("ext4", rows[i][1][0] == 'r', 1);
		snprintf(d->name, sizeof(d->name), "%s", rows[i][0]);
		snprintf(d->path, sizeof(d->path), "/dev/%s", rows[i][0]);
		snprintf(d->info.label, sizeof(d->info.label), "%s", rows[i][2]);
		snprintf(d->partlabel, sizeof(d->partlabel), "%s", rows[i][2]);
	}
}

static struct spec spec_of(const char *text)
{
	struct spec s;
	char why[CFG_ERR_MAX];

	if (spec_parse(text, &s, why, sizeof(why)) < 0)
		unit_failf(__FILE__, __LINE__, "\"%s\": %s", text, why);
	return s;
}

/* A stick that copies a fixed disk's label never takes its role: the fixed
 * disk wins whatever the names; a stick alone is awaited until the deadline
 * unless asked for, then a layer takes it and a writable branch refuses it. */
static void a_fixed_device_wins_over_a_removable_one(void)
{
	static const char *const both[][3] = { { "sda", "r", "data" }, { "sdb", "f", "data" },
					       { "sdc", "f", "other" } };
	static const char *const stick[][3] = { { "sda", "r", "data" }, { "vda", "f", "root" } };
	static struct blkdev_table t;
	struct spec data = spec_of("LABEL=data"), part = spec_of("PARTLABEL=data");
	struct spec file = spec_of("LABEL=data:/persistence.img");
	struct media_choice c;

	table(&t, both, 3);
	for (int upper = 0; upper < 2; upper++) {
		media_choose(&t, &data, upper, 0, 0, &c);
		CHECK_INT(c.verdict, MEDIA_TAKE);
		CHECK_STR(c.d->name, "sdb");
		CHECK_INT(c.matched, 2);
		CHECK_INT(c.removable, 1);
		media_choose(&t, &part, upper, 1, 1, &c);
		CHECK_STR(c.d->name, "sdb");
	}
	table(&t, stick, 2);
	media_choose(&t, &data, 1, 0, 0, &c);
	CHECK_INT(c.verdict, MEDIA_WAIT);
	CHECK_STR(c.d->name, "sda");
	media_choose(&t, &data, 1, 0, 1, &c);
	CHECK_INT(c.verdict, MEDIA_REFUSE);
	media_choose(&t, &data, 0, 0, 0, &c);
	CHECK_INT(c.verdict, MEDIA_WAIT);
	media_choose(&t, &data, 0, 0, 1, &c);
	CHECK_INT(c.verdict, MEDIA_TAKE);
	media_choose(&t, &data, 1, 1, 0, &c);
	CHECK_INT(c.verdict, MEDIA_TAKE);
	CHECK_STR(c.d->name, "sda");
	/* nothing matches: wait, and nothing to take at the deadline */
	part = spec_of("PARTLABEL=none");
	media_choose(&t, &part, 1, 0, 1, &c);
	CHECK(c.verdict == MEDIA_WAIT && !c.d && !c.matched);
	/* who asks for removable media */
	CHECK(!media_asks_removable(SCAN_ALL, &data, 0));
	CHECK(media_asks_removable(SCAN_REMOVABLE, &data, 0));
	CHECK(media_asks_removable(SCAN_ALL, &file, 0));
	CHECK(media_asks_removable(SCAN_ALL, &data, 1));
	data = spec_of("auto");
	CHECK(media_asks_removable(SCAN_ALL, &data, 0));
}

/* A hybrid ISO written to a stick with dd, a partition added after it:
 * sda holds the ISO whole and its table says partition 1 starts at sector
 * 0 over it; sda2 is the writable branch. */
static void dd_stick(struct blkdev_table *t)
{
	static const char *const rows[][3] = { { "sda", "r", "LIVE" }, { "sda1", "r", "LIVE" },
					       { "sda2", "r", "casper-rw" } };

	table(t, rows, 3);
	for (unsigned i = 0; i < 2; i++) {
		snprintf(t->d[i].info.type, sizeof(t->d[i].info.type), "iso9660");
		t->d[i].info.bytes = 2u << 20;
	}
	t->d[0].parts = 2;
	t->d[0].zero_part = 1;
	t->d[0].zero_part_bytes = 2u << 20;
	for (unsigned i = 1; i < 3; i++) {
		t->d[i].partnum = (int)i;
		snprintf(t->d[i].disk, sizeof(t->d[i].disk), "sda");
	}
}

/* the ISO on the whole disk is reached through partition 1, which starts
 * where it starts and covers it; never by a mount of the disk */
static void a_dd_stick_is_reached_through_its_partition_at_sector_0(void)
{
	static struct blkdev_table t;
	const struct blkdev *use;
	struct spec live = spec_of("LABEL=LIVE"), whole = spec_of("/dev/sda");
	struct media_choice c;

	dd_stick(&t);
	CHECK_INT(media_reach(&t, &t.d[0], &use), REACH_PARTITION);
	CHECK_STR(use->name, "sda1");
	/* partitions, and disks without a table, are mounted as they are */
	CHECK_INT(media_reach(&t, &t.d[1], &use), REACH_DEVICE);
	CHECK(use == &t.d[1]);
	CHECK_INT(media_reach(&t, &t.d[2], &use), REACH_DEVICE);
	t.d[0].parts = 0;
	CHECK_INT(media_reach(&t, &t.d[0], &use), REACH_DEVICE);
	/* LABEL= of the ISO matches the disk and its partition: the partition
	 * plays the role alone */
	dd_stick(&t);
	media_choose(&t, &live, 0, 1, 0, &c);
	CHECK_INT(c.verdict, MEDIA_TAKE);
	CHECK_STR(c.d->name, "sda1");
	CHECK_INT(c.matched, 1);
	/* the disk named by its node: the boot reaches it through sda1 */
	media_choose(&t, &whole, 0, 1, 0, &c);
	CHECK_STR(c.d->name, "sda");
	CHECK_INT(media_reach(&t, c.d, &use), REACH_PARTITION);
}

/* no partition holds the ISO from its start, or the one that does is
 * shorter than it, or the kernel has not shown it yet: a read-only loop
 * device over the disk */
static void a_whole_disk_no_partition_holds_is_read_through_a_loop(void)
{
	static struct blkdev_table t;
	const struct blkdev *use;

	dd_stick(&t);
	t.d[0].zero_part = 0; /* an ISO with a GPT whose partitions start later */
	CHECK_INT(media_reach(&t, &t.d[0], &use), REACH_LOOP);
	CHECK(use == &t.d[0]);
	dd_stick(&t);
	t.d[0].zero_part_bytes = (2u << 20) - 512;
	CHECK_INT(media_reach(&t, &t.d[0], &use), REACH_LOOP);
	dd_stick(&t);
	t.n = 1; /* sda1 and sda2 not shown yet */
	CHECK_INT(media_reach(&t, &t.d[0], &use), REACH_LOOP);
	dd_stick(&t);
	snprintf(t.d[1].disk, sizeof(t.d[1].disk), "sdb"); /* another disk's partition 1 */
	CHECK_INT(media_reach(&t, &t.d[0], &use), REACH_LOOP);
	/* a file system of unknown size: the partition from sector 0 serves */
	dd_stick(&t);
	t.d[0].info.bytes = 0;
	CHECK_INT(media_reach(&t, &t.d[0], &use), REACH_PARTITION);
}

/* auto looks at fixed devices first, then removable ones, each by name */
static void auto_looks_at_fixed_devices_first(void)
{
	static const char *const rows[][3] = { { "sr0", "r", "" }, { "sdb", "f", "" }, { "sda", "r", "" },
					       { "nvme0n1", "f", "" } };
	static struct blkdev_table t;
	unsigned idx[BLKDEV_MAX];

	table(&t, rows, 4);
	CHECK_INT(media_order(&t, idx), 4);
	CHECK_STR(t.d[idx[0]].name, "nvme0n1");
	CHECK_STR(t.d[idx[1]].name, "sdb");
	CHECK_STR(t.d[idx[2]].name, "sda");
	CHECK_STR(t.d[idx[3]].name, "sr0");
}

/* /dev/mapper/NAME is the device-mapper device of that name, whatever its
 * dm-N, with or without udev's link; never another device's path. */
static void a_mapper_path_names_the_dm_device(void)
{
	static struct blkdev d;
	struct spec s;
	char err[128];

	memset(&d, 0, sizeof(d));
	snprintf(d.name, sizeof(d.name), "dm-3");
	snprintf(d.path, sizeof(d.path), "/dev/dm-3");
	snprintf(d.dmname, sizeof(d.dmname), "data");
	CHECK_INT(spec_parse("/dev/mapper/data", &s, err, sizeof(err)), 0);
	CHECK_INT(blkdev_match(&d, &s), 1);
	CHECK_INT(spec_parse("/dev/dm-3", &s, err, sizeof(err)), 0);
	CHECK_INT(blkdev_match(&d, &s), 1);
	CHECK_INT(spec_parse("/dev/mapper/dat", &s, err, sizeof(err)), 0);
	CHECK_INT(blkdev_match(&d, &s), 0);
	CHECK_INT(spec_parse("/dev/mapper/data2", &s, err, sizeof(err)), 0);
	CHECK_INT(blkdev_match(&d, &s), 0);
	d.dmname[0] = '\0'; /* not a dm device: /dev/mapper/ names nothing */
	CHECK_INT(spec_parse("/dev/mapper/", &s, err, sizeof(err)), 0);
	CHECK_INT(blkdev_match(&d, &s), 0);
}

/* LVM's /dev/VG/LV names the dm device VG-LV ('-' inside each doubled),
 * without udev's link; nothing else of that shape does. */
static void an_lvm_path_names_its_dm_device(void)
{
	static struct blkdev d;
	static const char *const yes[][2] = {
		{ "/dev/vg0/data", "vg0-data" },
		{ "/dev/my-vg/root", "my--vg-root" },
		{ "/dev/vg/a-b-c", "vg-a--b--c" },
	};
	static const char *const no[][2] = {
		{ "/dev/vg0/data", "vg0-dat" },     /* a shorter name */
		{ "/dev/vg0/data", "vg0-data2" },   /* a longer one */
		{ "/dev/my-vg/root", "my-vg-root" }, /* '-' not doubled: VG "my", LV "vg-root" */
		{ "/dev/vg0", "vg0" },              /* no LV */
		{ "/dev/vg0/", "vg0-" },
		{ "/dev//data", "-data" },          /* no VG */
		{ "/dev/a/b/c", "a-b-c" },          /* a third part */
		{ "/dev/mapper/x", "mapper-x" },    /* /dev/mapper/ means the dm name itself */
		{ "/sys/vg0/data", "vg0-data" },
	};
	struct spec s;
	char err[128];

	memset(&d, 0, sizeof(d));
	snprintf(d.name, sizeof(d.name), "dm-1");
	snprintf(d.path, sizeof(d.path), "/dev/dm-1");
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		snprintf(d.dmname, sizeof(d.dmname), "%s", yes[i][1]);
		CHECK_INT(spec_parse(yes[i][0], &s, err, sizeof(err)), 0);
		CHECK_INT(blkdev_match(&d, &s), 1);
	}
	for (size_t i = 0; i < ARRAY_SIZE(no); i++) {
		snprintf(d.dmname, sizeof(d.dmname), "%s", no[i][1]);
		if (spec_parse(no[i][0], &s, err, sizeof(err)) == 0)
			CHECK_INT(blkdev_match(&d, &s), 0);
	}
	d.dmname[0] = '\0'; /* not a dm device: no LVM path names it */
	CHECK_INT(spec_parse("/dev/vg0/data", &s, err, sizeof(err)), 0);
	CHECK_INT(blkdev_match(&d, &s), 0);
}

/* The kernel names never scanned: unionroot's own loops, ram disks, and
 * floppy drives (a size without a disk, and every read an I/O error). */
static void loops_ram_disks_and_floppies_are_never_scanned(void)
{
	static const char *const skipped[] = { "loop0", "loop12", "ram0", "fd0", "fd1" };
	static const char *const scanned[] = { "sda", "sda1", "sr0", "vda", "nvme0n1", "mmcblk0p2",
						"dm-0", "mtdblock3", "ubiblock0_1", "xvda", "hda" };

	for (size_t i = 0; i < ARRAY_SIZE(skipped); i++)
		CHECK_INT(blkdev_ignored(skipped[i]), 1);
	for (size_t i = 0; i < ARRAY_SIZE(scanned); i++)
		CHECK_INT(blkdev_ignored(scanned[i]), 0);
}

UNIT_SUITE(media,
	   { "loops, ram disks and floppies are never scanned", loops_ram_disks_and_floppies_are_never_scanned },
	   { "an LVM /dev/VG/LV path names its dm device", an_lvm_path_names_its_dm_device },
	   { "a /dev/mapper path names the dm device", a_mapper_path_names_the_dm_device },
	   { "auto scans mountable media only", auto_scans_mountable_media_only },
	   { "union.scan=removable skips fixed disks", scan_removable_skips_fixed_disks },
	   { "live media carry images, layers do not", live_media_carry_images_layers_do_not },
	   { "vfat and exfat media mount with utf8", vfat_media_mount_with_utf8 },
	   { "MemAvailable in bytes", meminfo_gives_memavailable_in_bytes },
	   { "union.toram keeps headroom", toram_keeps_headroom },
	   { "paths open beneath the medium", paths_open_beneath_the_medium },
	   { "paths never leave the medium", paths_never_leave_the_medium },
	   { "a fixed device wins over a removable one", a_fixed_device_wins_over_a_removable_one },
	   { "auto looks at fixed devices first", auto_looks_at_fixed_devices_first },
	   { "a dd'd stick is reached through its partition at sector 0",
	     a_dd_stick_is_reached_through_its_partition_at_sector_0 },
	   { "a whole disk no partition holds is read through a loop",
	     a_whole_disk_no_partition_holds_is_read_through_a_loop });
