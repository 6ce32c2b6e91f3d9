// SPDX-License-Identifier: MIT
/* The network medium in a build without it (make NET=0): the plan stops a
 * boot whose layer is on the network before these rows; should one run,
 * it says why. */
#include <errno.h>

#include "boot.h"
#include "lib/sbuf.h"
#include "steps.h"

int step_net(struct boot *b, struct step_out *o)
{
	(void)b;
	IGNORE(strcopy(o->why, sizeof(o->why), PLAN_NEEDS_NET)); /* fits */
	return -EOPNOTSUPP;
}

int step_nbd(struct boot *b, unsigned layer, struct step_out *o)
{
	(void)layer;
	return step_net(b, o);
}

int step_nbd_upper(struct boot *b, struct step_out *o)
{
	o->step = STEP_FIND;
	return step_net(b, o);
}

int step_http(struct boot *b, unsigned layer, struct step_out *o)
{
	(void)layer;
	return step_net(b, o);
}

int step_nfs(struct boot *b, unsigned layer, struct step_out *o)
{
	(void)layer;
	return step_net(b, o);
}
