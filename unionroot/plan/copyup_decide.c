// SPDX-License-Identifier: MIT
/* The copy-up decisions, pure: what a boot does, and the three-way merge of
 * one path (base = the manifest, user = upper/, theirs = the new image). */
#include "plan/copyup_decide.h"

#include <string.h>

#include "conf/config.h"
#include "lib/strnum.h"

int copyup_choose_action(const struct copyup_facts *f, const char **why)
{
	if (f->reset) {
		if (f->manifest <= 0 && f->upper_empty) {
			*why = "factory reset of an empty branch: first copy";
			return CU_COPY;
		}
		*why = "factory reset: restoring what differs from the image";
		return CU_RESTORE;
	}
	if (f->manifest == 0) {
		if (f->upper_empty) {
			*why = "first boot: copying the read-only image";
			return CU_COPY;
		}
		/* a cut between the tree's rename and the manifest's commit, or a
		 * branch that another backend used: equal files are adopted */
		*why = "no manifest beside a filled upper/: merging without a base";
		return CU_MERGE;
	}
	if (f->manifest < 0) {
		*why = "the manifest is damaged: merging without a base (deleted image files come back)";
		return CU_MERGE;
	}
	if (f->same_image) {
		*why = "same image as the last boot";
		return CU_NOTHING;
	}
	if (f->upgrade == UPGRADE_RESET) {
		*why = "the image changed and union.upgrade=reset: restoring the new image";
		return CU_RESTORE;
	}
	*why = f->upgrade == UPGRADE_KEEPLIST ?
		       "the image changed: merging (union.upgrade=keeplist is not supported yet; keeping every change)" :
		       "the image changed: merging";
	return CU_MERGE;
}

static struct cu_decision decision(int act, int rec, int note)
{
	struct cu_decision x = { act, rec, note };

	return x;
}

struct cu_decision copyup_decide(const struct cu_facts *f)
{
	if (f->theirs == CU_THEIRS_ABSENT) {
		if (f->user == CU_USER_ABSENT)
			return decision(CU_ACT_NONE, CU_REC_DROP, CU_NOTE_QUIET);
		if (!f->base)                      /* the user's own file */
			return decision(f->restore ? CU_ACT_REMOVE : CU_ACT_NONE, CU_REC_DROP, CU_NOTE_QUIET);
		if (f->restore || f->user == CU_USER_SAME)
			return decision(CU_ACT_REMOVE, CU_REC_DROP, CU_NOTE_QUIET);
		return decision(CU_ACT_KEEP_USER, CU_REC_DROP, CU_NOTE_KEPT_REMOVED);
	}
	if (f->user != CU_USER_ABSENT && f->user_is_theirs)
		return decision(CU_ACT_NONE, CU_REC_STAMPED, CU_NOTE_QUIET);
	if (f->restore)
		return decision(CU_ACT_INSTALL, CU_REC_STAMPED, CU_NOTE_QUIET);
	if (f->parent_gone)                        /* like an opaque directory */
		return decision(CU_ACT_NONE, CU_REC_UNSTAMPED, CU_NOTE_QUIET);
	if (!f->base)
		return f->user == CU_USER_ABSENT ? decision(CU_ACT_INSTALL, CU_REC_STAMPED, CU_NOTE_QUIET) :
					     decision(CU_ACT_KEEP_USER, CU_REC_UNSTAMPED, CU_NOTE_CONFLICT);
	switch (f->user) {
	case CU_USER_ABSENT:                             /* the manifest is the whiteout */
		return decision(CU_ACT_NONE, CU_REC_UNSTAMPED,
				f->theirs == CU_THEIRS_CHANGED ? CU_NOTE_STAYS_DELETED : CU_NOTE_QUIET);
	case CU_USER_SAME:
		return f->theirs == CU_THEIRS_SAME ? decision(CU_ACT_NONE, CU_REC_STAMPED, CU_NOTE_QUIET) :
					     decision(CU_ACT_INSTALL, CU_REC_STAMPED, CU_NOTE_QUIET);
	default:
		return decision(CU_ACT_KEEP_USER, CU_REC_UNSTAMPED,
				f->theirs == CU_THEIRS_SAME ? CU_NOTE_QUIET : CU_NOTE_CONFLICT);
	}
}

/* File systems that cannot be an overlay upper (no xattrs, no whiteouts). */
#define NO_UPPER_FS "vfat msdos exfat ntfs ntfs3"

int copyup_choose_backend(int mode, int have_overlay, const char *upper_fs, const char **why)
{
	if (mode == MODE_OVERLAY) {
		*why = "union.mode=overlay";
		return BACKEND_OVERLAY;
	}
	if (mode == MODE_COPYUP) {
		*why = "union.mode=copyup";
		return BACKEND_COPYUP;
	}
	if (!have_overlay) {
		*why = "no overlayfs in this kernel, the initramfs or the image";
		return BACKEND_COPYUP;
	}
	if (upper_fs && str_has_word(NO_UPPER_FS, upper_fs)) {
		*why = "the writable file system cannot host an overlay upper";
		return BACKEND_COPYUP;
	}
	*why = "overlayfs is available";
	return BACKEND_OVERLAY;
}
