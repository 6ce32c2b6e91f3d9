/* SPDX-License-Identifier: MIT */
/* The one entry copy (the copy-up backend's and the reset's keep list):
 * file data with holes, directory, symlink, device, whiteout, fifo, socket,
 * with owner, mode, xattrs and times in that order, and a hash of what it
 * copied for the manifest. Relative to directory fds; never follows a link. */
#ifndef UNIONROOT_TREECOPY_H
#define UNIONROOT_TREECOPY_H

#include <stdint.h>
#include <sys/stat.h>

#include "lib/defs.h"

/* Counters and switches of one copy run. */
struct tc_stats {
	uint64_t bytes;
	unsigned files, dirs, links, others, xattr_errors;
	int no_copy_range;               /* copy_file_range said EXDEV & co once */
};

/* Content (or symlink target) hash plus the xattrs the copy carries. */
int tc_hash(int dir, const char *name, const struct stat *st, uint64_t *hash) WUR;
/* Creates dname in ddir (it must not exist: -EEXIST) as a copy of name in
 * sdir, whose lstat is st (-ESTALE: the file opened is another); directories
 * get no times (set them after their entries with tc_times). *hash is what
 * tc_hash would say of the source. An xattr that cannot be set is counted in
 * stats->xattr_errors, not failed. */
int tc_copy(int sdir, const char *name, const struct stat *st, int ddir, const char *dname,
	    uint64_t *hash, struct tc_stats *stats) WUR;
int tc_times(int dir, const char *name, const struct stat *st) WUR;
/* Applies owner, mode and the xattrs of (sdir, name) to an existing
 * directory (a merge keeps a directory and takes the image's metadata). */
int tc_dir_meta(int sdir, const char *name, const struct stat *st, int ddir, const char *dname) WUR;
/* 'f' 'd' 'l' 'c' 'b' 'p' 's', 0 for anything else. */
char tc_type(mode_t mode);

#endif
