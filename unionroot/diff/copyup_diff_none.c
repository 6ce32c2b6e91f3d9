// SPDX-License-Identifier: MIT
/* unionroot diff in a build without the copy-up backend (make COPYUP=0):
 * a copy-up branch is named, and the command says the backend is left out. */
#include <errno.h>

#include "diff/diff.h"
#include "lib/sbuf.h"

int diff_copyup(const char *rw, diff_fn fn, void *ctx, char *why, size_t cap)
{
	(void)fn, (void)ctx;
	IGNORE(strfmt(why, cap, "%s is a copy-up branch, and %s", rw,
		      "this build has no copy-up backend (make COPYUP=0)")); /* may cut */
	return -EOPNOTSUPP;
}
