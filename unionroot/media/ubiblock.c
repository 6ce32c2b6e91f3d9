// SPDX-License-Identifier: MIT
/* ubiblock: what a UBI volume holds (the probe table and the ubifs magic on
 * its first bytes) and the block device that carries a squashfs in it. */
#include "media/ubiblock.h"

#include <errno.h>
#include <fcntl.h>
#include <mtd/ubi-user.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lib/sbuf.h"
#include "lib/sys.h"
#include "media/ubi.h"
#include "probe/probe.h"

static int open_volume(const char *volume)
{
	char path[DEVNODE_MAX];
	int fd;

	if (strfmt(path, sizeof(path), "/dev/%s", volume) < 0)
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* /sys/class/ubi/VOLUME/data_bytes: what a static volume holds, all of a
 * dynamic one. */
static int data_bytes(const char *volume, uint64_t *out)
{
	char path[96], text[32];

	if (strfmt(path, sizeof(path), "/sys/class/ubi/%s/data_bytes", volume) < 0 ||
	    sys_read_file(path, text, sizeof(text)) < 0)
		return -ENOENT;
	return ubi_parse_u64(text, out);
}

int ubiblock_probe(const char *volume, char *type, size_t cap)
{
	struct probe_src src = { .size = 0 };
	struct probe_info info;
	uint8_t head[64];
	size_t want;
	int fd = open_volume(volume), rc;

	if (fd < 0)
		return fd;
	rc = probe_src_fd(&src, fd);
	/* bounded by the volume's data: 6.1's vol_cdev_read checks only for
	 * a read that starts exactly at the end, and one past it reads a
	 * PEB number out of range (an assertion, an I/O error) */
	if (rc == 0)
		rc = data_bytes(volume, &src.size);
	if (rc == 0)
		rc = probe_fs(&src, &info);
	/* a volume shorter than the head (or a fresh one) is judged on
	 * what could be read; 0xFF is what unmapped eraseblocks read as */
	memset(head, 0xff, sizeof(head));
	want = src.size < sizeof(head) ? (size_t)src.size : sizeof(head);
	if (rc >= 0 && want && pread(fd, head, want, 0) < 0)
		rc = -errno;
	close(fd);
	if (rc < 0)
		return rc;
	if (strcopy(type, cap, rc == 1 ? info.type : "") < 0)
		return -ENAMETOOLONG;
	return ubi_holds(head, sizeof(head), type);
}

int ubiblock_path(const char *volume, char *out, size_t cap)
{
	int dev, vol;

	if (ubi_entry(volume, &dev, &vol) != UBI_VOLUME)
		return -EINVAL;
	return strfmt(out, cap, "/dev/ubiblock%d_%d", dev, vol) < 0 ? -ENAMETOOLONG : 0;
}

int ubiblock_create(const char *volume)
{
	struct ubi_blkcreate_req req;
	int fd = open_volume(volume), rc;

	if (fd < 0)
		return fd;
	memset(&req, 0, sizeof(req));
	rc = ioctl(fd, UBI_IOCVOLCRBLK, &req) < 0 ? -errno : 0;
	close(fd);
	return rc == -EEXIST ? 0 : rc;
}

int ubi_sys_num(int dev, const char *file, uint64_t *out)
{
	char path[96], text[32];

	if (strfmt(path, sizeof(path), "/sys/class/ubi/ubi%d/%s", dev, file) < 0 ||
	    sys_read_file(path, text, sizeof(text)) < 0)
		return -ENOENT;
	return ubi_parse_u64(text, out);
}

struct ubi_walk {
	const char *want;       /* volume name, or NULL to look for a device */
	int want_mtd;           /* with want NULL: the device on this MTD */
	int dev, vol;           /* the answer */
};

static int ubi_walk_one(const char *name, unsigned char dtype, void *arg)
{
	struct ubi_walk *w = arg;
	char path[96], text[UBI_MAX_VOLUME_NAME + 2], vname[UBI_MAX_VOLUME_NAME + 1];
	uint64_t mtd;
	int dev = -1, vol = -1, kind = ubi_entry(name, &dev, &vol);

	(void)dtype;
	if (w->want && kind == UBI_VOLUME) {
		if (strfmt(path, sizeof(path), "/sys/class/ubi/%s/name", name) < 0 ||
		    sys_read_file(path, text, sizeof(text)) < 0 ||
		    ubi_parse_name(text, vname, sizeof(vname)) < 0 || strcmp(vname, w->want) != 0)
			return 0;
	} else if (!w->want && kind == UBI_DEVICE) {
		if (ubi_sys_num(dev, "mtd_num", &mtd) < 0 || mtd != (uint64_t)w->want_mtd)
			return 0;
	} else {
		return 0;
	}
	/* the lowest numbers win, whatever order the directory lists them in */
	if (w->dev < 0 || dev < w->dev || (dev == w->dev && vol < w->vol)) {
		w->dev = dev;
		w->vol = vol;
	}
	return 0;
}

int ubi_find(const char *name, int mtd, int *dev, int *vol)
{
	struct ubi_walk w = { name, mtd, -1, -1 };
	int dir = open("/sys/class/ubi", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (dir < 0)
		return -errno;
	rc = sys_dir_each(dir, ubi_walk_one, &w);
	close(dir);
	if (rc < 0)
		return rc;
	if (w.dev < 0)
		return -ENOENT;
	*dev = w.dev;
	if (vol)
		*vol = w.vol;
	return 0;
}
