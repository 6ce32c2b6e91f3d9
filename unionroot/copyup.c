// SPDX-License-Identifier: MIT
/* Carries out a copy-up: the first copy, a merge after an image upgrade, a
 * restore (reset). One walk of the image in tree order beside the old
 * manifest, so memory stays bounded: names of the directories on the current
 * path, and a table of hard-linked inodes, both in fixed mmap'd arenas.
 *
 * Crash safety: the first copy builds .unionroot/stage/tree and renames it
 * over the empty upper/ after a syncfs; a merge stages each file (fsynced)
 * and renames it into place, so every path holds the old or the new version;
 * removals are unlinks. The new manifest is committed last: until then the
 * old one is the base, and a re-run sees installed files equal to the image
 * (decided "equal to theirs") and converges to the same tree. */
#include "copyup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "branch.h"
#include "log.h"
#include "rmtree.h"
#include "sbuf.h"
#include "sys.h"
#include "treecopy.h"

#define DEPTH_MAX 256
#define NAMES_BYTES (64u << 20)
#define INDEX_SLOTS (4u << 20)
#define LINK_SLOTS (1u << 16)
#define LINK_BYTES (8u << 20)
#define NOTES_MAX 8
#define NAME_MAX_ 255

struct links {
	uint64_t *ino;
	uint64_t *hash;
	uint32_t *off;
	char *paths;
	size_t used;
	unsigned n;
	int full;
};

struct run {
	int action, img, top, rw, state, stage, trash;
	struct mreader *m;
	struct mwriter *w;
	struct copyup_result *res;
	struct tc_stats tc;
	char path[MF_PATH_MAX];
	size_t plen;
	char *names;
	size_t nused;
	uint32_t *index;
	size_t iused;
	struct links links;
	unsigned seq, notes;
	struct mrec rec;
};

/* What removed() keeps of a manifest record while the cursor moves on. */
struct brief {
	char type;
	unsigned mode, uid, gid;
	uint64_t size, hash, ino;
	int64_t mtime, ctime;
	uint32_t mtime_ns, ctime_ns;
};

static struct mreader reader;
static struct mwriter writer;
static struct run R;

/* ---- small helpers ----------------------------------------------------------- */

