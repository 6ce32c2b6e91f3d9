// SPDX-License-Identifier: MIT
/* newc cpio entries: a 110-byte ASCII header, the NUL-terminated name padded
 * to 4 bytes, then the data padded to 4 bytes. */
#include "cpio.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CPIO_HDR_LEN 110

void cpio_init(struct cpio_writer *w, int fd, uint32_t mtime)
{
	w->fd = fd;
	w->ino = 0;
	w->mtime = mtime;
	w->off = 0;
}

static int put(struct cpio_writer *w, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(w->fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
		w->off += (uint64_t)n;
	}
	return 0;
}

static int pad4(struct cpio_writer *w)
{
	static const char zeros[4];

	return put(w, zeros, (4 - w->off % 4) % 4);
}

static int header(struct cpio_writer *w, const char *name, uint32_t ino, uint32_t mode,
		  uint64_t size, uint32_t rmajor, uint32_t rminor)
{
	char hdr[CPIO_HDR_LEN + 1];
	size_t namesize = strlen(name) + 1;
	uint32_t nlink = S_ISDIR(mode) ? 2 : 1;
	int n, ret;

	if (size > UINT32_MAX)
		return -EFBIG;
	if (namesize > 4096)
		return -ENAMETOOLONG;
	/* ino mode uid gid nlink mtime filesize devmajor devminor rdevmajor
	 * rdevminor namesize check */
	n = snprintf(hdr, sizeof(hdr), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		     ino, mode, 0u, 0u, nlink, w->mtime, (uint32_t)size, 0u, 0u, rmajor, rminor,
		     (uint32_t)namesize, 0u);
	if (n != CPIO_HDR_LEN)
		return -EINVAL;
	ret = put(w, hdr, CPIO_HDR_LEN);
	if (ret < 0)
		return ret;
	ret = put(w, name, namesize);
	if (ret < 0)
		return ret;
	return pad4(w);
}

int cpio_write_entry(struct cpio_writer *w, const char *name, uint32_t mode, uint32_t rmajor,
		     uint32_t rminor, const void *data, size_t len)
{
	int ret;

	if (!name[0] || name[0] == '/')
		return -EINVAL;
	ret = header(w, name, ++w->ino, mode, len, rmajor, rminor);
	if (ret < 0)
		return ret;
	if (len) {
		ret = put(w, data, len);
		if (ret < 0)
			return ret;
	}
	return pad4(w);
}

int cpio_write_file(struct cpio_writer *w, const char *name, uint32_t mode, int src, uint64_t size)
{
	char buf[65536];
	uint64_t left = size;
	int ret;

	if (!name[0] || name[0] == '/' || !S_ISREG(mode))
		return -EINVAL;
	ret = header(w, name, ++w->ino, mode, size, 0, 0);
	if (ret < 0)
		return ret;
	while (left) {
		size_t want = left < sizeof(buf) ? (size_t)left : sizeof(buf);
		ssize_t n = read(src, buf, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO; /* the file shrank under us */
		ret = put(w, buf, (size_t)n);
		if (ret < 0)
			return ret;
		left -= (uint64_t)n;
	}
	return pad4(w);
}

int cpio_write_trailer(struct cpio_writer *w)
{
	int ret = header(w, "TRAILER!!!", 0, 0, 0, 0, 0);

	if (ret < 0)
		return ret;
	return pad4(w);
}
