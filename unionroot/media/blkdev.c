// SPDX-License-Identifier: MIT
/* Block device discovery from sysfs, probed with our own superblock readers. */
#include "media/blkdev.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/sbuf.h"
#include "lib/strnum.h"
#include "lib/sys.h"
#include "lib/sysx.h"
#include "probe/parttab.h"

static int read_sys(const char *name, const char *attr, char *buf, size_t cap)
{
	char path[128];
	ssize_t n;

	if (strfmt(path, sizeof(path), "/sys/class/block/%s/%s", name, attr) < 0)
		return -ENAMETOOLONG;
	n = sys_read_file(path, buf, cap);
	if (n < 0)
		return (int)n;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static long long read_sys_num(const char *name, const char *attr)
{
	char buf[32];
	const char *p = buf;
	uint64_t v;

	if (read_sys(name, attr, buf, sizeof(buf)) < 0)
		return -1;
	return num_u64(&p, &v) ? (long long)v : -1;
}

/* Where /sys/class/block/NAME points (../../devices/...), into link. */
static int class_link(const char *name, char *link, size_t cap)
{
	char path[128];
	ssize_t n;

	if (strfmt(path, sizeof(path), "/sys/class/block/%s", name) < 0)
		return -ENAMETOOLONG;
	n = readlink(path, link, cap - 1);
	if (n < 0)
		return -errno;
	link[n] = '\0';
	return 0;
}

/* A USB disk reports removable=0 when its medium cannot be ejected, yet
 * the whole disk can be pulled: its sysfs path runs through a USB port. */
static int on_usb(const char *name)
{
	char link[256];

	if (class_link(name, link, sizeof(link)) < 0)
		return 0;
	return str_find(link, "/usb") != NULL;
}

/* The last component of the symlink /sys/DIR/LEAF into out. */
static int link_base(const char *dir, const char *leaf, char *out, size_t cap)
{
	char path[320], link[256];
	ssize_t n;

	if (strfmt(path, sizeof(path), "/sys/%s/%s", dir, leaf) < 0)
		return -ENAMETOOLONG;
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -errno;
	link[n] = '\0';
	return strcopy(out, cap, strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
}

/* The device below a device-mapper device: its one entry in slaves/. */
struct below {
	char name[32];
	unsigned n;
};

static int count_below(const char *name, unsigned char type, void *ctx)
{
	struct below *b = ctx;

	(void)type;
	if (b->n++ == 0)
		IGNORE(strcopy(b->name, sizeof(b->name), name)); /* a longer name matches no device */
	return 0;
}

int blkdev_driver(const char *name, char *out, size_t cap)
{
	char link[256], sub[32];
	struct below below = { "", 0 };
	char *dev, *cut;
	int rc = class_link(name, link, sizeof(link)), dir;

	if (rc < 0)
		return rc;
	dev = str_find(link, "devices/");
	while (dev && (cut = strrchr(dev, '/')) != NULL) {
		*cut = '\0';
		if (link_base(dev, "subsystem", sub, sizeof(sub)) == 0 &&
		    (strcmp(sub, "scsi") == 0 || strcmp(sub, "mmc") == 0))
			continue;
		if (link_base(dev, "driver/module", out, cap) == 0)
			return 0;
	}
	/* a device-mapper device (a verified layer) needed what the one
	 * device below it needed; with a hash tree on a device of its own
	 * there are two, and which is the data is not in sysfs. dm-verity
	 * over dm-verity is not made, so one level. */
	if (strncmp(name, "dm-", 3) != 0 ||
	    strfmt(link, sizeof(link), "/sys/class/block/%s/slaves", name) < 0)
		return -ENOENT;
	dir = open(link, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -ENOENT;
	rc = sys_dir_each(dir, count_below, &below);
	close(dir);
	if (rc < 0 || below.n != 1 || strncmp(below.name, "dm-", 3) == 0)
		return -ENOENT;
	return blkdev_driver(below.name, out, cap);
}

/* The whole disk a partition belongs to: the parent directory in sysfs. */
static int parent_name(const char *name, char *out, size_t cap)
{
	char link[256];
	char *last, *prev;
	int rc = class_link(name, link, sizeof(link));

	if (rc < 0)
		return rc;
	last = strrchr(link, '/');
	if (!last)
		return -EINVAL;
	*last = '\0';
	prev = strrchr(link, '/');
	return strcopy(out, cap, prev ? prev + 1 : link);
}

/* The sector size the kernel reads disk's table in: a GPT on a
 * 4096-byte-sector disk (UFS) is at byte 4096. */
static unsigned sector_size(const char *disk)
{
	long long ss = read_sys_num(disk, "queue/logical_block_size");

	return ss < 512 || ss > 4096 ? 512 : (unsigned)ss; /* unknown: what nearly every disk has */
}

/* PARTUUID and PARTLABEL of partition d from its disk's table, found by
 * its number alone: a disk of 40 partitions (a phone's eMMC) holds no list. */
static void probe_partition(struct blkdev *d)
{
	struct part_entry part;
	struct probe_src src;
	char path[DEVNODE_MAX];
	int fd;

	if (parent_name(d->name, d->disk, sizeof(d->disk)) < 0 ||
	    strfmt(path, sizeof(path), "/dev/%s", d->disk) < 0) {
		d->disk[0] = '\0';
		return;
	}
	fd = sys_open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	if (probe_src_fd(&src, fd) == 0 &&
	    parttab_find(&src, sector_size(d->disk), (unsigned)d->partnum, &part) == 1) {
		IGNORE(strcopy(d->partuuid, sizeof(d->partuuid), part.partuuid)); /* same sizes */
		IGNORE(strcopy(d->partlabel, sizeof(d->partlabel), part.partlabel));
	}
	sys_close(fd);
}

/* A whole disk that holds a file system and a partition table too: a
 * hybrid ISO written to a stick with dd, where partition 1 starts at sector
 * 0 over the ISO (media_reach decides how the file system is reached). The
 * table is read from the disk itself, not from the partitions the kernel
 * has shown so far: they may appear after the disk. A table read on
 * 8 entries is enough: a partition at sector 0 is one of an MBR's 4. */
static void read_table(struct blkdev *d, const struct probe_src *src)
{
	struct part_entry parts[8];
	unsigned ss = sector_size(d->name);
	int n = parttab_read(src, ss, parts, ARRAY_SIZE(parts));

	if (n == -ENOBUFS)
		n = (int)ARRAY_SIZE(parts);
	if (n <= 0)
		return;
	d->parts = (unsigned)n;
	for (int i = 0; i < n; i++)
		if (parts[i].start_lba == 0 && parts[i].nr_lba) {
			d->zero_part = parts[i].num;
			d->zero_part_bytes = parts[i].nr_lba * ss;
			return;
		}
}

static void probe_one(struct blkdev *d)
{
	struct probe_src src;
	int fd = sys_open(d->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		d->probed = fd;
		return;
	}
	d->probed = probe_src_fd(&src, fd);
	if (d->probed == 0)
		d->probed = probe_fs(&src, &d->info);
	if (d->probed == 1 && d->partnum == 0)
		read_table(d, &src);
	sys_close(fd);
	if (d->partnum > 0)
		probe_partition(d);
}

static struct blkdev *seen(struct blkdev_table *t, const char *name)
{
	for (unsigned i = 0; i < t->n; i++)
		if (strcmp(t->d[i].name, name) == 0)
			return &t->d[i];
	return NULL;
}

struct refresh_ctx {
	struct blkdev_table *t;
	int added;
};

int blkdev_ignored(const char *name)
{
	static const char prefixes[][5] = { "loop", "ram", "fd" };

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

static int add_one(const char *name, unsigned char type, void *arg)
{
	struct refresh_ctx *rc = arg;
	struct blkdev_table *t = rc->t;
	struct blkdev *d;
	char devno[32];
	long long sectors;

	(void)type;
	if (blkdev_ignored(name))
		return 0;
	d = seen(t, name);
	if (d) {
		/* a CD-ROM or USB stick may fail its first reads while it settles */
		if (d->probed < 0)
			probe_one(d);
		return 0;
	}
	if (t->n >= BLKDEV_MAX) {
		t->overflow = 1;
		return 0;
	}
	sectors = read_sys_num(name, "size");
	if (sectors <= 0)
		return 0; /* empty drive or unused loop: look again next time */
	d = &t->d[t->n];
	memset(d, 0, sizeof(*d));
	if (strcopy(d->name, sizeof(d->name), name) < 0 ||
	    strfmt(d->path, sizeof(d->path), "/dev/%s", name) < 0)
		return 0;
	if (read_sys(name, "dev", devno, sizeof(devno)) == 0) {
		const char *p = devno;
		uint64_t maj, min;

		if (num_u64(&p, &maj) && *p++ == ':' && num_u64(&p, &min))
			d->dev = makedev(maj, min);
	}
	d->size = (uint64_t)sectors * 512u;
	d->partnum = (int)read_sys_num(name, "partition");
	if (d->partnum < 0)
		d->partnum = 0;
	d->removable = read_sys_num(name, d->partnum ? "../removable" : "removable") == 1 ||
		       on_usb(name);
	/* what /dev/mapper/NAME names (a host's crypttab, LVM), without udev's link */
	if (strncmp(name, "dm-", 3) == 0 && read_sys(name, "dm/name", d->dmname, sizeof(d->dmname)) < 0)
		d->dmname[0] = '\0';
	probe_one(d);
	t->n++;
	rc->added++;
	return 0;
}

int blkdev_refresh(struct blkdev_table *t)
{
	struct refresh_ctx rc = { t, 0 };
	int dir = sys_open("/sys/class/block", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err;

	if (dir < 0)
		return dir;
	err = sys_dir_each(dir, add_one, &rc);
	sys_close(dir);
	return err < 0 ? err : rc.added;
}

/* Does LVM's /dev/VG/LV name the device-mapper device NAME? LVM names it
 * VG-LV, each '-' inside VG and LV doubled (a VG "my-vg" with LV "root" is
 * "my--vg-root"); udev's link is not needed, nor followed. */
static int lvm_path_names(const char *path, const char *name)
{
	const char *p = path + 5;
	int parts = 1, len = 0;

	if (strncmp(path, "/dev/", 5) != 0 || strncmp(p, "mapper/", 7) == 0 || *p == '/')
		return 0;
	for (; *p; p++) {
		if (*p == '/') {
			if (parts++ > 1 || len == 0 || !p[1] || *name++ != '-')
				return 0;
			len = 0;
			continue;
		}
		len++;
		if (*name++ != *p || (*p == '-' && *name++ != '-'))
			return 0;
	}
	return parts == 2 && *name == '\0';
}

int blkdev_match(const struct blkdev *d, const struct spec *s)
{
	switch (s->kind) {
	case SPEC_DEV:
		return strcmp(d->path, s->value) == 0 ||
		       (d->dmname[0] && strncmp(s->value, "/dev/mapper/", 12) == 0 &&
			strcmp(s->value + 12, d->dmname) == 0) ||
		       (d->dmname[0] && lvm_path_names(s->value, d->dmname));
	case SPEC_LABEL:
		return d->probed == 1 && d->info.label[0] && strcmp(d->info.label, s->value) == 0;
	case SPEC_UUID:
		return d->probed == 1 && d->info.uuid[0] && strcasecmp(d->info.uuid, s->value) == 0;
	case SPEC_PARTUUID:
		return d->partuuid[0] && strcasecmp(d->partuuid, s->value) == 0;
	case SPEC_PARTLABEL:
		return d->partlabel[0] && strcmp(d->partlabel, s->value) == 0;
	default:
		return 0;
	}
}
