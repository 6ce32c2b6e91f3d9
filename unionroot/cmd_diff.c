// SPDX-License-Identifier: MIT
/* unionroot diff [--stat] [--upper DIR] [--lower DIR]...: what the writable
 * branch changes relative to the read-only layers, one "A|M|D /path" a line,
 * or the counts with --stat. Defaults: this boot's branches under
 * /run/unionroot. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "branch.h"
#include "diff.h"
#include "sbuf.h"

struct counts {
	int stat;
	unsigned long a, m, d;
};

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
		fprintf(stderr, "unionroot diff: %s: %s\n", path, strerror(errno));
	return fd;
}

/* Copy-up mode records deletions in its manifest, not as whiteouts: a
 * branch with a manifest (or a branch named as the one argument) is diffed
 * against that. */
static int copyup_branch(int argc, char **argv)
{
	if (argc == 2 && argv[1][0] != '-')
		return 1;
	return argc == 1 && access(RUNTIME_RW "/" BRANCH_STATE "/manifest", F_OK) == 0;
}

int cmd_diff(int argc, char **argv)
{
	const char *upper = RUNTIME_RW "/upper";
	int lowers[DIFF_LOWER_MAX], up, rc, status = 0;
	unsigned nl = 0, found = 0;
	struct counts c = { 0, 0, 0, 0 };

	if (copyup_branch(argc, argv))
		return cmd_diff_copyup(argc, argv);

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--stat") == 0) {
			c.stat = 1;
		} else if (strcmp(argv[i], "--upper") == 0 && i + 1 < argc) {
			upper = argv[++i];
		} else if (strcmp(argv[i], "--lower") == 0 && i + 1 < argc) {
			if (nl == DIFF_LOWER_MAX) {
				fprintf(stderr, "unionroot diff: more than %d --lower\n", DIFF_LOWER_MAX);
				return 2;
			}
			lowers[nl] = open_dir(argv[++i]);
			if (lowers[nl++] < 0)
				return 1;
		} else {
			fprintf(stderr, "unionroot diff: unknown option \"%s\"; usage: unionroot diff [--stat] [--upper DIR] [--lower DIR]...\n",
				argv[i]);
			return 2;
		}
	}
	/* this boot's read-only layers: /run/unionroot/lower/0, 1, ... */
	for (unsigned i = 0; nl == 0 && i < DIFF_LOWER_MAX; i++) {
		char path[64];
		int fd;

		if (strfmt(path, sizeof(path), RUNTIME_DIR "/lower/%u", i) < 0)
			break;
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			break;
		lowers[i] = fd;
		found = i + 1;
	}
	if (nl == 0)
		nl = found;
	up = open_dir(upper);
	if (up < 0)
		return 1;
	rc = diff_run(up, lowers, nl, print_one, &c);
	if (rc < 0) {
		fprintf(stderr, "unionroot diff: %s: %s; the list may be incomplete\n", upper,
			strerror(-rc));
		status = 1;
	}
	if (c.stat)
		printf("%lu added, %lu modified, %lu deleted, %lu changes\n", c.a, c.m, c.d,
		       c.a + c.m + c.d);
	if (fflush(stdout) != 0)
		status = 1;
	close(up);
	for (unsigned i = 0; i < nl; i++)
		close(lowers[i]);
	return status;
}
