/* SPDX-License-Identifier: MIT */
/* Deterministic crash points for tests: union.test.crashafter=STEP makes the
 * reset, the making of a persistence partition, or a first-boot erase of
 * raw flash stop dead after that step, as a power cut would (sysrq 'b' in PID 1: an immediate reboot
 * without sync; SIGKILL elsewhere). Compiled in only
 * with -DUNIONROOT_CRASHPOINTS (build/unionroot-test and its initramfs);
 * the shipped binary refuses the parameter. */
#ifndef UNIONROOT_CRASHPOINT_H
#define UNIONROOT_CRASHPOINT_H

#include "lib/defs.h"

/* 1 in test builds. */
int crashpoint_available(void);
/* The steps a crash can follow: a reset's, the making of a persistence
 * partition's (its file system made; a GPT's backup written; the table),
 * and a first-boot erase of raw flash's (every block erased but the one
 * that tells the erase: OpenWrt's marker, or union.format=jffs2's data). */
#define CRASH_STEPS RESET_STEPS " partformatted partbackup parttable flasherase"
/* Arms the crash after step (one of CRASH_STEPS); reboot: by sysrq 'b'
 * (PID 1 and the children it forks), else by SIGKILL of the process.
 * 0, -EINVAL unknown step, -EPERM in a build without crash points. */
int crashpoint_arm(const char *step, int reboot) WUR;
/* Called after each named step: returns 0, or never when armed for it. Has
 * the signature of reset_env.step. */
int crashpoint_hit(const char *step, void *ctx);
/* Arms a stall: PID 1 sleeps that many seconds where it calls
 * crashpoint_stall() (in the writable branch's mount step), as a mount the
 * kernel does not finish would hold it; once. 0, or -EPERM in a build
 * without crash points. */
int crashpoint_stall_arm(unsigned seconds) WUR;
void crashpoint_stall(void);

#endif
