// SPDX-License-Identifier: MIT
/* Tree deletion relative to directory fds (the trash, the initramfs, a
 * copy-up's stage), at any depth with a fixed stack and fixed fds. */
#include "lib/rmtree.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/resolve.h"
#include "lib/sbuf.h"
#include "lib/sys.h"

/*
 * A loop over a fixed stack of open directories, not recursion: PATH_MAX
 * bounds a path, not a tree, and a user's tree of any depth has to go with
 * the trash, or it survives a reset and is retried at every boot.
 *
 * A directory met on the last level is moved up, by one rename, to a fresh
 * name in the top directory, which a later pass there deletes like any other
 * entry. A rename needs no path and no depth; the tree stays inside the top
 * directory (after a power cut the next deletion finds it there); and the
 * kernel refuses it across mounts (EXDEV) and for a mount point (EBUSY).
 * Each move lifts a tree by RMTREE_OPEN_MAX - 1 levels, so the moves end.
 * Climbing back through ".." instead would trust a parent a concurrent
 * rename can change, and so reach outside the tree, which a descent from fds
 * by name never does.
 *
 * Each level keeps its own getdents buffer, so a pass goes on after the
 * subdirectory that interrupted it: about 33 KB of stack in all, where the
 * recursion took over 4 KB a level.
 */

#define MOVED_NAME  ".rmtree-deep.%lu"
#define MOVED_TRIES 1000

/* One open directory of the walk and where its reading stands. */
struct rm_level {
	int fd;
	int removed;	  /* entries this pass removed or moved up: read it again */
	int err;	  /* this pass's first failure */
	const char *name; /* the entry being emptied, one level down (in dir.buf) */
	struct sys_dir_cursor dir;
};

struct rm_walk {
	dev_t dev;
	const ino_t *skip; /* top level only: inodes to leave in place */
	unsigned nskip;
	unsigned depth;	     /* level[depth] is the one being read */
	unsigned long moved; /* names handed out to directories moved up */
	struct rm_level level[RMTREE_OPEN_MAX];
};

static void note(struct rm_level *l, int err)
{
	if (!l->err)
		l->err = err;
}

static void level_start(struct rm_level *l, int fd)
{
	l->fd = fd;
	l->removed = 0;
	l->err = 0;
	l->dir.len = l->dir.pos = 0;
}

/* Unlinking while reading a directory may hide entries from getdents: a
 * level is read again from the start until a pass removes nothing. */
static int level_again(struct rm_level *l)
{
	if (lseek(l->fd, 0, SEEK_SET) < 0)
		return -errno;
	level_start(l, l->fd);
	return 0;
}

/* The directory name in dir, opened without following a symlink, or -EXDEV
 * if it is a mount point. st_dev alone cannot tell a bind mount of the same
 * file system, which the kernel's RESOLVE_NO_XDEV refuses (before Linux 5.6
 * sys_openat2 compares st_dev, as the kernel cannot be asked). */
