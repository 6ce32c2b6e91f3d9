/* SPDX-License-Identifier: MIT */
/* What this boot does with the writable branch, decided from values only:
 * failsafe after union.maxfails boots without 'unionroot boot-ok' unless a
 * reset is asked for, a reset from the command line or from union.upgrade
 * when a read-only layer changed, and the control state to save (a reset
 * starts the counter afresh). */
#ifndef UNIONROOT_DECIDE_H
#define UNIONROOT_DECIDE_H

#include "branch/state.h"

struct boot_decision {
	int failsafe;       /* volatile upper, the branch read-only and untouched */
	int reset_mode;     /* enum reset_mode */
	int upgraded;       /* a read-only layer differs from the last boot's */
	const char *why;    /* for the log and the status: why failsafe or reset */
	struct ur_state next; /* what to save when not failsafe */
};

/* saved: the state read (state_rc its load result: a damaged state counts as
 * none); now: this boot's layer identities (nlower 0 when unknown);
 * cfg_reset, upgrade: enum cfg_reset, enum cfg_upgrade; requested: a reset
 * request is pending on the branch; maxfails 0 = off. */
void decide_boot(const struct ur_state *saved, int state_rc, const struct ur_state *now,
		 int cfg_reset, int requested, int upgrade, unsigned maxfails,
		 struct boot_decision *d);

#endif
