// SPDX-License-Identifier: MIT
/* Writable branch layout: upper/, work/, .unionroot/ and its trash, each a
 * real directory; a pending or interrupted reset (reset.c) is applied before
 * upper/ is used. */
#include "branch/branch.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "branch/reset.h"
#include "lib/rmtree.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"

static int open_dir(int at, const char *name)
{
	return sys_openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
}

/* name must be a real directory: anything else goes to the trash first. */
static int ensure_dir(int rw, int trash, const char *name, int *repaired)
{
	struct stat st;
	int rc = sys_fstatat(rw, name, &st, AT_SYMLINK_NOFOLLOW);

	if (rc == 0) {
		if (S_ISDIR(st.st_mode))
			return 0;
		if (trash < 0)
			return -ENOTDIR;
		if (reset_to_trash(rw, trash, name) < 0)
			return -ENOTDIR;
		*repaired = 1;
	} else if (rc != -ENOENT) {
		return rc;
	}
	rc = sys_mkdirat(rw, name, 0755);
	return rc < 0 && rc != -EEXIST ? rc : 1;
}

/* 1 when it made a directory, else 0, or -errno. */
static int state_dirs(int rw, int *state, int *trash, int *repaired)
{
	struct stat st;
	int rc, made;

	/* .unionroot itself: a symlink or file there is hostile or corrupt; it
	 * cannot go to a trash that lives inside it, so it gets a name beside */
	if (sys_fstatat(rw, BRANCH_STATE, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode)) {
		char aside[64];

		if (strfmt(aside, sizeof(aside), "%s.invalid.%llu", BRANCH_STATE,
			   (unsigned long long)sys_now_ms()) < 0 ||
		    sys_renameat(rw, BRANCH_STATE, rw, aside) < 0)
			return -ENOTDIR;
		*repaired = 1;
	}
	made = rc = ensure_dir(rw, -1, BRANCH_STATE, repaired);
	if (rc < 0)
		return rc;
	*state = open_dir(rw, BRANCH_STATE);
	if (*state < 0)
		return *state;
	rc = ensure_dir(*state, -1, BRANCH_TRASH, repaired);
	if (rc == -ENOTDIR) {
		/* a non-directory trash: remove the entry itself (never its target) */
		rc = sys_unlinkat(*state, BRANCH_TRASH, 0);
		if (rc < 0)
			return rc;
		rc = ensure_dir(*state, -1, BRANCH_TRASH, repaired);
	}
	if (rc < 0)
		return rc;
	*trash = open_dir(*state, BRANCH_TRASH);
	return *trash < 0 ? *trash : made | rc;
}

static int stop_at_first(const char *name, unsigned char type, void *arg)
{
	(void)name;
	(void)type;
	*(int *)arg = 1;
	return -ECANCELED;
}

static int has_entries(int dir)
{
	int any = 0;

	if (sys_lseek(dir, 0, SEEK_SET) < 0)
		return 0;
	IGNORE(sys_dir_each(dir, stop_at_first, &any)); /* stops with -ECANCELED */
	return any;
}

int branch_prepare(int rw, const struct reset_env *env, struct branch_result *res,
		   const char **what)
{
	struct reset_result rr;
	int state = -1, trash = -1, rc, made;

	memset(res, 0, sizeof(*res));
	memset(&rr, 0, sizeof(rr));
	*what = "creating .unionroot/";
	made = rc = state_dirs(rw, &state, &trash, &res->repaired);
	if (rc < 0)
		goto out;
	/* before upper/ is looked at: a cut between the two renames of a
	 * reset leaves ready/ without upper/, which is a finished reset */
	*what = "finishing an interrupted reset";
	rc = reset_recover(rw, state, trash, &rr);
	if (rc < 0)
		goto out;
	rc = reset_apply(rw, state, trash, env, &rr, what);
	res->recovered = rr.recovered;
	res->reset_done = rr.applied;
	res->from_request = rr.from_request;
	res->request_bad = rr.request_bad;
	res->kept = rr.kept;
	res->refused = rr.refused;
	if (rc < 0)
		goto out;
	*what = "creating upper/";
	rc = ensure_dir(rw, trash, BRANCH_UPPER, &res->repaired);
	if (rc < 0)
		goto out;
	made |= rc;
	*what = "creating work/";
	rc = ensure_dir(rw, trash, BRANCH_WORK, &res->repaired);
	if (rc < 0)
		goto out;
	made |= rc;
	/* the usual boot changed nothing here: no journal commit and cache
	 * flush for a directory that is already on the disk as it is */
	if (made || res->repaired || rr.recovered || rr.applied) {
		rc = sys_fsync(rw);
		if (rc < 0)
			goto out;
	}
	res->trash_pending = has_entries(trash);
	rc = 0;
out:
	if (trash >= 0)
		sys_close(trash);
	if (state >= 0)
		sys_close(state);
	return rc;
}

