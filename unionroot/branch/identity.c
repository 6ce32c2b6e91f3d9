// SPDX-License-Identifier: MIT
/* Layer identities: size, mkfs time and a hash of both ends, no tree walk. */
#include "branch/identity.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/bytes.h"
#include "lib/chash.h"
#include "lib/sbuf.h"
#include "lib/sysx.h"

/* The mkfs time a superblock records, 0 when this format has none we know. */
static uint32_t mkfs_time(const unsigned char *buf, size_t len)
{
	/* squashfs 4: magic "hsqs" at 0, mkfs_time at 8 */
	if (len >= 12 && memcmp(buf, "hsqs", 4) == 0)
		return get_le32(buf + 8);
	/* ext2/3/4: superblock at 1024, magic 0xEF53 at +56, s_mkfs_time at +0x108 */
	if (len >= 1024 + 0x108 + 4 && get_le16(buf + 1024 + 56) == 0xEF53)
		return get_le32(buf + 1024 + 0x108);
	return 0;
}

int identity_bytes(const unsigned char *head, size_t hlen, const unsigned char *tail,
		   size_t tlen, uint64_t size, char *out, size_t cap)
{
	struct chash h;

	chash_init(&h);
	chash_add(&h, head, hlen);
	chash_add(&h, tail, tlen);
	return strfmt(out, cap, "size=%llu,mkfs=%u,hash=%016llx", (unsigned long long)size,
		      mkfs_time(head, hlen), (unsigned long long)chash_final(&h));
}

static ssize_t read_at(int fd, unsigned char *buf, size_t len, uint64_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int identity_fd(int fd, char *out, size_t cap)
{
	static unsigned char head[IDENTITY_SPAN], tail[IDENTITY_SPAN];
	uint64_t size;
	struct stat st;
	ssize_t hn, tn;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &size) < 0)
			return -errno;
	} else if (S_ISREG(st.st_mode)) {
		size = (uint64_t)st.st_size;
	} else {
		return -EINVAL;
	}
	hn = read_at(fd, head, size < IDENTITY_SPAN ? (size_t)size : IDENTITY_SPAN, 0);
	if (hn < 0)
		return (int)hn;
	tn = size > IDENTITY_SPAN ? read_at(fd, tail, IDENTITY_SPAN, size - IDENTITY_SPAN) : 0;
	if (tn < 0)
		return (int)tn;
	return identity_bytes(head, (size_t)hn, tail, (size_t)tn, size, out, cap);
}

int identity_path(const char *path, char *out, size_t cap)
{
	/* O_NONBLOCK: a FIFO would block the open; identity_fd refuses it */
	int fd = sys_open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), rc;

	if (fd < 0)
		return fd;
	rc = identity_fd(fd, out, cap);
	sys_close(fd);
	return rc;
}
