// SPDX-License-Identifier: MIT
/* The boot-time copy-up step: the image's identity, the facts, the decision,
 * the run. A boot with the same image reads one header line and returns. */
#include "copyup.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "branch.h"
#include "chash.h"
#include "sbuf.h"
#include "sys.h"

#define ID_HEAD (64u * 1024)
#define ID_TAIL (1024u * 1024)

static unsigned char idbuf[64 * 1024];

static int hash_range(int fd, uint64_t from, uint64_t len, struct chash *h)
{
	while (len) {
		size_t want = len < sizeof(idbuf) ? (size_t)len : sizeof(idbuf);
		ssize_t n = pread(fd, idbuf, want, (off_t)from);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		chash_add(h, idbuf, (size_t)n);
		from += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return 0;
}

int copyup_image_id(const char *path, char *id, size_t cap)
{
	struct chash h;
	struct stat st;
	uint64_t size = 0, tail;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		goto out;
	}
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &size) < 0) {
			rc = -errno;
			goto out;
		}
	} else if (S_ISREG(st.st_mode)) {
		size = (uint64_t)st.st_size;
	} else {
		rc = -EINVAL;
		goto out;
	}
	chash_init(&h);
	chash_add(&h, &size, sizeof(size));
	rc = hash_range(fd, 0, size < ID_HEAD ? size : ID_HEAD, &h);
	tail = size < ID_TAIL ? size : ID_TAIL;
	if (rc == 0)
		rc = hash_range(fd, size - tail, tail, &h);
	if (rc == 0)
		rc = strfmt(id, cap, "%" PRIu64 "-%016" PRIx64, size, chash_final(&h));
out:
	close(fd);
	return rc;
}

static int stop(const char *name, unsigned char type, void *arg)
{
	(void)name;
	(void)type;
	*(int *)arg = 0;
	return -ECANCELED;
}

static int dir_empty(int rw, const char *name)
{
	int fd = openat(rw, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), empty = 1;

	if (fd < 0)
		return errno == ENOENT;
	IGNORE(sys_dir_each(fd, stop, &empty)); /* stops with -ECANCELED at the first entry */
	close(fd);
	return empty;
}

int copyup_apply(int img, int rw, const char *image_id, int reset, int upgrade,
		 struct copyup_result *res, const char **done)
{
	struct copyup_facts f = { 0, 0, 0, reset, upgrade };
	char old[MF_ID_MAX];
	int state, rc, action;

	memset(res, 0, sizeof(*res));
	state = openat(rw, BRANCH_STATE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (state < 0)
		return -errno;
	rc = manifest_read_id(state, MF_NAME, old, sizeof(old));
	close(state);
	f.manifest = rc == 0 ? 1 : rc == -ENOENT ? 0 : -1;
	f.same_image = rc == 0 && strcmp(old, image_id) == 0;
	f.upper_empty = dir_empty(rw, BRANCH_UPPER);
	action = copyup_choose_action(&f, done);
	if (action == CU_NOTHING)
		return 0;
	return copyup_run(img, rw, action, image_id, res);
}
