// SPDX-License-Identifier: MIT
/* Tree deletion on a scratch directory: a tree of any depth goes wholly,
 * with few directories open, and a symlink in it is removed, never followed. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/rmtree.h"
#include "unit.h"

static int tmp_open(void)
{
	return open(unit_tmpdir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int exists_at(int dir, const char *path)
{
	struct stat st;

	return fstatat(dir, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static int touch_at(int dir, const char *name)
{
	int fd = openat(dir, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	return fd < 0 ? -1 : close(fd);
}

/* Entries in dir, "." and ".." aside; -1 when it cannot be read. */
static int entries(int dir)
{
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

/* Makes name in dir and depth - 1 directories "d" below it, one inside the
 * other, each holding a file; the path is far longer than PATH_MAX, so each
 * step is relative. The deepest directory's fd, or -1. */
static int chain(int dir, const char *name, unsigned depth)
{
	int fd = -1;

	for (unsigned i = 0; i < depth; i++) {
		const char *sub = i ? "d" : name;
		int next;

		if (mkdirat(dir, sub, 0755) < 0)
			return -1;
		next = openat(dir, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
		fd = dir = next;
		if (fd < 0 || touch_at(fd, "f") < 0)
			return -1;
	}
	return fd;
}

/* A failed deletion leaves a tree the runner's nftw cannot walk (paths past
 * PATH_MAX): GNU rm's fts can. */
static void scrub(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		execlp("rm", "rm", "-rf", "--", unit_tmpdir(), (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* rmtree_contents empties dir, which is closed; a failure is scrubbed so
 * that the next case starts clean */
static void empties(int dir)
{
	struct stat st;
	int rc;

	CHECK_INT(fstat(dir, &st), 0);
	rc = rmtree_contents(dir, st.st_dev);
	if (rc != 0 || entries(dir) != 0)
		scrub();
	CHECK_INT(rc, 0);
	CHECK_INT(entries(dir), 0);
	close(dir);
}

static void a_tree_300_levels_deep_goes_wholly(void)
{
	int dir = tmp_open(), deep;

	CHECK(dir >= 0);
	deep = chain(dir, "home", 300);
	CHECK(deep >= 0);
	close(deep);
	CHECK_INT(touch_at(dir, "top-file"), 0);
	empties(dir);
}

static void a_tree_5000_levels_deep_goes_by_its_name(void)
{
	int dir = tmp_open(), deep, rc;

	CHECK(dir >= 0);
	deep = chain(dir, "tree", 5000);
	CHECK(deep >= 0);
	close(deep);
	CHECK_INT(touch_at(dir, "beside"), 0);
	rc = rmtree_at(dir, "tree");
	if (rc != 0 || exists_at(dir, "tree"))
		scrub();
	CHECK_INT(rc, 0);
	CHECK(!exists_at(dir, "tree"));
	/* what moved up on the way stayed inside the tree and went with it */
	CHECK(exists_at(dir, "beside"));
	CHECK_INT(entries(dir), 1);
	close(dir);
}

/* directories fanning out where the walk holds the most open: many move up */
static void a_wide_directory_far_down_goes_too(void)
{
	char name[16];
	int dir = tmp_open(), deep;

	CHECK(dir >= 0);
	deep = chain(dir, "wide", RMTREE_OPEN_MAX + 3);
	CHECK(deep >= 0);
	for (int i = 0; i < 200; i++) {
		int sub;

		snprintf(name, sizeof(name), "s%d", i);
		CHECK_INT(mkdirat(deep, name, 0755), 0);
		sub = openat(deep, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		CHECK(sub >= 0);
		CHECK_INT(mkdirat(sub, "inner", 0755), 0);
		CHECK_INT(touch_at(sub, "inner/f"), 0);
		close(sub);
	}
	close(deep);
	empties(dir);
}

/* a power cut mid-deletion leaves moved-up directories in the trash under
 * the names the next deletion hands out a second time */
static void a_deletion_cut_short_is_finished_by_the_next(void)
{
	int dir = tmp_open(), deep;

	CHECK(dir >= 0);
	CHECK_INT(mkdirat(dir, ".rmtree-deep.0", 0755), 0);
	CHECK_INT(touch_at(dir, ".rmtree-deep.0/f"), 0);
	CHECK_INT(touch_at(dir, ".rmtree-deep.1"), 0);
	CHECK_INT(mkdirat(dir, ".rmtree-deep.2", 0755), 0);
	deep = chain(dir, "old", 3 * RMTREE_OPEN_MAX);
	CHECK(deep >= 0);
	close(deep);
	empties(dir);
}

/* symlinks deep down, to a directory outside and to "..": each is removed as
 * a link, and what they point at stays */
static void a_symlink_far_down_is_removed_never_followed(void)
{
	char target[512];
	struct stat st;
	int dir = tmp_open(), deep, rc;

	CHECK(dir >= 0);
	CHECK_INT(mkdirat(dir, "outside", 0755), 0);
	CHECK_INT(touch_at(dir, "outside/keep"), 0);
	CHECK_INT(mkdirat(dir, "trash", 0755), 0);
	snprintf(target, sizeof(target), "%s/outside", unit_tmpdir());
	deep = chain(dir, "trash/t", RMTREE_OPEN_MAX + 5);
	CHECK(deep >= 0);
	CHECK_INT(symlinkat(target, deep, "abs"), 0);
	CHECK_INT(symlinkat("../../../../../../..", deep, "rel"), 0);
	close(deep);
	deep = chain(dir, "trash/u", RMTREE_OPEN_MAX - 1);
	CHECK(deep >= 0);
	CHECK_INT(symlinkat(target, deep, "abs"), 0);
	CHECK_INT(symlinkat("..", deep, "up"), 0);
	close(deep);
	rc = rmtree_at(dir, "trash");
	if (rc != 0 || exists_at(dir, "trash"))
		scrub();
	CHECK_INT(rc, 0);
	CHECK(!exists_at(dir, "trash"));
	CHECK_INT(fstatat(dir, "outside/keep", &st, AT_SYMLINK_NOFOLLOW), 0);
	CHECK(S_ISREG(st.st_mode));
	close(dir);
}

/* The fd limit below which exactly n fds are free. */
static rlim_t limit_leaving(int n)
{
	int fd = 0;

	for (; n > 0; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			n--;
	return (rlim_t)fd;
}

/* PID 1's fds are few: besides the one it is given, the walk opens at most
 * RMTREE_OPEN_MAX - 1 directories at any depth (one more where the kernel
 * has no openat2: lib/resolve.c's walk, which stands in for it, holds the
 * directory it is in while it opens the next) */
static void a_deep_deletion_holds_few_directories_open(void)
{
	struct rlimit old, tight;
	struct stat st;
	int dir = tmp_open(), deep, rc;

	CHECK(dir >= 0);
	deep = chain(dir, "deep", 200);
	CHECK(deep >= 0);
	close(deep);
	CHECK_INT(fstat(dir, &st), 0);
	CHECK_INT(getrlimit(RLIMIT_NOFILE, &old), 0);
	tight = old;
	tight.rlim_cur = limit_leaving(RMTREE_OPEN_MAX - 1 + !unit_has_openat2());
	CHECK_INT(setrlimit(RLIMIT_NOFILE, &tight), 0);
	rc = rmtree_contents(dir, st.st_dev);
	CHECK_INT(setrlimit(RLIMIT_NOFILE, &old), 0);
	if (rc != 0 || entries(dir) != 0)
		scrub();
	CHECK_INT(rc, 0);
	CHECK_INT(entries(dir), 0);
	close(dir);
}

UNIT_SUITE(rmtree, { "a tree 300 levels deep goes wholly", a_tree_300_levels_deep_goes_wholly },
	   { "a tree 5000 levels deep goes by its name, nothing left beside it",
	     a_tree_5000_levels_deep_goes_by_its_name },
	   { "a wide directory far down goes too", a_wide_directory_far_down_goes_too },
	   { "a deletion cut short is finished by the next",
	     a_deletion_cut_short_is_finished_by_the_next },
	   { "a symlink far down is removed, never followed",
	     a_symlink_far_down_is_removed_never_followed },
	   { "a deep deletion holds few directories open",
	     a_deep_deletion_holds_few_directories_open });
