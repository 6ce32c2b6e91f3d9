// SPDX-License-Identifier: MIT
/* dm-verity in a build without it (make VERITY=0): a layer the plan would
 * verify is refused as a verity setup that fails is, before any mount. */
#include <errno.h>

#include "boot.h"
#include "lib/sbuf.h"

int verity_layers(struct boot *b, char *why, size_t cap)
{
	if (!b->plan.verity_left_out)
		return 0;
	IGNORE(strfmt(why, cap, PLAN_NEEDS_VERITY, b->plan.verity_left_out)); /* fits */
	return -EOPNOTSUPP;
}
