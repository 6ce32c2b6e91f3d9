// SPDX-License-Identifier: MIT
/* The copy-up backend's entry point in a build without it (make COPYUP=0):
 * the plan never takes the backend there. unionroot diff and unionroot
 * copyup have their own stand-ins (diff/copyup_diff_none.c,
 * cmd/cmd_copyup_none.c). */
#include <errno.h>

#include "copyup/copyup.h"

#define LEFT_OUT "this build has no copy-up backend (make COPYUP=0)"

int copyup_apply(int img, int rw, const char *image_id, int reset, int upgrade,
		 struct copyup_result *res, const char **done)
{
	(void)img, (void)rw, (void)image_id, (void)reset, (void)upgrade, (void)res;
	*done = LEFT_OUT;
	return -EOPNOTSUPP;
}
