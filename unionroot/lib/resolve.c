// SPDX-License-Identifier: MIT
/* sys_openat2, and its fallback for kernels without openat2: each component
 * opened O_PATH|O_NOFOLLOW from the last directory, symlinks read and spliced
 * into the rest of the path, so that the RESOLVE_* scope is checked at every
 * step as the kernel does. */
#include "lib/resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WALK_FLAGS                                                                                 \
	(RESOLVE_BENEATH | RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |         \
	 RESOLVE_NO_XDEV)
#define WALK_LINKS_MAX 40 /* the kernel's MAXSYMLINKS */

struct walk {
	int root, cur;	/* the caller's dir (never closed), where the walk is */
	unsigned depth; /* directories below root: ".." at 0 leaves the scope */
	unsigned links; /* symlinks followed */
	int flags;	/* the caller's, for the last component */
	uint64_t resolve;
	int dev_known; /* RESOLVE_NO_XDEV: the file system the walk is on */
	dev_t dev;
	size_t at; /* the rest of the path starts at path[at] */
	char path[PATH_MAX];
};

static void walk_move(struct walk *w, int fd)
{
	if (w->cur != w->root)
		close(w->cur);
	w->cur = fd;
}

/* Moves to fd (closed on failure unless it is root) if it is on the walk's
 * file system, or on any when RESOLVE_NO_XDEV is not asked. */
static int walk_enter(struct walk *w, int fd)
{
	struct stat st;
	int rc = 0;

	if (w->resolve & RESOLVE_NO_XDEV) {
		if (fstatat(fd, "", &st, AT_EMPTY_PATH) < 0)
			rc = -errno;
		else if (w->dev_known && st.st_dev != w->dev)
			rc = -EXDEV;
		if (rc < 0) {
			if (fd != w->root)
				close(fd);
			return rc;
		}
		w->dev = st.st_dev;
		w->dev_known = 1;
	}
	walk_move(w, fd);
	return 0;
}

/* An absolute path or symlink: IN_ROOT restarts at the caller's dir,
 * BENEATH refuses, unscoped starts at "/". The path's own leading "/" may
 * change file systems under NO_XDEV (the kernel allows it); a link's not. */
static int walk_root(struct walk *w)
{
	int fd = w->root;

	if (w->resolve & RESOLVE_BENEATH)
		return -EXDEV;
	if (!(w->resolve & RESOLVE_IN_ROOT)) {
		fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
	}
	if (w->links == 0)
		w->dev_known = 0;
	w->depth = 0;
	return walk_enter(w, fd);
}

