/* SPDX-License-Identifier: MIT */
/* Copies one entry of a tree (file data with holes, directory, symlink,
 * device, fifo, socket) with its owner, mode, xattrs and times, and hashes
 * what it copied, so the manifest knows what came from the image. Everything
 * is relative to directory fds and never follows a symlink. */
#ifndef UNIONROOT_TREECOPY_H
#define UNIONROOT_TREECOPY_H

#include <stdint.h>
#include <sys/stat.h>

#include "defs.h"

/* Counters and switches of one copy run. */
struct tc_stats {
	uint64_t bytes;
	unsigned files, dirs, links, others, xattr_errors;
	int no_copy_range;               /* copy_file_range said EXDEV & co once */
};

/* Content (or symlink target) hash plus the xattrs the copy carries. */
int tc_hash(int dir, const char *name, const struct stat *st, uint64_t *hash) WUR;
/* Creates dname in ddir (it must not exist) as a copy of name in sdir, whose
 * lstat is st; directories get no times (set them after their entries with
 * tc_times). *hash is what tc_hash would say of the source. */
int tc_copy(int sdir, const char *name, const struct stat *st, int ddir, const char *dname,
	    uint64_t *hash, struct tc_stats *stats) WUR;
int tc_times(int dir, const char *name, const struct stat *st) WUR;
/* Applies owner, mode and the xattrs of (sdir, name) to an existing
 * directory (a merge keeps a directory and takes the image's metadata). */
int tc_dir_meta(int sdir, const char *name, const struct stat *st, int ddir, const char *dname) WUR;
/* 'f' 'd' 'l' 'c' 'b' 'p' 's', 0 for anything else. */
char tc_type(mode_t mode);

#endif
