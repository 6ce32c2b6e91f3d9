/* SPDX-License-Identifier: MIT */
/* Deleting a tree through directory fds: never follows a symlink, never
 * crosses into another mount, any depth with a fixed number of fds. */
#ifndef UNIONROOT_RMTREE_H
#define UNIONROOT_RMTREE_H

#include <sys/types.h>

#include "lib/defs.h"

/* Directories a deletion holds open at once, the one it was given included.
 * A directory deeper than that below it is first moved up to it. */
#define RMTREE_OPEN_MAX 32

/* Deletes everything inside the open directory dir that lives on device dev
 * (dir's own). Mount points are left, reported as -EXDEV after the rest is
 * gone; before Linux 5.6 only those of another device are told apart. A
 * deletion cut short may leave directories named ".rmtree-deep.N" in dir:
 * the next one deletes them. 0 or the first -errno. */
int rmtree_contents(int dir, dev_t dev) WUR;
/* The same, leaving the top-level entries whose inode is in skip[]. */
int rmtree_contents_except(int dir, dev_t dev, const ino_t *skip, unsigned nskip) WUR;
/* Removes whatever is at name in dir: a file, link, FIFO or device node, or
 * a directory with its tree (on dir's mount only). 0, also when nothing was
 * there, or the first -errno. */
int rmtree_at(int dir, const char *name) WUR;

#endif
