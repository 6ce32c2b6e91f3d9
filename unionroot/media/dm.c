// SPDX-License-Identifier: MIT
/* device-mapper ioctls on /dev/mapper/control: DM_DEV_CREATE, then
 * DM_TABLE_LOAD into the inactive slot, then DM_DEV_SUSPEND without the
 * suspend flag, which resumes: the table goes live. */
#include "media/dm.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/sbuf.h"

#define DM_BUF 4096

static int control_open(void)
{
	int fd = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static void header(struct dm_ioctl *io, size_t size, const char *name, uint32_t flags)
{
	memset(io, 0, size);
	io->version[0] = DM_VERSION_MAJOR;
	io->version[1] = 0;
	io->version[2] = 0;
	io->data_size = (uint32_t)size;
	io->data_start = sizeof(*io);
	io->flags = flags;
	memcpy(io->name, name, strnlen(name, DM_NAME_LEN - 1));
}

static int call(int fd, unsigned long req, struct dm_ioctl *io)
{
	return ioctl(fd, req, io) < 0 ? -errno : 0;
}

static int load(int fd, const char *name, const char *type, uint64_t sectors, const char *params)
{
	static _Alignas(8) unsigned char buf[DM_BUF];
	struct dm_ioctl *io = (struct dm_ioctl *)buf;
	struct dm_target_spec *t = (struct dm_target_spec *)(buf + sizeof(*io));
	size_t plen = strlen(params);

	if (sizeof(*io) + sizeof(*t) + plen + 1 > sizeof(buf) || strlen(type) >= DM_MAX_TYPE_NAME)
		return -ENAMETOOLONG;
	header(io, sizeof(buf), name, DM_READONLY_FLAG);
	io->target_count = 1;
	t->sector_start = 0;
	t->length = sectors;
	memcpy(t->target_type, type, strlen(type));
	memcpy(buf + sizeof(*io) + sizeof(*t), params, plen + 1);
	return call(fd, DM_TABLE_LOAD, io);
}

int dm_create(const char *name, const char *type, uint64_t sectors, const char *params,
	      char *node, size_t cap)
{
	struct dm_ioctl io;
	int fd = control_open(), rc;

	if (fd < 0)
		return fd;
	if (strlen(name) >= DM_NAME_LEN) {
		close(fd);
		return -ENAMETOOLONG;
	}
	header(&io, sizeof(io), name, 0);
	rc = call(fd, DM_DEV_CREATE, &io);
	if (rc == 0)
		rc = load(fd, name, type, sectors, params);
	if (rc == 0) {
		header(&io, sizeof(io), name, 0);
		rc = call(fd, DM_DEV_SUSPEND, &io); /* no DM_SUSPEND_FLAG: resume */
	}
	if (rc == 0)
		rc = strfmt(node, cap, "/dev/dm-%u", minor(io.dev));
	if (rc < 0 && rc != -EEXIST) {
		header(&io, sizeof(io), name, 0);
		IGNORE(call(fd, DM_DEV_REMOVE, &io)); /* the first error is the one to tell */
	}
	close(fd);
	return rc;
}

int dm_remove(const char *name)
{
	struct dm_ioctl io;
	int fd = control_open(), rc;

	if (fd < 0)
		return fd;
	header(&io, sizeof(io), name, 0);
	rc = call(fd, DM_DEV_REMOVE, &io);
	close(fd);
	return rc;
}
