/* SPDX-License-Identifier: MIT */
/* The copy-up backend: the writable branch holds the whole root in upper/,
 * and .unionroot/manifest records what came from the read-only image. The
 * decisions (what a boot does, what a merge does with one path) are pure
 * functions of the plan (copyup_decide.h); copyup_run() carries them out. */
#ifndef UNIONROOT_COPYUP_H
#define UNIONROOT_COPYUP_H

#include <stdint.h>

#include "copyup/manifest.h"
#include "lib/defs.h"
#include "plan/copyup_decide.h"

#define COPYUP_STAGE "stage"           /* inside .unionroot: files before they land */
#define COPYUP_RESET "copyup-reset"    /* inside .unionroot: a reset being applied */

/* ---- carrying it out ------------------------------------------------------- */

struct copyup_result {
	uint64_t bytes;
	unsigned copied, updated, removed, kept, conflicts, stay_deleted, entries, errors;
	unsigned xattr_errors;
	int base_damaged;
	char base_err[MF_ERR_MAX];
};

/* img: the read-only image's root; rw: the writable branch's top (upper/ and
 * .unionroot/ exist). Runs action (CU_COPY, CU_MERGE, CU_RESTORE) and
 * commits a manifest for image_id. 0 or -errno. */
int copyup_run(int img, int rw, int action, const char *image_id, struct copyup_result *res) WUR;

/* The whole boot-time step: reads the manifest's identity, decides, runs.
 * reset: a reset is requested. *done names what happened. 0 or -errno. */
int copyup_apply(int img, int rw, const char *image_id, int reset, int upgrade,
		 struct copyup_result *res, const char **done) WUR;

/* The user's entry udir/name against a base record: enum cu_user. */
struct stat;
int copyup_user_state(int udir, const char *name, const struct mrec *base, struct stat *ust);


#endif