static int open_below(int dir, const char *name)
{
	return sys_openat2(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW,
			   RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

/* What a rename answers when its new name is in use: RENAME_NOREPLACE's
 * EEXIST, or a plain rename's refusal to replace a file or a full directory. */
static int name_taken(int rc)
{
	return rc == -EEXIST || rc == -ENOTEMPTY || rc == -ENOTDIR;
}

/* The directory name of l, one level too deep to open, goes to a fresh name
 * in the top directory, which is then read once more. */
static void move_up(struct rm_walk *w, struct rm_level *l, const char *name)
{
	struct rm_level *top = &w->level[0];
	char dst[32];
	int rc = -EEXIST;

	if (unlinkat(l->fd, name, AT_REMOVEDIR) == 0) { /* an empty one needs no move */
		l->removed++;
		return;
	}
	if (errno != ENOTEMPTY && errno != EEXIST) {
		note(l, -errno);
		return;
	}
	/* a name an interrupted deletion left is taken: the next one */
	for (unsigned i = 0; i < MOVED_TRIES && name_taken(rc); i++) {
		if (strfmt(dst, sizeof(dst), MOVED_NAME, w->moved++) < 0) {
			rc = -ENAMETOOLONG;
			break;
		}
		rc = sys_renameat2(l->fd, name, top->fd, dst, RENAME_NOREPLACE);
		/* a file system without RENAME_NOREPLACE (EINVAL): a plain
		 * rename fails on a file or a full directory and replaces only
		 * an empty one, under a name only this code gives */
		if (rc == -EINVAL)
			rc = sys_renameat(l->fd, name, top->fd, dst);
	}
	if (rc < 0) {
		note(l, rc);
		return;
	}
	l->removed++;
	top->removed++;
}

static void rm_entry(struct rm_walk *w, struct rm_level *l, const char *name)
{
	struct stat st;
	int fd;

	if (fstatat(l->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT) /* ENOENT: gone since getdents */
			note(l, -errno);
		return;
	}
	if (st.st_dev != w->dev) {
		note(l, -EXDEV);
		return;
	}
	for (unsigned i = 0; w->depth == 0 && i < w->nskip; i++)
		if (st.st_ino == w->skip[i])
			return;
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(l->fd, name, 0) == 0)
			l->removed++;
		else
			note(l, -errno);
		return;
	}
	if (w->depth + 1 == RMTREE_OPEN_MAX) {
		move_up(w, l, name);
		return;
	}
	fd = open_below(l->fd, name);
	if (fd < 0) {
		note(l, fd);
		return;
	}
	l->name = name;
	level_start(&w->level[++w->depth], fd);
}

/* The level being read is done with rc: its directory goes from its parent. */
static void level_done(struct rm_walk *w, int rc)
{
	struct rm_level *up = &w->level[w->depth - 1];

	close(w->level[w->depth--].fd);
	if (rc < 0)
		note(up, rc);
	else if (unlinkat(up->fd, up->name, AT_REMOVEDIR) == 0)
		up->removed++;
	else
		note(up, -errno);
}

static int rm_tree(int dir, dev_t dev, const ino_t *skip, unsigned nskip)
{
	struct rm_walk w = { .dev = dev, .skip = skip, .nskip = nskip };
	int rc;

	w.level[0].fd = dir;
	rc = level_again(&w.level[0]);
	if (rc < 0)
		return rc;
	for (;;) {
		struct rm_level *l = &w.level[w.depth];
		const char *name = NULL; /* set when rc > 0; gcc -flto cannot tell */

		rc = sys_dir_next(l->fd, &l->dir, &name);
		if (rc > 0) {
			rm_entry(&w, l, name);
			continue;
		}
		if (rc == 0 && l->removed) {
			rc = level_again(l);
			if (rc == 0)
				continue;
		}
		if (rc == 0)
			rc = l->err;
		if (w.depth == 0)
			return rc;
		level_done(&w, rc);
	}
}

int rmtree_contents(int dir, dev_t dev)
{
	return rm_tree(dir, dev, NULL, 0);
}

int rmtree_contents_except(int dir, dev_t dev, const ino_t *skip, unsigned nskip)
{
	return rm_tree(dir, dev, skip, nskip);
}

int rmtree_at(int dir, const char *name)
{
	struct stat top, st;
	int sub, rc;

	if (fstat(dir, &top) < 0)
		return -errno;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (st.st_dev != top.st_dev)
		return -EXDEV;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dir, name, 0) < 0 ? -errno : 0;
	/* the tree's own top takes what moves up: a deletion cut short leaves
	 * nothing beside name */
	sub = open_below(dir, name);
	if (sub < 0)
		return sub;
	rc = rm_tree(sub, top.st_dev, NULL, 0);
	close(sub);
	if (rc < 0)
		return rc;
	return unlinkat(dir, name, AT_REMOVEDIR) < 0 ? -errno : 0;
}