int branch_request_reset(int rw, const struct reset_req *req)
{
	int state = open_dir(rw, BRANCH_STATE), rc;

	if (state < 0)
		return state;
	rc = reset_request_write(state, req);
	sys_close(state);
	return rc;
}

static int open_trash(int rw)
{
	int state = open_dir(rw, BRANCH_STATE), trash;

	if (state < 0)
		return state;
	trash = open_dir(state, BRANCH_TRASH);
	sys_close(state);
	return trash;
}

int branch_trash_empty(int rw)
{
	static const char live[][sizeof(BRANCH_UPPER)] = { BRANCH_UPPER, BRANCH_WORK }; /* the longer */
	int trash = open_trash(rw), rc;
	ino_t skip[ARRAY_SIZE(live)];
	unsigned nskip = 0;
	struct stat st;

	if (trash < 0)
		return trash;
	/* jffs2 renames by writing the new name before removing the old one: a
	 * power cut can leave the live upper/ (or work/) with a second name in
	 * the trash. Deleting through that name would empty the live tree. */
	for (size_t i = 0; i < ARRAY_SIZE(live); i++)
		if (sys_fstatat(rw, live[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
			skip[nskip++] = st.st_ino;
	rc = sys_fstat(trash, &st);
	if (rc == 0) {
		int synced;

		rc = rmtree_contents_except(trash, st.st_dev, skip, nskip);
		synced = sys_fsync(trash);
		if (synced < 0 && !rc)
			rc = synced;
	}
	sys_close(trash);
	return rc;
}

int branch_fresh_work(int rw)
{
	int trash = open_trash(rw), rc;

	if (trash < 0)
		return trash;
	rc = reset_to_trash(rw, trash, BRANCH_WORK);
	sys_close(trash);
	if (rc >= 0)
		rc = sys_mkdirat(rw, BRANCH_WORK, 0755);
	return rc < 0 ? rc : sys_fsync(rw);
}

/* The directory sysupgrade.tgz goes to, open, and the name it takes
 * there (the trash's is fresh each time). */
static int sysupgrade_dest(int rw, int to, char *name, size_t cap)
{
	int dir = open_dir(rw, to == SYSUPGRADE_TO_UPPER ? BRANCH_UPPER : BRANCH_STATE), trash, rc;

	if (dir < 0)
		return dir;
	if (to != SYSUPGRADE_TO_TRASH) {
		rc = strcopy(name, cap, BRANCH_SYSUPGRADE);
	} else {
		trash = open_dir(dir, BRANCH_TRASH);
		sys_close(dir);
		dir = trash;
		rc = strfmt(name, cap, BRANCH_SYSUPGRADE ".%llu", (unsigned long long)sys_now_ms());
	}
	if (dir >= 0 && rc < 0) {
		sys_close(dir);
		return -ENAMETOOLONG;
	}
	return dir;
}

int branch_sysupgrade(int rw, int to)
{
	struct stat top, there;
	char name[64];
	int dir, rc;

	rc = sys_fstatat(rw, BRANCH_SYSUPGRADE, &top, AT_SYMLINK_NOFOLLOW);
	if (rc < 0)
		return rc == -ENOENT ? 0 : rc;
	if (!S_ISREG(top.st_mode))
		return -EINVAL;
	dir = sysupgrade_dest(rw, to, name, sizeof(name));
	if (dir < 0)
		return dir;
	/* rename() of two names of one file does nothing and succeeds: the
	 * name a cut left at the top goes by itself */
	if (sys_fstatat(dir, name, &there, AT_SYMLINK_NOFOLLOW) == 0 && there.st_ino == top.st_ino &&
	    there.st_dev == top.st_dev)
		rc = sys_unlinkat(rw, BRANCH_SYSUPGRADE, 0);
	else
		rc = sys_renameat(rw, BRANCH_SYSUPGRADE, dir, name);
	/* durable before the control state is saved: until then a cut leaves
	 * the archive at the top, for the next boot to place */
	if (rc == 0)
		rc = sys_fsync(dir);
	if (rc == 0)
		rc = sys_fsync(rw);
	sys_close(dir);
	return rc < 0 ? rc : 1;
}

#define SYMLINK_PROBE ".unionroot-symlink-probe"

int branch_holds_symlinks(int rw)
{
	int rc = 0;

	/* a probe a power cut left behind goes first */
	if (unlinkat(rw, SYMLINK_PROBE, 0) < 0 && errno != ENOENT)
		return -errno;
	if (symlinkat(BRANCH_STATE, rw, SYMLINK_PROBE) < 0) {
		if (errno == EPERM || errno == EOPNOTSUPP || errno == ENOSYS)
			return 0;
		return -errno;
	}
	if (unlinkat(rw, SYMLINK_PROBE, 0) < 0)
		rc = -errno;
	return rc < 0 ? rc : 1;
}

int branch_reset_pending(int rw)
{
	struct stat st;

	return sys_fstatat(rw, BRANCH_STATE "/" BRANCH_RESET_REQUEST, &st, AT_SYMLINK_NOFOLLOW) == 0;
}
