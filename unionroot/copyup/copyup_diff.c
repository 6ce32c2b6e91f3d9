// SPDX-License-Identifier: MIT
/* unionroot diff in copy-up mode: upper/ against the manifest, walked side by
 * side in tree order. A added, M modified, D deleted (the manifest has it,
 * upper/ does not; a deleted directory is one line). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "branch.h"
#include "cli.h"
#include "copyup.h"
#include "copyup_tables.h"
#include "diff.h"
#include "relpath.h"
#include "sys.h"

struct dctx {
	struct mreader m;
	struct relpath rel;
	struct nametab names;
	diff_fn fn;
	void *ctx;
	int err;
};

static void out(struct dctx *c, char what, const char *path)
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
	out(c, 'D', top);
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

			if (u == U_CHANGED)
				out(c, 'M', c->rel.s);
			next(c);
			if (was_dir && !S_ISDIR(st.st_mode)) {
				while (!c->err && c->m.have && mf_path_under(c->m.cur.path, c->rel.s))
					next(c);
			}
		} else if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			out(c, 'A', c->rel.s);
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

int diff_copyup(const char *top, diff_fn fn, void *ctx)
{
	static struct dctx c;
	int rw, state, upper, rc;

	memset(&c, 0, sizeof(c));
	c.fn = fn;
	c.ctx = ctx;
	rw = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rw < 0) {
		fprintf(stderr, "unionroot diff: %s: %s\n", top, strerror(errno));
		return 1;
	}
	state = openat(rw, BRANCH_STATE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	rc = state < 0 ? -errno : mreader_open(&c.m, state, MF_NAME);
	if (rc == -ENOENT) {
		fprintf(stderr, "unionroot diff: %s/%s/%s does not exist: diff knows the copy-up backend only in this build\n",
			top, BRANCH_STATE, MF_NAME);
		return 1;
	}
	if (rc < 0) {
		fprintf(stderr, "unionroot diff: the copy-up manifest is unusable: %s\n",
			rc == -EBADMSG ? c.m.err : strerror(-rc));
		return 1;
	}
	upper = openat(rw, BRANCH_UPPER, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (upper < 0) {
		fprintf(stderr, "unionroot diff: %s/%s: %s\n", top, BRANCH_UPPER, strerror(errno));
		return 1;
	}
	if (nametab_open(&c.names) < 0)
		c.err = -ENOMEM;
	else
		walk(&c, upper);
	while (!c.err && c.m.have)
		deleted(&c);
	nametab_close(&c.names);
	if (c.err)
		fprintf(stderr, "unionroot diff: stopped: %s\n",
			c.err == -EBADMSG ? c.m.err : strerror(-c.err));
	mreader_close(&c.m);
	close(upper);
	close(state);
	close(rw);
	return c.err ? 1 : 0;
}
