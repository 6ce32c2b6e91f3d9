/* SPDX-License-Identifier: MIT */
/* Manifest records from lstat, and the user's state of an entry. */
#ifndef UNIONROOT_COPYUP_REC_H
#define UNIONROOT_COPYUP_REC_H

#include <stdint.h>
#include <sys/stat.h>

#include "copyup/manifest.h"

/* The record of st (hash, inode and ctime stamps left 0). */
void rec_fill(struct mrec *rec, const struct stat *st);
/* Stamps what the copy looks like now (never for directories). */
void rec_stamp(struct mrec *rec, const struct stat *st);
/* Metadata equality, without the hash; directory times are not compared. */
int rec_meta_eq(const struct mrec *a, const struct mrec *b);
/* enum cu_user of udir/name against base; *ust its lstat, *uhash its
 * content hash when *uhash_known. */
int rec_user_state(int udir, const char *name, const struct mrec *base, struct stat *ust,
		   uint64_t *uhash, int *uhash_known);

#endif
