// SPDX-License-Identifier: MIT
/* A file saved whole or not at all: written under a temporary name, synced,
 * renamed over the old one. Whatever was planted at either name (a symlink,
 * a FIFO, a directory with its tree) is removed first. */
#include "lib/filesave.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "lib/rmtree.h"
#include "lib/sbuf.h"
#include "lib/sys.h"

int sys_file_create(int dir, const char *name, mode_t mode)
{
	/* a stale or planted temp name (a symlink, a FIFO, a directory) would
	 * fail every save, or hang it: whatever is there goes first */
	int fd, rc = rmtree_at(dir, name);

	if (rc < 0)
		return rc;
	fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	return fd < 0 ? -errno : fd;
}

int sys_file_commit(int dir, const char *tmp, const char *name)
{
	if (sys_renameat(dir, tmp, dir, name) < 0) {
		/* a file cannot replace a directory planted at its name */
		int rc = errno == EISDIR ? rmtree_at(dir, name) : -errno;

		if (rc < 0)
			return rc;
		if (sys_renameat(dir, tmp, dir, name) < 0)
			return -errno;
	}
	return fsync(dir) < 0 ? -errno : 0;
}

int sys_write_file_atomic(int dir, const char *name, const char *buf, size_t len,
			  mode_t mode)
{
	char tmp[128];
	int fd, rc = 0;

	if (strfmt(tmp, sizeof(tmp), ".%s.new", name) < 0)
		return -ENAMETOOLONG;
	fd = sys_file_create(dir, tmp, mode);
	if (fd < 0)
		return fd;
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		buf += n;
		len -= (size_t)n;
	}
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc)
		rc = sys_file_commit(dir, tmp, name);
	if (rc)
		unlinkat(dir, tmp, 0);
	return rc;
}