static int walk_dotdot(struct walk *w)
{
	int fd, rc;

	if (w->depth == 0 && (w->resolve & (RESOLVE_BENEATH | RESOLVE_IN_ROOT)))
		return w->resolve & RESOLVE_BENEATH ? -EXDEV : 0; /* IN_ROOT: "/.." is "/" */
	fd = openat(w->cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = walk_enter(w, fd);
	if (rc == 0 && w->depth)
		w->depth--;
	return rc;
}

/* Replaces the symlink (fd) and what came before it with its target. */
static int walk_link(struct walk *w, int fd)
{
	char target[PATH_MAX];
	size_t rest = strlen(w->path + w->at);
	struct statfs sfs;
	ssize_t n;

	if (w->resolve & RESOLVE_NO_SYMLINKS)
		return -ELOOP;
	/* Magic links (/proc/PID/fd/N, /proc/PID/exe) live on procfs only; the
	 * walk reads every link as text and never takes a magic jump, but a
	 * caller who asks for none gets none of procfs' links at all. */
	if ((w->resolve & RESOLVE_NO_MAGICLINKS) &&
	    (fstatfs(fd, &sfs) < 0 || sfs.f_type == PROC_SUPER_MAGIC))
		return -ELOOP;
	if (++w->links > WALK_LINKS_MAX)
		return -ELOOP;
	n = readlinkat(fd, "", target, sizeof(target));
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ENOENT;
	if ((size_t)n + rest >= sizeof(w->path))
		return -ENAMETOOLONG;
	/* the rest keeps its leading "/", or its trailing one ("link/") */
	memmove(w->path + n, w->path + w->at, rest + 1);
	memcpy(w->path, target, (size_t)n);
	w->at = 0;
	return 0;
}

/* One name below the current directory: 0 when the walk goes on (into a
 * directory, or along a symlink), 1 when it is the last component and
 * opens as is, or -errno. */
static int walk_name(struct walk *w, const char *name)
{
	int last = w->path[w->at] == '\0'; /* not even a "/" after it */
	int fd = openat(w->cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), rc;
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		rc = -errno;
	else if ((w->resolve & RESOLVE_NO_XDEV) && w->dev_known && st.st_dev != w->dev)
		rc = -EXDEV;
	else if (S_ISDIR(st.st_mode)) {
		walk_move(w, fd);
		w->depth++;
		return 0;
	} else if (S_ISLNK(st.st_mode) && !(last && (w->flags & O_NOFOLLOW)))
		rc = walk_link(w, fd);
	else
		rc = last ? 1 : -ENOTDIR;
	close(fd);
	return rc;
}

static int walk_final(struct walk *w, const char *name)
{
	int fd = openat(w->cur, name, w->flags | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int walk_run(struct walk *w)
{
	char name[NAME_MAX + 1];

	for (;;) {
		size_t len;
		int rc = 0;

		if (w->at == 0 && w->path[0] == '/')
			rc = walk_root(w);
		if (rc < 0)
			return rc;
		w->at += strspn(w->path + w->at, "/");
		if (w->path[w->at] == '\0')
			return walk_final(w, ".");
		len = strcspn(w->path + w->at, "/");
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(name, w->path + w->at, len);
		name[len] = '\0';
		w->at += len;
		if (strcmp(name, "..") == 0)
			rc = walk_dotdot(w);
		else if (strcmp(name, ".") != 0)
			rc = walk_name(w, name);
		if (rc == 1)
			return walk_final(w, name);
		if (rc < 0)
			return rc;
	}
}

int sys_openat2_walk(int dir, const char *path, int flags, uint64_t resolve)
{
	struct walk w = {.root = dir, .cur = dir, .flags = flags, .resolve = resolve};
	size_t len = strlen(path);
	int rc;

	if ((resolve & ~(uint64_t)WALK_FLAGS) || (flags & O_CREAT) ||
	    (flags & O_TMPFILE) == O_TMPFILE)
		return -ENOSYS;
	if ((resolve & RESOLVE_BENEATH) && (resolve & RESOLVE_IN_ROOT))
		return -EINVAL;
	if (len == 0)
		return -ENOENT;
	if (len >= sizeof(w.path))
		return -ENAMETOOLONG;
	memcpy(w.path, path, len + 1);
	rc = path[0] == '/' ? 0 : walk_enter(&w, dir); /* the start's file system */
	if (rc == 0)
		rc = walk_run(&w);
	walk_move(&w, dir);
	return rc;
}

/* The test builds' fake syscall edge (tests/unit/fake_sys.c) has its own
 * sys_openat2 and sys_open_beneath, over this file's walk: these yield. */
#ifdef UNIONROOT_TEST
#define FAKEABLE __attribute__((weak))
#else
#define FAKEABLE
#endif

FAKEABLE int sys_openat2(int dir, const char *path, int flags, uint64_t resolve)
{
	struct open_how how = { .flags = (uint64_t)(flags | O_CLOEXEC), .resolve = resolve };
	long fd = syscall(SYS_openat2, dir, path, &how, sizeof(how));

	if (fd >= 0)
		return (int)fd;
	return errno == ENOSYS ? sys_openat2_walk(dir, path, flags, resolve) : -errno;
}

FAKEABLE int sys_open_beneath(int dir, const char *path, int flags)
{
	while (*path == '/')
		path++;
	if (!*path)
		return -EINVAL;
	return sys_openat2(dir, path, flags,
			   RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV);
}
