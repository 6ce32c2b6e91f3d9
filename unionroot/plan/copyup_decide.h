/* SPDX-License-Identifier: MIT */
/* The copy-up decisions, pure: which backend a writable branch takes, what
 * a boot does with it, and the three-way merge of one path (base = the
 * manifest, user = upper/, theirs = the new image). copyup/ carries them
 * out. */
#ifndef UNIONROOT_COPYUP_DECIDE_H
#define UNIONROOT_COPYUP_DECIDE_H

/* ---- which backend --------------------------------------------------------- */

enum copyup_backend { BACKEND_OVERLAY, BACKEND_COPYUP };

/* mode: enum cfg_mode; have_overlay: the kernel knows overlayfs (after the
 * initramfs' and the image's own module were tried); upper_fs: the writable
 * branch's type or NULL. why: the reason, for the log and the status. */
int copyup_choose_backend(int mode, int have_overlay, const char *upper_fs, const char **why);

/* ---- what this boot does ------------------------------------------------- */

enum copyup_action { CU_NOTHING, CU_COPY, CU_MERGE, CU_RESTORE };

struct copyup_facts {
	int manifest;        /* 1 valid, 0 none, -1 damaged */
	int same_image;      /* the manifest's identity is this image's */
	int upper_empty;
	int reset;           /* a reset is requested */
	int upgrade;         /* enum cfg_upgrade */
};

/* why: a short reason for the log and the status. */
int copyup_choose_action(const struct copyup_facts *f, const char **why);

/* ---- what a merge does with one path ---------------------------------------- */

/* The user's copy against the manifest (base), the image against the base.
 * Without a base: CU_USER_CHANGED means "present", CU_THEIRS_CHANGED "present". */
enum cu_user { CU_USER_ABSENT, CU_USER_SAME, CU_USER_CHANGED };
enum cu_theirs { CU_THEIRS_ABSENT, CU_THEIRS_SAME, CU_THEIRS_CHANGED };
enum cu_act { CU_ACT_NONE, CU_ACT_INSTALL, CU_ACT_REMOVE, CU_ACT_KEEP_USER };
enum cu_rec { CU_REC_DROP, CU_REC_STAMPED, CU_REC_UNSTAMPED };
enum cu_note { CU_NOTE_QUIET, CU_NOTE_CONFLICT, CU_NOTE_STAYS_DELETED, CU_NOTE_KEPT_REMOVED };

struct cu_facts {
	int base;            /* the path is in the manifest */
	int user;            /* enum cu_user */
	int theirs;          /* enum cu_theirs */
	int user_is_theirs;  /* the user's copy equals the image's */
	int parent_gone;     /* the user deleted or replaced a parent directory */
	int restore;         /* a reset: the image wins everywhere */
};

struct cu_decision {
	int act;             /* enum cu_act */
	int rec;             /* enum cu_rec: what the new manifest says */
	int note;            /* enum cu_note */
};

struct cu_decision copyup_decide(const struct cu_facts *f);

#endif
