/* SPDX-License-Identifier: MIT */
/* The steps of the union (step 5), each a row of the plan that init/run.c
 * runs: it does its work on the boot and says how it went, 0 or -errno
 * with why and the plan_step that failed; it never decides what follows. */
#ifndef INIT_STEPS_H
#define INIT_STEPS_H

#include "boot.h"

struct step_out {
	char why[PLAN_FAIL_MAX];
	int step;                      /* enum plan_step: what failed */
};

/* init/mkpersist.c: the persistence file the wait found missing, made and opened */
int step_make_persist(struct boot *b, struct step_out *o);
/* init/mkpart.c: the persistence partition the wait found missing, made
 * after the last one on layer 1's disk and found by its label */
int step_make_part(struct boot *b, struct step_out *o);
/* init/unlock.c: the LUKS container the writable branch is, opened: a key
 * file or a passphrase; upper_dev becomes the opened device */
int step_unlock(struct boot *b, struct step_out *o);
/* init/net.c: a NIC with a link and an address (DHCP or ip=), recorded
 * for the real init; init/net_nbd.c: layer's nbd: export on /dev/nbdN,
 * which then stands in its SPEC's place. net_none.c: a build without. */
int step_net(struct boot *b, struct step_out *o);
int step_nbd(struct boot *b, unsigned layer, struct step_out *o);
/* init/net_nbd.c: the writable branch's nbd: export, writable, on /dev/nbdN
 * (b->upper_net), which the wait then finds in its SPEC's place */
int step_nbd_upper(struct boot *b, struct step_out *o);
/* init/net_http.c: layer's http:// image fetched into a tmpfs, on a loop
 * device, which then stands in its SPEC's place */
int step_http(struct boot *b, unsigned layer, struct step_out *o);
/* init/net_nfs.c: layer's nfs: export mounted read-only and hard: the
 * tree is the layer, or an image file on it goes on a loop device, which
 * then stands in its SPEC's place */
int step_nfs(struct boot *b, unsigned layer, struct step_out *o);
/* init/union.c: the read-only layers, the overlay, the root without a branch */
int step_mount_lower(struct boot *b, unsigned layer, struct step_out *o);
int step_overlay(struct boot *b, int device, struct step_out *o);
int step_fresh_work(struct boot *b);
int step_readonly(struct boot *b, struct step_out *o);
/* The copy-up root: upper/ bound at /newroot, as the backend. */
int union_copyup_root(struct boot *b);
/* Closes the branch's top, if open. */
void step_close_branch(struct boot *b);
/* init/writable.c: the writable branch at RWDIR; b->rw its top */
int step_mount_branch(struct boot *b, struct step_out *o);
void step_read_state(struct boot *b);
void step_failsafe(struct boot *b);
int step_layout(struct boot *b, struct step_out *o);
void step_sysupgrade(struct boot *b);
void step_save_state(struct boot *b);
/* No branch carried out yet: where the loop starts. */
void step_branch_none(struct boot *b);
void step_session(struct boot *b);
int step_tmpfs(struct boot *b, struct step_out *o);
/* init/union_copyup.c */
void step_probe_overlay(struct boot *b);
void step_no_copyup(struct boot *b);
void step_take_reset(struct boot *b);
void step_session_copy(struct boot *b);
int step_copyup(struct boot *b);

/* init/run.c: the loop, from the configuration to the real init */
NORETURN void boot_run(struct boot *b);
/* One turn of it: the plan built again, its first row not done run and its
 * outcome recorded; the row's enum run_kind. boot_next: that row's kind,
 * not run (-1: none). For the unit tests, which stop before the hand-off. */
int boot_turn(struct boot *b);
int boot_next(struct boot *b);

#endif
