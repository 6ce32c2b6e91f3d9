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

/* OpenWrt's sysupgrade keeps the configuration as sysupgrade.tgz at the top
 * of the writable branch it flashed (mtd -j on NOR, a fresh ubifs on NAND),
 * and OpenWrt's preinit unpacks /sysupgrade.tgz of the merged root on the
 * first boot. Where this boot puts it, by union.upgrade (doc/design.md). */
enum sysupgrade_action {
	SYSUPGRADE_NONE,     /* left where it is (or there is none) */
	SYSUPGRADE_RESTORE,  /* into upper/: /sysupgrade.tgz, which preinit unpacks */
	SYSUPGRADE_KEEPLIST, /* into .unionroot/: the shim unpacks the keep list's paths */
	SYSUPGRADE_TRASH,    /* into the trash: the factory state, emptied after the switch */
};
/* archive: the branch's top holds sysupgrade.tgz (a regular file);
 * state_saved: the branch holds a control state, so a boot of ours laid it
 * out and the archive is not an upgrade's; failsafe: this boot leaves the
 * branch untouched; cfg_reset, requested, upgrade as decide_boot's. The
 * action, with *why for the log and the plan (NULL with SYSUPGRADE_NONE
 * when there is no archive). */
int decide_sysupgrade(int archive, int state_saved, int failsafe, int cfg_reset, int requested,
		      int upgrade, const char **why);

#endif
