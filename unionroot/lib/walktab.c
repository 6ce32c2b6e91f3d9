// SPDX-License-Identifier: MIT
/* A tree walk's name and hard-link tables: fixed arenas, no growth, no
 * malloc (PID 1 runs copy-up's first copy). */
#include "lib/walktab.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/sys.h"

#define NAMES_BYTES (64u << 20)
#define INDEX_SLOTS (4u << 20)
#define LINK_SLOTS (1u << 16)
#define LINK_BYTES (8u << 20)

static void *arena(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void unmap(void *p, size_t n)
{
	if (p)
		munmap(p, n);
}

int nametab_open(struct nametab *t)
{
	memset(t, 0, sizeof(*t));
	t->names = arena(NAMES_BYTES);
	t->index = arena(INDEX_SLOTS * sizeof(uint32_t));
	return t->names && t->index ? 0 : -ENOMEM;
}

void nametab_close(struct nametab *t)
{
	unmap(t->names, NAMES_BYTES);
	unmap(t->index, INDEX_SLOTS * sizeof(uint32_t));
	memset(t, 0, sizeof(*t));
}

/* A heapsort of name offsets: in place, O(n log n) for a directory of a
 * million names, and a tenth of musl's qsort for its only caller. A
 * directory's names are unique, so its instability shows nowhere. */
static void swap32(uint32_t *a, uint32_t *b)
{
	uint32_t t = *a;

	*a = *b;
	*b = t;
}

static void sift(const char *names, uint32_t *v, size_t i, size_t n)
{
	for (size_t c; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && strcmp(names + v[c + 1], names + v[c]) > 0)
			c++;
		if (strcmp(names + v[i], names + v[c]) >= 0)
			return;
		swap32(&v[i], &v[c]);
	}
}

static void sort_names(const char *names, uint32_t *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(names, v, i, n);
	while (n > 1) {
		swap32(&v[0], &v[--n]);
		sift(names, v, 0, n);
	}
}

static int add_name(const char *name, unsigned char type, void *arg)
{
	struct nametab *t = arg;
	size_t n = strlen(name) + 1;

	(void)type;
	if (t->nused + n > NAMES_BYTES || t->iused == INDEX_SLOTS)
		return -E2BIG;
	memcpy(t->names + t->nused, name, n);
	t->index[t->iused++] = (uint32_t)t->nused;
	t->nused += n;
	return 0;
}

int nametab_read(struct nametab *t, int dir, size_t *first, size_t *count)
{
	int rc;

	*first = t->iused;
	*count = 0;
	if (lseek(dir, 0, SEEK_SET) < 0)
		return -errno;
	rc = sys_dir_each(dir, add_name, t);
	if (rc < 0)
		return rc;
	*count = t->iused - *first;
	sort_names(t->names, t->index + *first, *count);
	return 0;
}

int nametab_has(const struct nametab *t, size_t first, size_t count, const char *name)
{
	size_t lo = first, hi = first + count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(t->names + t->index[mid], name);

		if (c == 0)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int linktab_open(struct linktab *t)
{
	memset(t, 0, sizeof(*t));
	t->ino = arena(LINK_SLOTS * sizeof(uint64_t));
	t->hash = arena(LINK_SLOTS * sizeof(uint64_t));
	t->off = arena(LINK_SLOTS * sizeof(uint32_t));
	t->paths = arena(LINK_BYTES);
	return t->ino && t->hash && t->off && t->paths ? 0 : -ENOMEM;
}

void linktab_close(struct linktab *t)
{
	unmap(t->ino, LINK_SLOTS * sizeof(uint64_t));
	unmap(t->hash, LINK_SLOTS * sizeof(uint64_t));
	unmap(t->off, LINK_SLOTS * sizeof(uint32_t));
	unmap(t->paths, LINK_BYTES);
	memset(t, 0, sizeof(*t));
}

static unsigned slot(const struct linktab *t, uint64_t ino)
{
	for (unsigned i = (unsigned)(ino * 0x9e3779b97f4a7c15ull >> 48) & (LINK_SLOTS - 1);;
	     i = (i + 1) & (LINK_SLOTS - 1)) {
		if (!t->ino[i] || t->ino[i] == ino)
			return i;
	}
}

void linktab_add(struct linktab *t, uint64_t ino, uint64_t hash, const char *path, size_t plen)
{
	unsigned i;

	if (!t->ino || ino == 0)
		return;
	if (t->n + 1 >= LINK_SLOTS / 2 || t->used + plen + 1 > LINK_BYTES) {
		if (!t->full)
			log_warn("copy-up: more hard-linked files than the table holds; the rest are copied, not linked");
		t->full = 1;
		return;
	}
	i = slot(t, ino);
	if (t->ino[i])
		return;
	t->ino[i] = ino;
	t->hash[i] = hash;
	t->off[i] = (uint32_t)t->used;
	memcpy(t->paths + t->used, path, plen + 1);
	t->used += plen + 1;
	t->n++;
}

const char *linktab_find(const struct linktab *t, uint64_t ino, uint64_t *hash)
{
	unsigned i;

	if (!t->ino)
		return NULL;
	i = slot(t, ino);
	if (!t->ino[i])
		return NULL;
	*hash = t->hash[i];
	return t->paths + t->off[i];
}
