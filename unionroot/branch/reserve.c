// SPDX-License-Identifier: MIT
/* The reserve file of the writable branch: made when there is room, given up
 * when the branch is full (reserve.h). */
#include "branch/reserve.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/filesave.h"
#include "lib/rmtree.h"
#include "lib/sys.h"

#define TEMP_NAME "." RESERVE_NAME ".new"
#define MIB (1024u * 1024u)

int fs_used_percent(const struct statfs *vfs)
{
	if (!vfs->f_blocks)
		return -1;
	return (int)(100 - 100ull * vfs->f_bfree / vfs->f_blocks);
}

uint64_t reserve_size(uint64_t fs_bytes)
{
	uint64_t size = 256u * 1024u + fs_bytes / 100;

	return size > 16u * MIB ? 16u * MIB : size;
}

/* Bytes compression cannot shrink (jffs2 and ubifs compress): xorshift64. */
static void fill(unsigned char *buf, size_t len, uint64_t *x)
{
	for (size_t i = 0; i < len; i += 8) {
		*x ^= *x << 13;
		*x ^= *x >> 7;
		*x ^= *x << 17;
		for (size_t j = 0; j < 8 && i + j < len; j++)
			buf[i + j] = (unsigned char)(*x >> (8 * j));
	}
}

static int write_all(int fd, uint64_t size)
{
	unsigned char buf[16384];
	uint64_t x = 0x9e3779b97f4a7c15ull;

	while (size) {
		size_t len = size < sizeof(buf) ? (size_t)size : sizeof(buf);
		ssize_t n;

		fill(buf, len, &x);
		n = write(fd, buf, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		size -= (uint64_t)n;
	}
	return fsync(fd) < 0 ? -errno : 0;
}

int reserve_make(int state, uint64_t size)
{
	struct stat st;
	int fd, rc;

	if (fstatat(state, RESERVE_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISREG(st.st_mode))
			return 0;
		/* anything else planted there holds no room: the commit replaces it */
	} else if (errno != ENOENT) {
		return -errno;
	}
	fd = sys_file_create(state, TEMP_NAME, 0600);
	if (fd < 0)
		return fd;
	rc = write_all(fd, size);
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc)
		rc = sys_file_commit(state, TEMP_NAME, RESERVE_NAME);
	if (rc) {
		unlinkat(state, TEMP_NAME, 0);
		return rc;
	}
	return 1;
}

int reserve_release(int state)
{
	struct stat st;
	/* a temp file a power cut left is room too */
	int rc = rmtree_at(state, TEMP_NAME);

	if (rc < 0)
		return rc;
	if (fstatat(state, RESERVE_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	rc = rmtree_at(state, RESERVE_NAME);
	if (rc < 0)
		return rc;
	return fsync(state) < 0 ? -errno : 1;
}
