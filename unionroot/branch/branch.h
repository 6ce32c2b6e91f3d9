/* SPDX-License-Identifier: MIT */
/* The writable branch's top level: upper/, work/ and .unionroot/ as real
 * directories, the reset that renames the old upper aside in one step, and
 * the trash that is emptied after the hand-off. */
#ifndef UNIONROOT_BRANCH_H
#define UNIONROOT_BRANCH_H

#include <stddef.h>

#include "lib/defs.h"

#define BRANCH_UPPER "upper"
#define BRANCH_WORK "work"
#define BRANCH_STATE ".unionroot"
#define BRANCH_TRASH "trash"             /* inside .unionroot */
#define BRANCH_RESET_REQUEST "reset"     /* inside .unionroot: a pending reset */
/* OpenWrt's saved configuration: at the top, where sysupgrade leaves it; in
 * upper/ (the merged root's /sysupgrade.tgz) or in .unionroot/ once placed */
#define BRANCH_SYSUPGRADE "sysupgrade.tgz"

/* Where branch_sysupgrade() puts it. */
enum branch_sysupgrade_to { SYSUPGRADE_TO_UPPER, SYSUPGRADE_TO_STATE, SYSUPGRADE_TO_TRASH };

struct reset_env;
struct reset_req;

struct branch_result {
	int reset_done;     /* the old upper went to the trash */
	int from_request;   /* ... because of .unionroot/reset */
	int request_bad;    /* ... which was damaged: keep list only */
	int recovered;      /* an interrupted reset was finished */
	unsigned kept, refused; /* keep paths matched, entries left out */
	int repaired;       /* something that was not a directory was moved aside */
	int trash_pending;  /* the trash holds something to delete */
};

/* rw: an open directory fd of the writable branch's top; env: the reset
 * the command line asks for (NULL: none; a pending request is applied
 * anyway). 0 or -errno; on error *what names the step that failed. */
int branch_prepare(int rw, const struct reset_env *env, struct branch_result *res,
		   const char **what) WUR;
/* Records a reset request durably: .unionroot/reset, fsynced with its
 * directory. 0 or -errno. */
int branch_request_reset(int rw, const struct reset_req *req) WUR;
/* 1 when .unionroot/reset is there (a damaged one is a request too), else 0. */
int branch_reset_pending(int rw);
/* Moves sysupgrade.tgz from the laid-out branch's top (rw) to where to
 * says, in one rename, the directories synced. A second name a power cut
 * left behind (jffs2 writes the new name before it removes the old) is
 * removed. 1 moved, 0 when none is at the top, or -errno. */
int branch_sysupgrade(int rw, int to) WUR;
/* Empties .unionroot/trash without following symlinks or crossing mounts. */
int branch_trash_empty(int rw) WUR;
/* Moves work/ aside and makes a fresh one (a stale or incompatible work
 * directory makes overlayfs refuse the mount). 0 or -errno. */
int branch_fresh_work(int rw) WUR;
/* Whether the branch's file system can hold a root's symbolic links (vfat,
 * exfat and ntfs cannot): makes and removes a probe link at its top.
 * 1, 0, or -errno when the probe itself failed. */
int branch_holds_symlinks(int rw) WUR;

#endif
