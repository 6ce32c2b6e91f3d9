// SPDX-License-Identifier: MIT
/* The boot decision for the writable branch: pure, unit-tested. */
#include "decide.h"

#include <string.h>

#include "config.h"
#include "reset.h"

void decide_boot(const struct ur_state *saved, int state_rc, const struct ur_state *now,
		 int cfg_reset, int upgrade, unsigned maxfails, struct boot_decision *d)
{
	static const struct ur_state none;
	const struct ur_state *old = state_rc < 0 ? &none : saved;

	memset(d, 0, sizeof(*d));
	if (maxfails && old->boots >= maxfails) {
		d->failsafe = 1;
		d->why = "union.maxfails boots without 'unionroot boot-ok'";
		d->next = *old;
		return;
	}
	/* an unknown identity (nlower 0) is no evidence of an upgrade */
	d->upgraded = now->nlower && state_lowers_changed(old, now);
	if (cfg_reset == RESET_ON) {
		d->reset_mode = RESET_FACTORY;
		d->why = "union.reset=1";
	} else if (cfg_reset == RESET_KEEP) {
		d->reset_mode = RESET_FACTORY_KEEPLIST;
		d->why = "union.reset=keep";
	} else if (d->upgraded && upgrade == UPGRADE_RESET) {
		d->reset_mode = RESET_FACTORY;
		d->why = "the read-only layer changed and union.upgrade=reset";
	} else if (d->upgraded && upgrade == UPGRADE_KEEPLIST) {
		d->reset_mode = RESET_FACTORY_KEEPLIST;
		d->why = "the read-only layer changed and union.upgrade=keeplist";
	} else if (d->upgraded) {
		d->why = "the read-only layer changed and union.upgrade=keep: user changes stay on top";
	}
	d->next = now->nlower ? *now : *old;
	d->next.boots = maxfails ? old->boots + 1 : 0;
}
