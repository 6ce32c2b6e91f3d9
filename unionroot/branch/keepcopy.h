/* SPDX-License-Identifier: MIT */
/* Carries kept paths from the old upper directory into a fresh one, with
 * their metadata (owner, mode, times, xattrs, overlay whiteouts and opaque
 * directories), never following a symlink and never crossing a mount. */
#ifndef UNIONROOT_KEEPCOPY_H
#define UNIONROOT_KEEPCOPY_H

#include "branch/keep.h"
#include "lib/defs.h"

#define KEEPCOPY_DEPTH_MAX 64

struct keepcopy_stats {
	unsigned matched;  /* entries the patterns matched in the old upper */
	unsigned copied;   /* entries created in the new upper (recursively) */
	unsigned refused;  /* symlinks in the way, other mounts, copy failures */
};

/* Reports one skipped entry: path inside the root and why. */
typedef void (*keepcopy_report_fn)(const char *path, const char *why, void *ctx);

/* old_upper, new_upper: directory fds on the same file system. Entries that
 * cannot be carried over are reported and left out; 0, or -errno when the
 * new upper itself cannot be written. */
int keepcopy_run(int old_upper, int new_upper, const struct keep_list *kl,
		 keepcopy_report_fn report, void *ctx, struct keepcopy_stats *stats) WUR;

#endif
