// SPDX-License-Identifier: MIT
/* Carries out a copy-up: the first copy, a merge after an image upgrade, a
 * restore (reset). One walk of the image in tree order beside the old
 * manifest, so memory stays bounded: names of the directories on the current
 * path, and a table of hard-linked inodes (copyup_tables.c).
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
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "branch.h"
#include "copyup_rec.h"
#include "copyup_tables.h"
#include "log.h"
#include "relpath.h"
#include "rmtree.h"
#include "sbuf.h"
#include "sys.h"
#include "treecopy.h"

#define DEPTH_MAX 256
#define NOTES_MAX 8
#define NAME_MAX_ 255

struct run {
	int action, img, top, rw, state, stage, trash;
	struct mreader *m;
	struct mwriter *w;
	struct copyup_result *res;
	struct tc_stats tc;
	struct relpath rel;
	struct nametab names;
	struct linktab links;
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

static void note(struct run *r, const char *what)
{
	if (r->notes++ < NOTES_MAX)
		log_warn("copy-up: /%s %s", r->rel.s, what);
	else if (r->notes == NOTES_MAX + 1)
		log_warn("copy-up: more notes like these are not shown");
}

static const char *last_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
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

/* ---- hard links of the image ------------------------------------------------ */

/* Links ddir/dname to the earlier path of the same image inode, if any. */
static int link_try(struct run *r, uint64_t ino, int ddir, const char *dname, uint64_t *hash)
{
	char parent[MF_PATH_MAX];
	const char *p = linktab_find(&r->links, ino, hash), *slash;
	int pfd, rc;

	if (!p)
		return 0;
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
	return rc < 0 ? 0 : 1;
}

/* ---- landing ------------------------------------------------------------------ */

