/* SPDX-License-Identifier: MIT */
/* The copy-up manifest in .unionroot/: what came from the read-only image,
 * one line a path, in tree order; the record of deletions too (a path in the
 * manifest and not in upper/ was deleted by the user). Written to a new file
 * and renamed over; read through mmap with hard limits, hostile input is an
 * error with a reason, never a crash. */
#ifndef UNIONROOT_MANIFEST_H
#define UNIONROOT_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "branch/identity.h"
#include "lib/chash.h"
#include "lib/defs.h"
#include "lib/relpath.h"

#define MF_NAME "manifest"
#define MF_MAGIC "unionroot-manifest 1\n" /* the first line */
#define MF_PATH_MAX RELPATH_MAX          /* decoded path, with its NUL */
#define MF_LINE_MAX (4 * MF_PATH_MAX + 128)
#define MF_FILE_MAX (1ull << 30)
#define MF_ID_MAX IDENTITY_MAX     /* identity.h */
#define MF_ERR_MAX 128

/* One path. For a regular file size is its size, for a symlink the target's
 * length, for a device the rdev. hash covers the content (symlink target)
 * and the copied xattrs. ino/ctime stamp the copy in upper/ as it was left:
 * an equal stamp means nobody touched it since (ino 0: no stamp). */
struct mrec {
	char type;                       /* f d l c b p s */
	unsigned mode;                   /* permission bits incl. suid/sgid/sticky */
	unsigned uid, gid;
	uint64_t size;
	int64_t mtime;
	uint32_t mtime_ns;
	uint64_t hash;
	uint64_t ino;
	int64_t ctime;
	uint32_t ctime_ns;
	char path[MF_PATH_MAX];          /* relative, no leading '/' */
};

/* Tree order: a directory, then its entries by name, each followed by its
 * own subtree; '/' sorts before every other byte. */
int mf_path_cmp(const char *a, const char *b);
/* 1 when path lies inside dir ("" is the root). */
int mf_path_under(const char *path, const char *dir);

struct mreader {
	const char *map;
	size_t size;
	size_t pos, end;                 /* the records lie in [pos, end) */
	uint64_t count, seen;
	char image[MF_ID_MAX];
	struct mrec cur;
	int have;                        /* cur holds a record */
	char err[MF_ERR_MAX];
};

/* An empty manifest (first copy, or a damaged one that is ignored). */
void mreader_empty(struct mreader *r);
/* Maps and checks dir/name. 0; -ENOENT; -EBADMSG with r->err saying why;
 * other -errno. On success the first record is loaded (r->have); on failure
 * nothing is left mapped (mreader_close is not needed, and harmless). */
int mreader_open(struct mreader *r, int dir, const char *name) WUR;
/* Loads the next record: 1, 0 at the end, -EBADMSG (r->err). */
int mreader_next(struct mreader *r) WUR;
void mreader_close(struct mreader *r);
/* Reads only the image identity from the header: constant time. */
int manifest_read_id(int dir, const char *name, char *id, size_t cap) WUR;

/* Formats one record line (with '\n') into buf; length or -ENAMETOOLONG. */
int mf_format(const struct mrec *r, char *buf, size_t cap) WUR;
/* Parses one line (without '\n'); 0 or -EBADMSG with why. */
int mf_parse(const char *line, size_t len, struct mrec *r, const char **why) WUR;

struct mwriter {
	int dir, fd;
	size_t len;
	uint64_t count;
	int err;
	struct chash h;
	char last[MF_PATH_MAX];
	char buf[65536];
};

/* Starts dir/.manifest.new with the image identity. */
int mwriter_open(struct mwriter *w, int dir, const char *image_id) WUR;
/* Appends a record; records must come in tree order (else -EINVAL). */
int mwriter_add(struct mwriter *w, const struct mrec *r) WUR;
/* Trailer, fsync, rename over dir/manifest, fsync dir. */
int mwriter_commit(struct mwriter *w) WUR;
void mwriter_abort(struct mwriter *w);

#endif
