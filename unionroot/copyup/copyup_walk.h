/* SPDX-License-Identifier: MIT */
/* One copy-up run, shared by the files of its walk: copyup.c walks the
 * image, copyup_land.c lands an entry of it in the user's tree,
 * copyup_gone.c handles what the manifest has and the image no longer has,
 * and copyup_note.c shows the warnings about its paths. */
#ifndef UNIONROOT_COPYUP_WALK_H
#define UNIONROOT_COPYUP_WALK_H

#include <stdint.h>
#include <sys/stat.h>

#include "copyup/copyup.h"
#include "copyup/manifest.h"
#include "lib/relpath.h"
#include "lib/treecopy.h"
#include "lib/walktab.h"

#define DEPTH_MAX 256

struct run {
	int action, img, top, rw, state, stage, trash;
	struct mreader *m;
	struct mwriter *w;
	struct copyup_result *res;
	struct tc_stats tc;
	struct relpath rel;        /* the current path, relative to the top */
	struct nametab names;
	struct linktab links;
	unsigned seq, notes;
	struct mrec rec;
};

/* A warning about the current path; the first few are shown. */
void cu_note(struct run *r, const char *what);
/* Moves dir/name into the trash under a name of its own: 0 or -errno. */
int cu_to_trash(struct run *r, int dir, const char *name) WUR;
/* Makes theirs (idir/name, lstat tst) the user's entry at udir/name, which
 * may hold something (ust valid when uhave): staged, then renamed in place.
 * hash gets the entry's hash. 0 or -errno. */
int cu_install(struct run *r, int idir, int udir, const char *name, const struct stat *tst,
	       int uhave, const struct stat *ust, uint64_t *hash) WUR;
/* The manifest's records under r->rel.s that the image no longer has, up to
 * the cursor's first record outside it (cu_drain) or one of them with what
 * lies under it (cu_drain_one). udir: the user's directory, or -1. */
int cu_drain(struct run *r, int udir, int depth) WUR;
int cu_drain_one(struct run *r, int udir, int depth) WUR;

#endif
