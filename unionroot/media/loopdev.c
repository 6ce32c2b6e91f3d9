// SPDX-License-Identifier: MIT
/* Loop devices for image files inside media: read-only for the image layers,
 * read-write for a persistence file. */
#include "media/loopdev.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "lib/sbuf.h"

/* Another process may take the device LOOP_CTL_GET_FREE offered (EBUSY). */
#define ATTACH_TRIES 8

static int configure(int loop, int backing, int how)
{
	struct loop_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = (unsigned)backing;
	cfg.info.lo_flags = (how & LOOP_WRITABLE ? 0 : LO_FLAGS_READ_ONLY) |
			    (how & LOOP_WANT_DIO ? LO_FLAGS_DIRECT_IO : 0) |
			    (how & LOOP_AUTOCLEAR ? LO_FLAGS_AUTOCLEAR : 0);
	return ioctl(loop, LOOP_CONFIGURE, &cfg) < 0 ? -errno : 0;
}

/* Before 5.8: bind, then set the status; undo the bind when that fails. */
static int configure_legacy(int loop, int backing, int how)
{
	struct loop_info64 info;

	if (ioctl(loop, LOOP_SET_FD, backing) < 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	info.lo_flags = how & LOOP_AUTOCLEAR ? LO_FLAGS_AUTOCLEAR : 0;
	if (ioctl(loop, LOOP_SET_STATUS64, &info) < 0) {
		int err = -errno;

		IGNORE(ioctl(loop, LOOP_CLR_FD, 0)); /* best effort: the error above is what matters */
		return err;
	}
	if (how & LOOP_WANT_DIO)
		IGNORE(ioctl(loop, LOOP_SET_DIRECT_IO, 1UL)); /* buffered I/O is fine too */
	return 0;
}

static int attach_once(int ctl, int backing, int how, struct loopdev *out)
{
	int n = ioctl(ctl, LOOP_CTL_GET_FREE);
	int loop, rc;

	if (n < 0)
		return -errno;
	if (strfmt(out->path, sizeof(out->path), "/dev/loop%d", n) < 0)
		return -ENAMETOOLONG;
	/* the kernel makes a loop read-only when its own fd is (loop_configure) */
	loop = open(out->path, (how & LOOP_WRITABLE ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (loop < 0)
		return -errno;
	out->legacy = 0;
	rc = configure(loop, backing, how);
	/* a kernel that refuses direct I/O outright instead of falling back */
	if (rc == -EINVAL && (how & LOOP_WANT_DIO))
		rc = configure(loop, backing, how & ~LOOP_WANT_DIO);
	if (rc == -EINVAL || rc == -ENOTTY) {
		out->legacy = 1;
		rc = configure_legacy(loop, backing, how);
	}
	if (rc < 0) {
		close(loop);
		return rc;
	}
	{
		struct loop_info64 info;

		out->direct_io = ioctl(loop, LOOP_GET_STATUS64, &info) == 0 &&
				 (info.lo_flags & LO_FLAGS_DIRECT_IO);
	}
	return loop;
}

int loop_attach(int backing_fd, int how, struct loopdev *out)
{
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	int rc = -EBUSY;

	memset(out, 0, sizeof(*out));
	if (ctl < 0)
		return -errno;
	for (int i = 0; i < ATTACH_TRIES && rc == -EBUSY; i++)
		rc = attach_once(ctl, backing_fd, how, out);
	close(ctl);
	return rc;
}

int loop_detach(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -errno;
	rc = ioctl(fd, LOOP_CLR_FD, 0) < 0 ? -errno : 0;
	close(fd);
	return rc;
}

int loop_wait_free(const char *path, unsigned ms)
{
	for (unsigned t = 0;; t += 10) {
		struct loop_info64 info;
		struct timespec tick = { 0, 10 * 1000 * 1000 };
		int fd = open(path, O_RDONLY | O_CLOEXEC), bound;

		if (fd < 0)
			return 0; /* gone with it */
		bound = ioctl(fd, LOOP_GET_STATUS64, &info) == 0; /* ENXIO once free */
		close(fd);
		if (!bound)
			return 0;
		if (t >= ms)
			return -EBUSY;
		nanosleep(&tick, NULL);
	}
}