static void *arena(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void note(struct run *r, const char *what)
{
	if (r->notes++ < NOTES_MAX)
		log_warn("copy-up: /%s %s", r->path, what);
	else if (r->notes == NOTES_MAX + 1)
		log_warn("copy-up: more notes like these are not shown");
}

static int path_push(struct run *r, const char *name, size_t *old)
{
	size_t n = strlen(name), sep = r->plen ? 1 : 0;

	*old = r->plen;
	if (r->plen + sep + n + 1 > sizeof(r->path))
		return -ENAMETOOLONG;
	if (sep)
		r->path[r->plen++] = '/';
	memcpy(r->path + r->plen, name, n + 1);
	r->plen += n;
	return 0;
}

static void path_pop(struct run *r, size_t old)
{
	r->plen = old;
	r->path[old] = '\0';
}

static const char *last_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void fill(struct mrec *rec, const struct stat *st)
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

static void stamp(struct mrec *rec, const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return; /* a directory's ctime moves with its entries: never stamped */
	rec->ino = st->st_ino;
	rec->ctime = st->st_ctim.tv_sec;
	rec->ctime_ns = (uint32_t)st->st_ctim.tv_nsec;
}

/* Metadata equality, without the hash. Directory times are not compared. */
static int meta_eq(const struct mrec *a, const struct mrec *b)
{
	return a->type == b->type && a->mode == b->mode && a->uid == b->uid && a->gid == b->gid &&
	       a->size == b->size && a->mtime == b->mtime && a->mtime_ns == b->mtime_ns;
}

static void brief_of(struct brief *b, const struct mrec *m)
{
	b->type = m->type;
	b->mode = m->mode;
	b->uid = m->uid;
	b->gid = m->gid;
	b->size = m->size;
	b->hash = m->hash;
	b->ino = m->ino;
	b->mtime = m->mtime;
	b->ctime = m->ctime;
	b->mtime_ns = m->mtime_ns;
	b->ctime_ns = m->ctime_ns;
}

static void rec_of(struct mrec *m, const struct brief *b)
{
	m->type = b->type;
	m->mode = b->mode;
	m->uid = b->uid;
	m->gid = b->gid;
	m->size = b->size;
	m->hash = b->hash;
	m->ino = b->ino;
	m->mtime = b->mtime;
	m->ctime = b->ctime;
	m->mtime_ns = b->mtime_ns;
	m->ctime_ns = b->ctime_ns;
}

/* The user's entry against a base record. *ust is its lstat; *uhash is set
 * when it had to be computed (or is known equal to the base's). */
static int user_state(int udir, const char *name, const struct mrec *base, struct stat *ust,
		      uint64_t *uhash, int *uhash_known)
{
	struct mrec u;

	*uhash_known = 0;
	if (udir < 0 || fstatat(udir, name, ust, AT_SYMLINK_NOFOLLOW) < 0)
		return U_ABSENT;
	if (!base)
		return U_CHANGED;
	if (base->ino && ust->st_ino == base->ino && ust->st_ctim.tv_sec == base->ctime &&
	    (uint32_t)ust->st_ctim.tv_nsec == base->ctime_ns &&
	    tc_type(ust->st_mode) == base->type) {
		*uhash = base->hash;
		*uhash_known = 1;
		return U_SAME;
	}
	fill(&u, ust);
	if (!meta_eq(&u, base) || tc_hash(udir, name, ust, uhash) < 0)
		return U_CHANGED;
	*uhash_known = 1;
	return *uhash == base->hash ? U_SAME : U_CHANGED;
}

int copyup_user_state(int udir, const char *name, const struct mrec *base, struct stat *ust)
{
	uint64_t h;
	int known;

	return user_state(udir, name, base, ust, &h, &known);
}

/* ---- names of one directory, sorted, on the arena ------------------------ */

static const char *sort_base;

static int by_name(const void *a, const void *b)
{
	return strcmp(sort_base + *(const uint32_t *)a, sort_base + *(const uint32_t *)b);
}

static int add_name(const char *name, unsigned char type, void *arg)
{
	struct run *r = arg;
	size_t n = strlen(name) + 1;

	(void)type;
	if (r->nused + n > NAMES_BYTES || r->iused == INDEX_SLOTS)
		return -E2BIG;
	memcpy(r->names + r->nused, name, n);
	r->index[r->iused++] = (uint32_t)r->nused;
	r->nused += n;
	return 0;
}

static int read_names(struct run *r, int dir, size_t *first, size_t *count)
{
	int rc;

	*first = r->iused;
	*count = 0;
	if (lseek(dir, 0, SEEK_SET) < 0)
		return -errno;
	rc = sys_dir_each(dir, add_name, r);
	if (rc < 0)
		return rc;
	*count = r->iused - *first;
	sort_base = r->names;
	qsort(r->index + *first, *count, sizeof(uint32_t), by_name);
	return 0;
}

static int has_name(struct run *r, size_t first, size_t count, const char *name)
{
	size_t lo = first, hi = first + count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(r->names + r->index[mid], name);

		if (c == 0)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* ---- hard links of the image ------------------------------------------------ */

static int link_find(struct links *l, uint64_t ino)
{
	for (unsigned i = (unsigned)(ino * 0x9e3779b97f4a7c15ull >> 48) & (LINK_SLOTS - 1);;
	     i = (i + 1) & (LINK_SLOTS - 1)) {
		if (!l->ino[i] || l->ino[i] == ino)
			return (int)i;
	}
}

static void link_add(struct run *r, uint64_t ino, uint64_t hash)
{
	struct links *l = &r->links;
	int i;

	if (!l->ino || ino == 0)
		return;
	if (l->n + 1 >= LINK_SLOTS / 2 || l->used + r->plen + 1 > LINK_BYTES) {
		if (!l->full)
			log_warn("copy-up: more hard-linked files than the table holds; the rest are copied, not linked");
		l->full = 1;
		return;
	}
	i = link_find(l, ino);
	if (l->ino[i])
		return;
	l->ino[i] = ino;
	l->hash[i] = hash;
	l->off[i] = (uint32_t)l->used;
	memcpy(l->paths + l->used, r->path, r->plen + 1);
	l->used += r->plen + 1;
	l->n++;
}

/* Links ddir/dname to the earlier path of the same image inode, if any. */
static int link_try(struct run *r, uint64_t ino, int ddir, const char *dname, uint64_t *hash)
{
	struct links *l = &r->links;
	char parent[MF_PATH_MAX];
	const char *p, *slash;
	int i, pfd, rc;

	if (!l->ino)
		return 0;
	i = link_find(l, ino);
	if (!l->ino[i])
		return 0;
	p = l->paths + l->off[i];
	slash = strrchr(p, '/');
	if (slash) {
		memcpy(parent, p, (size_t)(slash - p));
		parent[slash - p] = '\0';
		pfd = sys_openat2(r->top, parent, O_PATH | O_DIRECTORY,
				  RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV);
		if (pfd < 0)
			return 0; /* copy instead */
	} else {
		pfd = r->top;
	}
	rc = linkat(pfd, slash ? slash + 1 : p, ddir, dname, 0) < 0 ? -errno : 1;
	if (pfd != r->top)
		close(pfd);
	if (rc < 0)
		return 0;
	*hash = l->hash[i];
	return 1;
}

/* ---- landing ------------------------------------------------------------------ */

static int to_trash(struct run *r, int dir, const char *name)
{
	char dst[64];

	for (;;) {
		if (strfmt(dst, sizeof(dst), "copyup.%llu.%u", (unsigned long long)sys_now_ms(),
			   r->seq++) < 0)
			return -ENAMETOOLONG;
		if (renameat(dir, name, r->trash, dst) == 0)
			return 0;
		if (errno != EEXIST && errno != ENOTEMPTY)
			return -errno;
	}
}

static int fsync_at(int dir, const char *name)
{
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY), rc = 0;

	if (fd < 0)
		return errno == ELOOP ? 0 : -errno; /* a symlink: its rename is the commit */
	if (fsync(fd) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* Makes theirs (idir/name, lstat tst) the user's entry at udir/name, which
 * may hold something (ust valid when uhave). Staged and renamed in place. */
static int install(struct run *r, int idir, int udir, const char *name, const struct stat *tst,
		   int uhave, const struct stat *ust, uint64_t *hash)
{
	int rc, linked = 0;

	if (r->action == CU_COPY) {
		if (!S_ISDIR(tst->st_mode) && tst->st_nlink > 1)
			linked = link_try(r, tst->st_ino, udir, name, hash);
		return linked ? 0 : tc_copy(idir, name, tst, udir, name, hash, &r->tc);
	}
	if (S_ISDIR(tst->st_mode) && uhave && S_ISDIR(ust->st_mode)) {
		rc = tc_dir_meta(idir, name, tst, udir, name);
		if (rc == 0)
			rc = tc_hash(idir, name, tst, hash);
		return rc;
	}
	if (unlinkat(r->stage, "f", 0) < 0 && errno == EISDIR) {
		struct stat sst;

		/* a directory left in the stage by a failed swap: the stage is ours */
		if (fstat(r->stage, &sst) == 0)
			IGNORE(rmtree_contents(r->stage, sst.st_dev)); /* the next copy says EEXIST if not */
	}
	if (!S_ISDIR(tst->st_mode) && tst->st_nlink > 1)
		linked = link_try(r, tst->st_ino, r->stage, "f", hash);
	if (!linked) {
		rc = tc_copy(idir, name, tst, r->stage, "f", hash, &r->tc);
		if (rc == 0 && S_ISREG(tst->st_mode))
			rc = fsync_at(r->stage, "f");
		if (rc < 0)
			return rc;
	}
	if (uhave && (S_ISDIR(ust->st_mode) || S_ISDIR(tst->st_mode))) {
		/* a directory on either side cannot be renamed over: swap, then
		 * the old one goes to the trash (a cut leaves old or new) */
		rc = sys_renameat2(r->stage, "f", udir, name, RENAME_EXCHANGE);
		if (rc == 0)
			return to_trash(r, r->stage, "f");
		rc = to_trash(r, udir, name);
		if (rc < 0)
			return rc;
	}
	return renameat(r->stage, "f", udir, name) < 0 ? -errno : 0;
}

/* ---- the walk ------------------------------------------------------------------ */

static int emit(struct run *r, int rec, int udir, const char *name, uint64_t hash,
		const struct mrec *theirs)
{
	struct stat st;

	if (rec == R_DROP)
		return 0;
	r->rec = *theirs; /* path included */
	r->rec.hash = hash;
	if (rec == R_STAMPED && udir >= 0 && fstatat(udir, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		stamp(&r->rec, &st);
	memcpy(r->rec.path, r->path, r->plen + 1);
	r->res->entries++;
	return mwriter_add(r->w, &r->rec);
}

static int fatal(int rc)
{
	return rc == -ENOSPC || rc == -EROFS || rc == -EIO || rc == -EDQUOT || rc == -ENOMEM ||
	       rc == -EBADMSG || rc == -E2BIG;
}

static int walk(struct run *r, int idir, int udir, int depth);

/* The manifest's next record lies under the current directory and is not
 * in the image any more (r->path is the directory; restored on return). */
static int removed(struct run *r, int udir, int depth)
{
	size_t mine = strlen(r->m->cur.path), parent = r->plen;
	struct cu_facts f = { 1, U_ABSENT, T_ABSENT, 0, udir < 0, r->action == CU_RESTORE };
	struct cu_decision d;
	char name[NAME_MAX_ + 1];
	struct brief b;
	struct mrec base;
	struct stat ust;
	uint64_t uh;
	int known, rc, child = -1;

	if (depth > DEPTH_MAX || mine >= sizeof(r->path) || strlen(last_name(r->m->cur.path)) > NAME_MAX_)
		return -E2BIG;
	memcpy(r->path, r->m->cur.path, mine + 1);
	r->plen = mine;
	memcpy(name, last_name(r->path), strlen(last_name(r->path)) + 1);
	brief_of(&b, &r->m->cur);
	rc = mreader_next(r->m);
	if (rc < 0)
		return rc;
	rec_of(&base, &b);
	f.user = user_state(udir, name, &base, &ust, &uh, &known);
	d = copyup_decide(&f);
	if (b.type == 'd' && f.user != U_ABSENT && S_ISDIR(ust.st_mode))
		child = openat(udir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	while (b.type == 'd' && r->m->have && mf_path_under(r->m->cur.path, r->path)) {
		rc = removed(r, child, depth + 1);
		path_pop(r, mine);
		if (rc < 0) {
			if (child >= 0)
				close(child);
			return rc;
		}
	}
	if (child >= 0)
		close(child);
	if (d.act == A_REMOVE) {
		int flags = f.user != U_ABSENT && S_ISDIR(ust.st_mode) ? AT_REMOVEDIR : 0;

		if (unlinkat(udir, name, flags) == 0) {
			r->res->removed++;
		} else if (errno == ENOTEMPTY || errno == EEXIST) {
			if (r->action == CU_RESTORE && to_trash(r, udir, name) == 0) {
				r->res->removed++;
			} else {
				r->res->kept++;
				note(r, "left the image but holds your files; kept");
			}
		} else if (errno != ENOENT) {
			rc = -errno;
			path_pop(r, parent);
			return rc;
		}
	} else if (d.act == A_KEEP_USER) {
		r->res->kept++;
		if (d.note == N_KEPT_REMOVED)
			note(r, "left the image; your changed copy is kept");
	}
	path_pop(r, parent);
	return 0;
}

/* One record of the manifest under r->path that the image no longer has. */
static int drain_one(struct run *r, int udir, int depth)
{
	size_t here = r->plen;
	int rc;

	if (strchr(r->m->cur.path + (here ? here + 1 : 0), '/'))
		return mreader_next(r->m); /* deeper than a child, without its parent: skip */
	rc = removed(r, udir, depth);
	path_pop(r, here);
	return rc;
}

static int drain(struct run *r, int udir, int depth)
{
	while (r->m->have && mf_path_under(r->m->cur.path, r->path)) {
		int rc = drain_one(r, udir, depth);

		if (rc < 0)
			return rc;
	}
	return 0;
}

static int entry(struct run *r, int idir, int udir, const char *name, int depth, int parent_gone)
{
	struct cu_facts f = { 0, U_ABSENT, T_CHANGED, 0, parent_gone, r->action == CU_RESTORE };
	struct cu_decision d;
	struct stat tst, ust;
	struct mrec theirs, *base = NULL;
	uint64_t th = 0, uh = 0;
	int th_known = 0, uh_known = 0, uhave, rc, cmp = 1;
	size_t dirlen = r->plen, old;

	rc = path_push(r, name, &old);
	if (rc < 0)
		return rc;
	/* the manifest's records before this path left the image */
	while (r->m->have && (cmp = mf_path_cmp(r->m->cur.path, r->path)) < 0) {
		path_pop(r, dirlen);
		rc = drain_one(r, udir, depth);
		if (rc < 0)
			return rc;
		IGNORE(path_push(r, name, &old)); /* fitted before */
	}
	if (fstatat(idir, name, &tst, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!tc_type(tst.st_mode)) {
		path_pop(r, old);
		return 0;
	}
	fill(&theirs, &tst);
	if (r->m->have && cmp == 0) {
		base = &r->m->cur;
		f.base = 1;
		if (meta_eq(&theirs, base)) {
			rc = tc_hash(idir, name, &tst, &th);
			if (rc < 0)
				return rc;
			th_known = 1;
			f.theirs = th == base->hash ? T_SAME : T_CHANGED;
		}
	}
	f.user = parent_gone ? U_ABSENT : user_state(udir, name, base, &ust, &uh, &uh_known);
	uhave = f.user != U_ABSENT;
	if (uhave) {
		struct mrec u;

		fill(&u, &ust);
		if (meta_eq(&u, &theirs)) {
			if (!th_known && tc_hash(idir, name, &tst, &th) == 0)
				th_known = 1;
			if (!uh_known && tc_hash(udir, name, &ust, &uh) == 0)
				uh_known = 1;
			f.user_is_theirs = th_known && uh_known && th == uh;
		}
	}
	d = copyup_decide(&f);
	if (base) {
		base = NULL; /* the cursor moves on now */
		rc = mreader_next(r->m);
		if (rc < 0)
			return rc;
	}
	switch (d.act) {
	case A_INSTALL:
		rc = install(r, idir, udir, name, &tst, uhave, &ust, &th);
		if (rc < 0) {
			if (fatal(rc))
				return rc;
			r->res->errors++;
			note(r, "could not be copied from the image");
			log_warn("copy-up: /%s: %s", r->path, strerror(-rc));
			d.rec = R_UNSTAMPED;
			rc = tc_hash(idir, name, &tst, &th);
			if (rc < 0)
				return rc; /* the image itself is unreadable */
		}
		th_known = 1;
		if (r->action != CU_COPY && (uhave || f.base))
			r->res->updated++;
		else
			r->res->copied++;
		break;
	case A_KEEP_USER:
		r->res->kept++;
		if (d.note == N_CONFLICT) {
			r->res->conflicts++;
			note(r, "changed by you and in the image; your version is kept");
		}
		break;
	default:
		if (d.note == N_STAYS_DELETED) {
			r->res->stay_deleted++;
			note(r, "deleted by you and changed in the image; stays deleted");
		}
		break;
	}
	if (!th_known && d.rec != R_DROP) {
		rc = tc_hash(idir, name, &tst, &th);
		if (rc < 0)
			return rc;
	}
	if (d.rec == R_STAMPED && tst.st_nlink > 1 && !S_ISDIR(tst.st_mode))
		link_add(r, tst.st_ino, th);
	rc = emit(r, d.rec, udir, name, th, &theirs);
	if (rc < 0)
		return rc;

	if (S_ISDIR(tst.st_mode)) {
		int ichild, uchild = -1;
		struct stat now;

		ichild = openat(idir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (ichild < 0)
			return -errno;
		if (udir >= 0 && !parent_gone && fstatat(udir, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(now.st_mode))
			uchild = openat(udir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		rc = walk(r, ichild, uchild, depth + 1);
		if (rc == 0 && d.act == A_INSTALL && uchild >= 0)
			IGNORE(tc_times(udir, name, &tst)); /* times are cosmetic for a directory */
		close(ichild);
		if (uchild >= 0)
			close(uchild);
	} else if (r->m->have && mf_path_under(r->m->cur.path, r->path)) {
		/* a directory in the base became something else in the image */
		int uchild = -1;
		struct stat now;

		if (udir >= 0 && fstatat(udir, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(now.st_mode))
			uchild = openat(udir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		rc = drain(r, uchild, depth + 1);
		if (uchild >= 0)
			close(uchild);
	}
	path_pop(r, old);
	return rc;
}

static int walk(struct run *r, int idir, int udir, int depth)
{
	size_t mark_n = r->nused, mark_i = r->iused, first, count;
	int rc, parent_gone = udir < 0 && r->action == CU_MERGE;

	if (depth > DEPTH_MAX)
		return -E2BIG;
	rc = read_names(r, idir, &first, &count);
	for (size_t i = 0; rc == 0 && i < count; i++)
		rc = entry(r, idir, udir, r->names + r->index[first + i], depth, parent_gone);
	if (rc == 0)
		rc = drain(r, udir, depth);
	if (rc == 0 && r->action == CU_RESTORE && udir >= 0) {
		/* the user's own entries: a reset takes them away */
		size_t ufirst, ucount;

		rc = read_names(r, udir, &ufirst, &ucount);
		for (size_t i = 0; rc == 0 && i < ucount; i++) {
			const char *nm = r->names + r->index[ufirst + i];

			if (has_name(r, first, count, nm))
				continue;
			rc = to_trash(r, udir, nm);
			if (rc == 0)
				r->res->removed++;
		}
	}
	r->nused = mark_n;
	r->iused = mark_i;
	return rc;
}

static int open_dir(int at, const char *name)
{
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int ensure_dir(int at, const char *name)
{
	if (mkdirat(at, name, 0700) < 0 && errno != EEXIST)
		return -errno;
	return open_dir(at, name);
}

static void run_close(struct run *r)
{
	int *fds[] = { &r->state, &r->stage, &r->trash, &r->top };

	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	if (r->names)
		munmap(r->names, NAMES_BYTES);
	if (r->index)
		munmap(r->index, INDEX_SLOTS * sizeof(uint32_t));
	if (r->links.ino)
		munmap(r->links.ino, LINK_SLOTS * sizeof(uint64_t));
	if (r->links.hash)
		munmap(r->links.hash, LINK_SLOTS * sizeof(uint64_t));
	if (r->links.off)
		munmap(r->links.off, LINK_SLOTS * sizeof(uint32_t));
	if (r->links.paths)
		munmap(r->links.paths, LINK_BYTES);
	memset(&r->links, 0, sizeof(r->links));
	r->names = NULL;
	r->index = NULL;
}

static int run_open(struct run *r, int img, int rw, int action, struct copyup_result *res)
{
	struct stat st;
	int rc;

	memset(r, 0, sizeof(*r));
	r->state = r->stage = r->trash = r->top = -1;
	r->action = action;
	r->img = img;
	r->rw = rw;
	r->res = res;
	r->m = &reader;
	r->w = &writer;
	r->names = arena(NAMES_BYTES);
	r->index = arena(INDEX_SLOTS * sizeof(uint32_t));
	r->links.ino = arena(LINK_SLOTS * sizeof(uint64_t));
	r->links.hash = arena(LINK_SLOTS * sizeof(uint64_t));
	r->links.off = arena(LINK_SLOTS * sizeof(uint32_t));
	r->links.paths = arena(LINK_BYTES);
	if (!r->names || !r->index || !r->links.ino || !r->links.hash || !r->links.off ||
	    !r->links.paths)
		return -ENOMEM;
	r->state = open_dir(rw, BRANCH_STATE);
	if (r->state < 0)
		return r->state;
	r->trash = ensure_dir(r->state, BRANCH_TRASH);
	if (r->trash < 0)
		return r->trash;
	r->stage = ensure_dir(r->state, COPYUP_STAGE);
	if (r->stage < 0)
		return r->stage;
	/* one run at a time on a branch (the lock goes with the process) */
	if (flock(r->stage, LOCK_EX | LOCK_NB) < 0)
		return errno == EWOULDBLOCK ? -EBUSY : -errno;
	/* whatever a cut left in the stage is not in the tree: drop it */
	if (fstat(r->stage, &st) < 0)
		return -errno;
	rc = rmtree_contents(r->stage, st.st_dev);
	return rc;
}

int copyup_run(int img, int rw, int action, const char *image_id, struct copyup_result *res)
{
	struct run *r = &R;
	struct stat st;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = run_open(r, img, rw, action, res);
	if (rc < 0)
		goto out;
	mreader_empty(r->m);
	if (action != CU_COPY) {
		rc = mreader_open(r->m, r->state, MF_NAME);
		if (rc == -EBADMSG) {
			res->base_damaged = 1;
			memcpy(res->base_err, r->m->err, sizeof(res->base_err));
			mreader_close(r->m);
		} else if (rc < 0 && rc != -ENOENT) {
			goto out;
		}
	}
	if (action == CU_COPY) {
		rc = ensure_dir(r->stage, "tree");
		if (rc < 0)
			goto out;
		r->top = rc;
		if (fstat(img, &st) < 0 || (rc = tc_dir_meta(img, ".", &st, r->stage, "tree")) < 0)
			goto out;
	} else {
		rc = open_dir(rw, BRANCH_UPPER);
		if (rc < 0)
			goto out;
		r->top = rc;
	}
	rc = mwriter_open(r->w, r->state, image_id);
	if (rc < 0)
		goto out_w;
	rc = walk(r, img, r->top, 0);
	if (rc < 0)
		goto out_w;
	res->bytes = r->tc.bytes;
	res->xattr_errors = r->tc.xattr_errors;
	/* everything landed must be on disk before the manifest says so */
	if (syncfs(r->top) < 0) {
		rc = -errno;
		goto out_w;
	}
	if (action == CU_COPY) {
		if (fstat(img, &st) == 0)
			IGNORE(tc_times(r->stage, "tree", &st)); /* cosmetic */
		if (renameat(r->stage, "tree", rw, BRANCH_UPPER) < 0 || fsync(rw) < 0) {
			rc = -errno;
			goto out_w;
		}
	}
	rc = mwriter_commit(r->w);
	goto out;
out_w:
	mwriter_abort(r->w);
out:
	mreader_close(r->m);
	run_close(r);
	return rc;
}
