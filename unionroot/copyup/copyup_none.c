// SPDX-License-Identifier: MIT
/* The copy-up backend's entry points in a build without it (make COPYUP=0):
 * the plan never takes the backend there, and the commands say it is left out. */
#include <errno.h>
#include <unistd.h>

#include "cli.h"
#include "copyup.h"
#include "diff.h"
#include "sbuf.h"

#define LEFT_OUT "this build has no copy-up backend (make COPYUP=0)"

int copyup_apply(int img, int rw, const char *image_id, int reset, int upgrade,
		 struct copyup_result *res, const char **done)
{
	(void)img, (void)rw, (void)image_id, (void)reset, (void)upgrade, (void)res;
	*done = LEFT_OUT;
	return -EOPNOTSUPP;
}

int diff_copyup(const char *rw, diff_fn fn, void *ctx, char *why, size_t cap)
{
	(void)fn, (void)ctx;
	IGNORE(strfmt(why, cap, "%s is a copy-up branch, and %s", rw, LEFT_OUT)); /* may cut */
	return -EOPNOTSUPP;
}

/* the command's one line without stdio, which stays in cmd/ */
int cmd_copyup(int argc, char **argv)
{
	static const char line[] = "unionroot copyup: " LEFT_OUT "\n";

	(void)argc, (void)argv;
	IGNORE(write(2, line, sizeof(line) - 1));
	return 1;
}
