/* SPDX-License-Identifier: MIT */
/* The two bounded tables of a tree walk (copy-up's, diff's), each in fixed
 * mmap'd arenas: the sorted names of the directories on the current path,
 * and the hard-linked inodes met with the path they were first copied to. */
#ifndef UNIONROOT_WALKTAB_H
#define UNIONROOT_WALKTAB_H

#include <stddef.h>
#include <stdint.h>

#include "lib/defs.h"

struct nametab {
	char *names;
	size_t nused;
	uint32_t *index;
	size_t iused;
};

/* 0, or -ENOMEM; nametab_close() frees what was mapped either way. */
int nametab_open(struct nametab *t) WUR;
void nametab_close(struct nametab *t);
/* Appends the names of the open directory dir, sorted, as index[*first ..
 * *first + *count). 0, -E2BIG when the arena is full, or -errno. Take
 * nused/iused before and put them back to drop a directory's names. */
int nametab_read(struct nametab *t, int dir, size_t *first, size_t *count) WUR;
int nametab_has(const struct nametab *t, size_t first, size_t count, const char *name);
static inline const char *nametab_name(const struct nametab *t, size_t i)
{
	return t->names + t->index[i];
}

struct linktab {
	uint64_t *ino;
	uint64_t *hash;
	uint32_t *off;
	char *paths;
	size_t used;
	unsigned n;
	int full;       /* a link did not fit: later ones are copied, not linked */
};

int linktab_open(struct linktab *t) WUR;
void linktab_close(struct linktab *t);
/* Remembers that image inode ino was copied to path (hash of its content). */
void linktab_add(struct linktab *t, uint64_t ino, uint64_t hash, const char *path, size_t plen);
/* The path an earlier link of ino was copied to, with its hash; NULL if none. */
const char *linktab_find(const struct linktab *t, uint64_t ino, uint64_t *hash);

#endif
