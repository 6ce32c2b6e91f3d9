/* SPDX-License-Identifier: MIT */
/* A file saved whole or not at all: a temporary, then a rename over the
 * name, with the syncs between. */
#ifndef UNIONROOT_FILESAVE_H
#define UNIONROOT_FILESAVE_H

#include <stddef.h>
#include <sys/types.h>

#include "lib/defs.h"

/* A new file to write (a temporary): whatever was at name is removed first
 * (a directory with its tree), then O_CREAT|O_EXCL|O_NOFOLLOW. fd or -errno. */
int sys_file_create(int dir, const char *name, mode_t mode) WUR;
/* Renames tmp over name (a directory planted there is removed) and fsyncs
 * dir. 0 or -errno. */
int sys_file_commit(int dir, const char *tmp, const char *name) WUR;
/* Writes buf to path: new file, fsync, rename over, fsync the directory. */
int sys_write_file_atomic(int dir, const char *name, const char *buf, size_t len,
			  mode_t mode) WUR;

#endif
