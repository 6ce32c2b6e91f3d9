// SPDX-License-Identifier: MIT
/* unionroot diff [--stat] [--upper DIR] [--lower DIR]... | [--stat] [RW]:
 * what the writable branch changes relative to the read-only layers, one
 * "A|M|D /path" a line, or the counts with --stat, whatever the backend.
 * Defaults: this boot's branches under /run/unionroot. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "branch/branch.h"
#include "cmd/cli.h"
#include "cmd/out.h"
#include "copyup/manifest.h"
#include "diff/diff.h"
#include "lib/runstate.h"
#include "lib/sbuf.h"

struct counts {
	int stat;
	unsigned long a, m, d;
};

struct args {
	const char *upper, *branch;
	int lowers[DIFF_LOWER_MAX];
	unsigned nl;
};

int diff_print(char kind, const char *path)
{
	int rc = out("%c %s", kind, path[0] == '/' ? "" : "/");

	for (const unsigned char *p = (const unsigned char *)path; rc >= 0 && *p; p++)
		rc = *p < ' ' || *p == 0x7f || *p == '\\' ? out("\\x%02x", *p) : out("%c", *p);
	if (rc >= 0)
		rc = out("\n");
	return rc < 0 ? -EIO : 0;
}

static int print_one(char kind, const char *path, void *ctx)
{
	struct counts *c = ctx;

	if (kind == 'A')
		c->a++;
	else if (kind == 'M')
		c->m++;
	else
		c->d++;
	return c->stat ? 0 : diff_print(kind, path);
}

static int open_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		out_err("unionroot diff: %s: %s\n", path, strerror(errno));
	return fd;
}

/* 0, or the exit status of a usage error or an unreadable --lower. */
static int parse(int argc, char **argv, struct args *a, struct counts *c)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--stat") == 0) {
			c->stat = 1;
		} else if (strcmp(argv[i], "--upper") == 0 && i + 1 < argc) {
			a->upper = argv[++i];
		} else if (strcmp(argv[i], "--lower") == 0 && i + 1 < argc) {
			if (a->nl == DIFF_LOWER_MAX) {
				out_err("unionroot diff: more than %d --lower\n", DIFF_LOWER_MAX);
				return 2;
			}
			a->lowers[a->nl] = open_dir(argv[++i]);
			if (a->lowers[a->nl++] < 0)
				return 1;
		} else if (argv[i][0] != '-' && !a->branch) {
			a->branch = argv[i];
		} else {
			return cli_usage("diff", argv[i]);
		}
	}
	if (a->branch && (a->upper || a->nl)) {
		out_err("unionroot diff: a writable branch RW (copy-up mode) goes without --upper and --lower\n");
		return 2;
	}
	return 0;
}

/* this boot's read-only layers: /run/unionroot/lower/0, 1, ... */
static void boot_lowers(struct args *a)
{
	for (unsigned i = 0; i < DIFF_LOWER_MAX; i++) {
		char path[64];
		int fd;

		if (strfmt(path, sizeof(path), RUN_LOWER_FMT, i) < 0)
			break;
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			break;
		a->lowers[a->nl++] = fd;
	}
}

static int overlay_diff(struct args *a, struct counts *c)
{
	const char *upper = a->upper ? a->upper : RW_UPPER;
	int up, rc;

	if (a->nl == 0)
		boot_lowers(a);
	up = open_dir(upper);
	if (up < 0)
		return 1;
	rc = diff_run(up, a->lowers, a->nl, print_one, c);
	close(up);
	if (rc < 0) {
		out_err("unionroot diff: %s: %s; the list may be incomplete\n", upper,
			strerror(-rc));
		return 1;
	}
	return 0;
}

static int copyup_diff(const char *rw, struct counts *c)
{
	char why[512];

	if (diff_copyup(rw, print_one, c, why, sizeof(why)) == 0)
		return 0;
	out_err("unionroot diff: %s\n", why);
	return 1;
}

int cmd_diff(int argc, char **argv)
{
	struct args a = { NULL, NULL, { 0 }, 0 };
	struct counts c = { 0, 0, 0, 0 };
	int status = parse(argc, argv, &a, &c);

	/* Copy-up mode records deletions in its manifest, not as whiteouts: a
	 * branch named as RW, or this boot's when it has a manifest, is diffed
	 * against that. */
	if (status == 0) {
		if (a.branch || (!a.upper && !a.nl &&
				 access(RWDIR "/" BRANCH_STATE "/" MF_NAME, F_OK) == 0))
			status = copyup_diff(a.branch ? a.branch : RWDIR, &c);
		else
			status = overlay_diff(&a, &c);
		if (c.stat && status == 0)
			out("%lu added, %lu modified, %lu deleted, %lu changes\n", c.a, c.m,
			       c.d, c.a + c.m + c.d);
		if (out_flush() != 0)
			status = 1;
	}
	for (unsigned i = 0; i < a.nl; i++)
		close(a.lowers[i]);
	return status;
}
