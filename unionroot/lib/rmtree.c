// SPDX-License-Identifier: MIT
/* Tree deletion relative to directory fds (the trash, the initramfs). */
#include "rmtree.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys.h"

struct rm_ctx {
	int dir;
	dev_t dev;
	int depth;
	int removed;
	int err;
	const ino_t *skip; /* top level only: inodes to leave in place */
	unsigned nskip;
};

static int rm_contents(int dir, dev_t dev, int depth, const ino_t *skip, unsigned nskip);

static void note(struct rm_ctx *c, int err)
{
	if (!c->err)
		c->err = err;
}

static int rm_entry(const char *name, unsigned char type, void *arg)
{
	struct rm_ctx *c = arg;
	struct stat st;

	(void)type;
	if (fstatat(c->dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (st.st_dev != c->dev) {
		note(c, -EXDEV);
		return 0;
	}
	for (unsigned i = 0; i < c->nskip; i++)
		if (st.st_ino == c->skip[i])
			return 0;
	if (S_ISDIR(st.st_mode)) {
		int sub = openat(c->dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int rc;

		if (sub < 0) {
			note(c, -errno);
			return 0;
		}
		rc = rm_contents(sub, c->dev, c->depth + 1, NULL, 0);
		close(sub);
		if (rc < 0) {
			note(c, rc);
			return 0;
		}
		if (unlinkat(c->dir, name, AT_REMOVEDIR) == 0)
			c->removed++;
		else
			note(c, -errno);
		return 0;
	}
	if (unlinkat(c->dir, name, 0) == 0)
		c->removed++;
	else
		note(c, -errno);
	return 0;
}

static int rm_contents(int dir, dev_t dev, int depth, const ino_t *skip, unsigned nskip)
{
	struct rm_ctx c = { dir, dev, depth, 0, 0, skip, nskip };
	int rc;

	if (depth > RMTREE_DEPTH_MAX)
		return -ELOOP;
	/* unlinking while reading a directory may hide entries from getdents:
	 * read again until a pass removes nothing */
	do {
		c.removed = 0;
		c.err = 0;
		if (lseek(dir, 0, SEEK_SET) < 0)
			return -errno;
		rc = sys_dir_each(dir, rm_entry, &c);
		if (rc < 0)
			return rc;
	} while (c.removed);
	return c.err;
}

int rmtree_contents(int dir, dev_t dev)
{
	return rm_contents(dir, dev, 0, NULL, 0);
}

int rmtree_contents_except(int dir, dev_t dev, const ino_t *skip, unsigned nskip)
{
	return rm_contents(dir, dev, 0, skip, nskip);
}

int rmtree_at(int dir, const char *name)
{
	struct rm_ctx c = { dir, 0, 0, 0, 0, NULL, 0 };
	struct stat st;

	if (fstat(dir, &st) < 0)
		return -errno;
	c.dev = st.st_dev;
	IGNORE(rm_entry(name, 0, &c)); /* always 0: the outcome is in c.err */
	return c.err;
}
