// SPDX-License-Identifier: MIT
/* Manifest records of copy-up from lstat, and the user's state of an entry
 * against its base record: unchanged is told from inode and ctime stamps
 * before any content is hashed. */
#include "copyup/copyup_rec.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "copyup/copyup.h"
#include "lib/treecopy.h"

void rec_fill(struct mrec *rec, const struct stat *st)
{
	rec->type = tc_type(st->st_mode);
	rec->mode = st->st_mode & 07777;
	rec->uid = st->st_uid;
	rec->gid = st->st_gid;
	rec->size = S_ISREG(st->st_mode) || S_ISLNK(st->st_mode) ? (uint64_t)st->st_size :
		    S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? (uint64_t)st->st_rdev : 0;
	rec->mtime = S_ISDIR(st->st_mode) ? 0 : st->st_mtim.tv_sec;
	rec->mtime_ns = S_ISDIR(st->st_mode) ? 0 : (uint32_t)st->st_mtim.tv_nsec;
	rec->hash = 0;
	rec->ino = 0;
	rec->ctime = 0;
	rec->ctime_ns = 0;
}

void rec_stamp(struct mrec *rec, const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return; /* a directory's ctime moves with its entries: never stamped */
	rec->ino = st->st_ino;
	rec->ctime = st->st_ctim.tv_sec;
	rec->ctime_ns = (uint32_t)st->st_ctim.tv_nsec;
}

/* Metadata equality, without the hash. Directory times are not compared. */
int rec_meta_eq(const struct mrec *a, const struct mrec *b)
{
	return a->type == b->type && a->mode == b->mode && a->uid == b->uid && a->gid == b->gid &&
	       a->size == b->size && a->mtime == b->mtime && a->mtime_ns == b->mtime_ns;
}

/* The user's entry against a base record. *ust is its lstat; *uhash is set
 * when it had to be computed (or is known equal to the base's). */
int rec_user_state(int udir, const char *name, const struct mrec *base, struct stat *ust,
		   uint64_t *uhash, int *uhash_known)
{
	struct mrec u;

	*uhash_known = 0;
	if (udir < 0 || fstatat(udir, name, ust, AT_SYMLINK_NOFOLLOW) < 0)
		return CU_USER_ABSENT;
	if (!base)
		return CU_USER_CHANGED;
	if (base->ino && ust->st_ino == base->ino && ust->st_ctim.tv_sec == base->ctime &&
	    (uint32_t)ust->st_ctim.tv_nsec == base->ctime_ns &&
	    tc_type(ust->st_mode) == base->type) {
		*uhash = base->hash;
		*uhash_known = 1;
		return CU_USER_SAME;
	}
	rec_fill(&u, ust);
	if (!rec_meta_eq(&u, base) || tc_hash(udir, name, ust, uhash) < 0)
		return CU_USER_CHANGED;
	*uhash_known = 1;
	return *uhash == base->hash ? CU_USER_SAME : CU_USER_CHANGED;
}

int copyup_user_state(int udir, const char *name, const struct mrec *base, struct stat *ust)
{
	uint64_t h;
	int known;

	return rec_user_state(udir, name, base, ust, &h, &known);
}

