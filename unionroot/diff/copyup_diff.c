// SPDX-License-Identifier: MIT
/* unionroot diff in copy-up mode: upper/ against the manifest, walked side by
 * side in tree order. A added, M modified, D deleted (the manifest has it,
 * upper/ does not; a deleted directory is one line). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "branch/branch.h"
#include "copyup/copyup.h"
#include "diff/diff.h"
#include "lib/relpath.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/walktab.h"

struct dctx {
	struct mreader m;
	struct relpath rel;
	struct nametab names;
	diff_fn fn;
	void *ctx;
	int err;
};

static void report(struct dctx *c, char what, const char *path)
{
	int rc = c->fn(what, path, c->ctx);

	if (rc < 0)
		c->err = rc;
}

static void next(struct dctx *c)
{
	if (mreader_next(&c->m) < 0)
		c->err = -EBADMSG;
}

/* The manifest's current record is gone from upper/: one D, its subtree quiet. */
static void deleted(struct dctx *c)
{
	char top[MF_PATH_MAX];

	memcpy(top, c->m.cur.path, strlen(c->m.cur.path) + 1);
	report(c, 'D', top);
	next(c);
	while (!c->err && c->m.have && mf_path_under(c->m.cur.path, top))
		next(c);
}

static void walk(struct dctx *c, int dir)
{
	size_t mark_n = c->names.nused, mark_i = c->names.iused, first, count;

	if (nametab_read(&c->names, dir, &first, &count) < 0) {
		c->err = -EIO;
		goto out;
	}
	for (size_t i = first; i < first + count && !c->err; i++) {
		const char *name = nametab_name(&c->names, i);
		struct stat st;
		size_t old;
		int cmp = 1;

		if (relpath_push(&c->rel, name, &old) < 0) {
			c->err = -ENAMETOOLONG;
			break;
		}
		while (!c->err && c->m.have && (cmp = mf_path_cmp(c->m.cur.path, c->rel.s)) < 0)
			deleted(c);
		if (c->m.have && cmp == 0) {
			int u = copyup_user_state(dir, name, &c->m.cur, &st);
			int was_dir = c->m.cur.type == 'd';

			if (u == CU_USER_CHANGED)
				report(c, 'M', c->rel.s);
			next(c);
			if (was_dir && !S_ISDIR(st.st_mode)) {
				while (!c->err && c->m.have && mf_path_under(c->m.cur.path, c->rel.s))
					next(c);
			}
		} else if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			report(c, 'A', c->rel.s);
		} else {
			relpath_pop(&c->rel, old);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0) {
				walk(c, sub);
				close(sub);
			}
		}
		relpath_pop(&c->rel, old);
	}
	while (!c->err && c->m.have && mf_path_under(c->m.cur.path, c->rel.s))
		deleted(c);
out:
	c->names.nused = mark_n;
	c->names.iused = mark_i;
}

/* An fd of the directory top/name (top itself, a symlink followed, when
 * dir is AT_FDCWD), or -errno with why. */
static int open_dir(int dir, const char *top, const char *name, char *why, size_t cap)
{
	int at = dir != AT_FDCWD;
	int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (at ? O_NOFOLLOW : 0));

	if (fd < 0) {
		fd = -errno;
		IGNORE(strfmt(why, cap, "%s%s%s: %s", top, at ? "/" : "", at ? name : "",
			      strerror(-fd))); /* may cut */
	}
	return fd;
}

int diff_copyup(const char *top, diff_fn fn, void *ctx, char *why, size_t cap)
{
	static struct dctx c;
	int rw, state, upper, rc;

	memset(&c, 0, sizeof(c));
	c.fn = fn;
	c.ctx = ctx;
	rw = open_dir(AT_FDCWD, top, top, why, cap);
	if (rw < 0)
		return rw;
	state = openat(rw, BRANCH_STATE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	rc = state < 0 ? -errno : mreader_open(&c.m, state, MF_NAME);
	if (rc == -ENOENT)
		IGNORE(strfmt(why, cap, "%s/%s/%s does not exist: diff knows the copy-up backend only in this build",
			      top, BRANCH_STATE, MF_NAME)); /* may cut */
	else if (rc < 0)
		IGNORE(strfmt(why, cap, "the copy-up manifest is unusable: %s",
			      rc == -EBADMSG ? c.m.err : strerror(-rc))); /* may cut */
	upper = rc < 0 ? rc : open_dir(rw, top, BRANCH_UPPER, why, cap);
	if (upper >= 0) {
		if (nametab_open(&c.names) < 0)
			c.err = -ENOMEM;
		else
			walk(&c, upper);
		while (!c.err && c.m.have)
			deleted(&c);
		nametab_close(&c.names);
		if (c.err)
			IGNORE(strfmt(why, cap, "stopped: %s",
				      c.err == -EBADMSG ? c.m.err : strerror(-c.err))); /* may cut */
		close(upper);
		rc = c.err;
	} else {
		rc = upper;
	}
	mreader_close(&c.m);
	if (state >= 0)
		close(state);
	close(rw);
	return rc;
}
