// SPDX-License-Identifier: MIT
/* The boot decision for the writable branch, and where OpenWrt's
 * sysupgrade.tgz goes: pure, unit-tested. */
#include "plan/decide.h"

#include <string.h>

#include "branch/reset.h"
#include "conf/config.h"

void decide_boot(const struct ur_state *saved, int state_rc, const struct ur_state *now,
		 int cfg_reset, int requested, int upgrade, unsigned maxfails,
		 struct boot_decision *d)
{
	/* zeros in .bss: a const one would be 584 bytes of zeros in the file */
	static struct ur_state none;
	const struct ur_state *old = state_rc < 0 ? &none : saved;
	int fresh;

	memset(d, 0, sizeof(*d));
	/* a reset asked for (union.reset, or 'unionroot reset' from a failsafe
	 * boot) is the way out of a failsafe loop: it wins over the counter */
	if (maxfails && old->boots >= maxfails && cfg_reset == RESET_OFF && !requested) {
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
	/* a reset clears the counter: this boot is the fresh state's first */
	fresh = requested || d->reset_mode != RESET_NONE;
	d->next.boots = maxfails ? (fresh ? 0 : old->boots) + 1 : 0;
}

int decide_sysupgrade(int archive, int state_saved, int failsafe, int cfg_reset, int requested,
		      int upgrade, const char **why)
{
	*why = NULL;
	if (!archive)
		return SYSUPGRADE_NONE;
	/* a branch a boot of ours laid out and saved: an upgrade by sysupgrade
	 * rewrites the flash, so this archive was put there by hand */
	if (state_saved) {
		*why = "left alone: the branch has a control state, so no sysupgrade made it";
		return SYSUPGRADE_NONE;
	}
	if (failsafe) {
		*why = "left alone in failsafe";
		return SYSUPGRADE_NONE;
	}
	/* a reset asked for on this boot wins, as it does over union.upgrade */
	if (cfg_reset == RESET_ON || (requested && cfg_reset != RESET_KEEP)) {
		*why = cfg_reset == RESET_ON ? "set aside: union.reset=1 asks for the factory state" :
					       "set aside: a factory reset is pending";
		return SYSUPGRADE_TRASH;
	}
	if (cfg_reset == RESET_KEEP) {
		*why = "held for the keep list: union.reset=keep";
		return SYSUPGRADE_KEEPLIST;
	}
	if (upgrade == UPGRADE_RESET) {
		*why = "set aside: the firmware was upgraded and union.upgrade=reset";
		return SYSUPGRADE_TRASH;
	}
	if (upgrade == UPGRADE_KEEPLIST) {
		*why = "held for the keep list: the firmware was upgraded and union.upgrade=keeplist";
		return SYSUPGRADE_KEEPLIST;
	}
	*why = "restored: the firmware was upgraded and union.upgrade=keep";
	return SYSUPGRADE_RESTORE;
}
