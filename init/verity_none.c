// SPDX-License-Identifier: MIT
/* dm-verity in a build without it (make VERITY=0): a layer the plan would
 * verify is refused as a verity setup that fails is, before any mount. */
#include "boot.h"
#include "lib/sbuf.h"

void verity_layers(struct boot *b)
{
	char why[PLAN_WHY_MAX];

	rescue_verity_refused(b);
	if (!b->plan.verity_left_out)
		return;
	IGNORE(strfmt(why, sizeof(why), PLAN_NEEDS_VERITY, b->plan.verity_left_out)); /* fits */
	rescue_verity(b, why);
}
