/* SPDX-License-Identifier: MIT */
/* The reserve: a file of incompressible bytes in .unionroot/ that holds room
 * back while the writable branch fills up. A branch found full at boot gives
 * it up first, so that the boot can still save its state, record a factory
 * reset and make work/ (jffs2 refuses even a rename when it is full; an
 * overlay without room for work/ comes up read-only). */
#ifndef UNIONROOT_RESERVE_H
#define UNIONROOT_RESERVE_H

#include <stdint.h>
#include <sys/statfs.h>

#include "lib/defs.h"

#define RESERVE_NAME "reserve" /* inside .unionroot */

/* How much to hold back on a file system of fs_bytes: two 128 KiB erase
 * blocks and 1 % (jffs2 garbage-collects only when more than one erase
 * block and 1 % of it are dirty), at most 16 MiB. */
uint64_t reserve_size(uint64_t fs_bytes);
/* How full a file system is, in percent of its blocks as root sees them
 * (union.warnfull's measure): 0-100, -1 when it reports no blocks. */
int fs_used_percent(const struct statfs *vfs);
/* Writes the reserve into the directory state if it is not there: a temp
 * file, fsynced, renamed. 1 made, 0 present already, -errno (nothing left
 * behind). */
int reserve_make(int state, uint64_t size) WUR;
/* Deletes the reserve: 1 released, 0 there was none, -errno. */
int reserve_release(int state) WUR;

#endif
