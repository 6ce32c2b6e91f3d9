// SPDX-License-Identifier: MIT
/* unionroot diff in copy-up mode: upper/ against the manifest, walked side by
 * side in tree order. A added, M modified, D deleted (the manifest has it,
 * upper/ does not; a deleted directory is one line). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "branch.h"
#include "cli.h"
#include "copyup.h"
#include "sys.h"

struct dctx {
	struct mreader m;
	char path[MF_PATH_MAX];
	size_t plen;
	unsigned long changes;
	int err;
};

struct names {
	char **v;
	size_t n, cap;
};

static int collect(const char *name, unsigned char type, void *arg)
{
	struct names *l = arg;

	(void)type;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = strdup(name);
	if (!l->v[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void out(struct dctx *c, char what, const char *path)
{
	c->changes++;
	putchar(what);
	putchar(' ');
	putchar('/');
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p < ' ' || *p == 0x7f || *p == '\\')
			printf("\\x%02x", *p);
		else
			putchar(*p);
	}
	putchar('\n');
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

static int push(struct dctx *c, const char *name, size_t *old)
{
	size_t n = strlen(name), sep = c->plen ? 1 : 0;

	*old = c->plen;
	if (c->plen + sep + n + 1 > sizeof(c->path))
		return -ENAMETOOLONG;
	if (sep)
		c->path[c->plen++] = '/';
	memcpy(c->path + c->plen, name, n + 1);
	c->plen += n;
	return 0;
}

static void walk(struct dctx *c, int dir)
{
	struct names l = { NULL, 0, 0 };

	if (sys_dir_each(dir, collect, &l) < 0) {
		c->err = -EIO;
		goto out;
	}
	qsort(l.v, l.n, sizeof(*l.v), by_name);
	for (size_t i = 0; i < l.n && !c->err; i++) {
		struct stat st;
		size_t old;
		int cmp = 1;

		if (push(c, l.v[i], &old) < 0) {
			c->err = -ENAMETOOLONG;
			break;
		}
		while (!c->err && c->m.have && (cmp = mf_path_cmp(c->m.cur.path, c->path)) < 0)
			deleted(c);
		if (c->m.have && cmp == 0) {
			int u = copyup_user_state(dir, l.v[i], &c->m.cur, &st);
			int was_dir = c->m.cur.type == 'd';

			if (u == U_CHANGED)
				out(c, 'M', c->path);
			next(c);
			if (was_dir && !S_ISDIR(st.st_mode)) {
				while (!c->err && c->m.have && mf_path_under(c->m.cur.path, c->path))
					next(c);
			}
		} else if (fstatat(dir, l.v[i], &st, AT_SYMLINK_NOFOLLOW) == 0) {
			out(c, 'A', c->path);
		} else {
			c->plen = old;
			c->path[old] = '\0';
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dir, l.v[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0) {
				walk(c, sub);
				close(sub);
			}
		}
		c->plen = old;
		c->path[old] = '\0';
	}
	while (!c->err && c->m.have && mf_path_under(c->m.cur.path, c->path))
		deleted(c);
out:
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i]);
	free(l.v);
}

int cmd_diff_copyup(int argc, char **argv)
{
	static struct dctx c;
	const char *top = argc > 1 ? argv[1] : RUNTIME_RW;
	int rw, state, upper, rc;

	if (argc > 2) {
		fprintf(stderr, "usage: unionroot diff [WRITABLE-BRANCH]\n");
		return 2;
	}
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
	walk(&c, upper);
	while (!c.err && c.m.have)
		deleted(&c);
	if (c.err)
		fprintf(stderr, "unionroot diff: stopped: %s\n",
			c.err == -EBADMSG ? c.m.err : strerror(-c.err));
	mreader_close(&c.m);
	close(upper);
	close(state);
	close(rw);
	return c.err ? 1 : 0;
}
