// SPDX-License-Identifier: MIT
/* The copy-up backend's entry points in a build without it (make COPYUP=0):
 * the plan never takes the backend there, and the commands say it is left out. */
#include <errno.h>
#include <stdio.h>

#include "cli.h"
#include "copyup.h"
#include "diff.h"

#define LEFT_OUT "this build has no copy-up backend (make COPYUP=0)"

int copyup_apply(int img, int rw, const char *image_id, int reset, int upgrade,
		 struct copyup_result *res, const char **done)
{
	(void)img, (void)rw, (void)image_id, (void)reset, (void)upgrade, (void)res;
	*done = LEFT_OUT;
	return -EOPNOTSUPP;
}

int diff_copyup(const char *rw, diff_fn fn, void *ctx)
{
	(void)fn, (void)ctx;
	fprintf(stderr, "unionroot diff: %s is a copy-up branch, and %s\n", rw, LEFT_OUT);
	return 1;
}

int cmd_copyup(int argc, char **argv)
{
	(void)argc, (void)argv;
	fputs("unionroot copyup: " LEFT_OUT "\n", stderr);
	return 1;
}