static int to_trash(struct run *r, int dir, const char *name)
{
	char dst[64];

	for (;;) {
		if (strfmt(dst, sizeof(dst), "copyup.%llu.%u", (unsigned long long)sys_now_ms(),
			   r->seq++) < 0)
			return -ENAMETOOLONG;
		if (sys_renameat(dir, name, r->trash, dst) == 0)
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
	return sys_renameat(r->stage, "f", udir, name) < 0 ? -errno : 0;
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
		rec_stamp(&r->rec, &st);
	memcpy(r->rec.path, r->rel.s, r->rel.len + 1);
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
 * in the image any more (r->rel.s is the directory; restored on return). */
static int removed(struct run *r, int udir, int depth)
{
	size_t mine = strlen(r->m->cur.path), parent = r->rel.len;
	struct cu_facts f = { 1, U_ABSENT, T_ABSENT, 0, udir < 0, r->action == CU_RESTORE };
	struct cu_decision d;
	char name[NAME_MAX_ + 1];
	struct brief b;
	struct mrec base;
	struct stat ust;
	uint64_t uh;
	int known, rc, child = -1;

	if (depth > DEPTH_MAX || mine >= sizeof(r->rel.s) || strlen(last_name(r->m->cur.path)) > NAME_MAX_)
		return -E2BIG;
	memcpy(r->rel.s, r->m->cur.path, mine + 1);
	r->rel.len = mine;
	memcpy(name, last_name(r->rel.s), strlen(last_name(r->rel.s)) + 1);
	brief_of(&b, &r->m->cur);
	rc = mreader_next(r->m);
	if (rc < 0)
		return rc;
	rec_of(&base, &b);
	f.user = rec_user_state(udir, name, &base, &ust, &uh, &known);
	d = copyup_decide(&f);
	if (b.type == 'd' && f.user != U_ABSENT && S_ISDIR(ust.st_mode))
		child = openat(udir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	while (b.type == 'd' && r->m->have && mf_path_under(r->m->cur.path, r->rel.s)) {
		rc = removed(r, child, depth + 1);
		relpath_pop(&r->rel, mine);
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
			relpath_pop(&r->rel, parent);
			return rc;
		}
	} else if (d.act == A_KEEP_USER) {
		r->res->kept++;
		if (d.note == N_KEPT_REMOVED)
			note(r, "left the image; your changed copy is kept");
	}
	relpath_pop(&r->rel, parent);
	return 0;
}

/* One record of the manifest under r->rel.s that the image no longer has. */
static int drain_one(struct run *r, int udir, int depth)
{
	size_t here = r->rel.len;
	int rc;

	if (strchr(r->m->cur.path + (here ? here + 1 : 0), '/'))
		return mreader_next(r->m); /* deeper than a child, without its parent: skip */
	rc = removed(r, udir, depth);
	relpath_pop(&r->rel, here);
	return rc;
}

static int drain(struct run *r, int udir, int depth)
{
	while (r->m->have && mf_path_under(r->m->cur.path, r->rel.s)) {
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
	size_t dirlen = r->rel.len, old;

	rc = relpath_push(&r->rel, name, &old);
	if (rc < 0)
		return rc;
	/* the manifest's records before this path left the image */
	while (r->m->have && (cmp = mf_path_cmp(r->m->cur.path, r->rel.s)) < 0) {
		relpath_pop(&r->rel, dirlen);
		rc = drain_one(r, udir, depth);
		if (rc < 0)
			return rc;
		IGNORE(relpath_push(&r->rel, name, &old)); /* fitted before */
	}
	if (fstatat(idir, name, &tst, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!tc_type(tst.st_mode)) {
		relpath_pop(&r->rel, old);
		return 0;
	}
	rec_fill(&theirs, &tst);
	if (r->m->have && cmp == 0) {
		base = &r->m->cur;
		f.base = 1;
		if (rec_meta_eq(&theirs, base)) {
			rc = tc_hash(idir, name, &tst, &th);
			if (rc < 0)
				return rc;
			th_known = 1;
			f.theirs = th == base->hash ? T_SAME : T_CHANGED;
		}
	}
	f.user = parent_gone ? U_ABSENT : rec_user_state(udir, name, base, &ust, &uh, &uh_known);
	uhave = f.user != U_ABSENT;
	if (uhave) {
		struct mrec u;

		rec_fill(&u, &ust);
		if (rec_meta_eq(&u, &theirs)) {
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
			log_warn("copy-up: /%s: %s", r->rel.s, strerror(-rc));
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
		linktab_add(&r->links, tst.st_ino, th, r->rel.s, r->rel.len);
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
	} else if (r->m->have && mf_path_under(r->m->cur.path, r->rel.s)) {
		/* a directory in the base became something else in the image */
		int uchild = -1;
		struct stat now;

		if (udir >= 0 && fstatat(udir, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(now.st_mode))
			uchild = openat(udir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		rc = drain(r, uchild, depth + 1);
		if (uchild >= 0)
			close(uchild);
	}
	relpath_pop(&r->rel, old);
	return rc;
}

static int walk(struct run *r, int idir, int udir, int depth)
{
	size_t mark_n = r->names.nused, mark_i = r->names.iused, first, count;
	int rc, parent_gone = udir < 0 && r->action == CU_MERGE;

	if (depth > DEPTH_MAX)
		return -E2BIG;
	rc = nametab_read(&r->names, idir, &first, &count);
	for (size_t i = 0; rc == 0 && i < count; i++)
		rc = entry(r, idir, udir, nametab_name(&r->names, first + i), depth, parent_gone);
	if (rc == 0)
		rc = drain(r, udir, depth);
	if (rc == 0 && r->action == CU_RESTORE && udir >= 0) {
		/* the user's own entries: a reset takes them away */
		size_t ufirst, ucount;

		rc = nametab_read(&r->names, udir, &ufirst, &ucount);
		for (size_t i = 0; rc == 0 && i < ucount; i++) {
			const char *nm = nametab_name(&r->names, ufirst + i);

			if (nametab_has(&r->names, first, count, nm))
				continue;
			rc = to_trash(r, udir, nm);
			if (rc == 0)
				r->res->removed++;
		}
	}
	r->names.nused = mark_n;
	r->names.iused = mark_i;
	return rc;
}

static int open_dir(int at, const char *name)
{
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int ensure_dir(int at, const char *name)
{
	int fd;

	if (mkdirat(at, name, 0700) < 0 && errno != EEXIST)
		return -errno;
	fd = open_dir(at, name);
	if (fd != -ENOTDIR && fd != -ELOOP)
		return fd;
	/* a file, FIFO or symlink planted at a name of ours: replaced */
	if (unlinkat(at, name, 0) < 0 || mkdirat(at, name, 0700) < 0)
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
	nametab_close(&r->names);
	linktab_close(&r->links);
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
	if (nametab_open(&r->names) < 0 || linktab_open(&r->links) < 0)
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
		if (sys_renameat(r->stage, "tree", rw, BRANCH_UPPER) < 0 || fsync(rw) < 0) {
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
