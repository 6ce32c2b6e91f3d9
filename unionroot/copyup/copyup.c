// SPDX-License-Identifier: MIT
/* Carries out a copy-up: the first copy, a merge after an image upgrade, a
 * restore (reset). One walk of the image in tree order beside the old
 * manifest, so memory stays bounded: names of the directories on the current
 * path, and a table of hard-linked inodes (walktab.c).
 *
 * Crash safety: the first copy builds .unionroot/stage/tree and renames it
 * over the empty upper/ after a syncfs; a merge stages each file (fsynced)
 * and renames it into place, so every path holds the old or the new version;
 * removals are unlinks. The new manifest is committed last: until then the
 * old one is the base, and a re-run sees installed files equal to the image
 * (decided "equal to theirs") and converges to the same tree.
 *
 * This file walks; copyup_land.c lands an entry, copyup_gone.c handles what
 * left the image, copyup_note.c shows the warnings. */
#include "copyup/copyup_walk.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "branch/branch.h"
#include "copyup/copyup_rec.h"
#include "lib/log.h"
#include "lib/rmtree.h"
#include "lib/sys.h"

static struct mreader reader;
static struct mwriter writer;
static struct run R;

/* ---- the walk ------------------------------------------------------------------ */

static int emit(struct run *r, int rec, int udir, const char *name, uint64_t hash,
		const struct mrec *theirs)
{
	struct stat st;

	if (rec == CU_REC_DROP)
		return 0;
	r->rec = *theirs; /* path included */
	r->rec.hash = hash;
	if (rec == CU_REC_STAMPED && udir >= 0 && fstatat(udir, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
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

/* One entry of the image as the walk meets it: its lstat and record, the
 * user's copy, and the facts of the decision. */
struct ent {
	struct stat tst, ust;
	struct mrec theirs;
	uint64_t th;               /* the image's hash, when th_known */
	int th_known, uhave;
	struct cu_facts f;
};

/* The facts of idir/name (r->rel.s): the image's entry against the
 * manifest's record at the cursor (cmp == 0), the user's copy against both.
 * The cursor then moves past that record. 0 or -errno. */
static int entry_facts(struct run *r, int idir, int udir, const char *name, int cmp, struct ent *e)
{
	const struct mrec *base = NULL;
	uint64_t uh = 0;
	int uh_known = 0, rc;

	rec_fill(&e->theirs, &e->tst);
	if (r->m->have && cmp == 0) {
		base = &r->m->cur;
		e->f.base = 1;
		if (rec_meta_eq(&e->theirs, base)) {
			rc = tc_hash(idir, name, &e->tst, &e->th);
			if (rc < 0)
				return rc;
			e->th_known = 1;
			e->f.theirs = e->th == base->hash ? CU_THEIRS_SAME : CU_THEIRS_CHANGED;
		}
	}
	if (!e->f.parent_gone)
		e->f.user = rec_user_state(udir, name, base, &e->ust, &uh, &uh_known);
	e->uhave = e->f.user != CU_USER_ABSENT;
	if (e->uhave) {
		struct mrec u;

		rec_fill(&u, &e->ust);
		if (rec_meta_eq(&u, &e->theirs)) {
			if (!e->th_known && tc_hash(idir, name, &e->tst, &e->th) == 0)
				e->th_known = 1;
			if (!uh_known && tc_hash(udir, name, &e->ust, &uh) == 0)
				uh_known = 1;
			e->f.user_is_theirs = e->th_known && uh_known && e->th == uh;
		}
	}
	rc = base ? mreader_next(r->m) : 0;
	return rc < 0 ? rc : 0;
}

/* Carries out decision d for idir/name, counts it, and writes its record.
 * 0, or -errno when the run cannot go on. */
static int entry_act(struct run *r, int idir, int udir, const char *name, struct ent *e,
		     struct cu_decision *d)
{
	int rc;

	switch (d->act) {
	case CU_ACT_INSTALL:
		rc = cu_install(r, idir, udir, name, &e->tst, e->uhave, &e->ust, &e->th);
		if (rc < 0) {
			if (fatal(rc))
				return rc;
			r->res->errors++;
			cu_note(r, "could not be copied from the image");
			log_warn("copy-up: /%s: %s", r->rel.s, strerror(-rc));
			d->rec = CU_REC_UNSTAMPED;
			rc = tc_hash(idir, name, &e->tst, &e->th);
			if (rc < 0)
				return rc; /* the image itself is unreadable */
		}
		e->th_known = 1;
		if (r->action != CU_COPY && (e->uhave || e->f.base))
			r->res->updated++;
		else
			r->res->copied++;
		break;
	case CU_ACT_KEEP_USER:
		r->res->kept++;
		if (d->note == CU_NOTE_CONFLICT) {
			r->res->conflicts++;
			cu_note(r, "changed by you and in the image; your version is kept");
		}
		break;
	default:
		if (d->note == CU_NOTE_STAYS_DELETED) {
			r->res->stay_deleted++;
			cu_note(r, "deleted by you and changed in the image; stays deleted");
		}
		break;
	}
	if (!e->th_known && d->rec != CU_REC_DROP) {
		rc = tc_hash(idir, name, &e->tst, &e->th);
		if (rc < 0)
			return rc;
	}
	if (d->rec == CU_REC_STAMPED && e->tst.st_nlink > 1 && !S_ISDIR(e->tst.st_mode))
		linktab_add(&r->links, e->tst.st_ino, e->th, r->rel.s, r->rel.len);
	return emit(r, d->rec, udir, name, e->th, &e->theirs);
}

/* The user's directory udir/name: its fd, or -1 when it is none. */
static int user_dir(int udir, const char *name)
{
	struct stat now;

	if (udir < 0 || fstatat(udir, name, &now, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(now.st_mode))
		return -1;
	return openat(udir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* What lies below idir/name: the image's directory, walked; or the
 * manifest's records under a directory that became something else. */
static int entry_below(struct run *r, int idir, int udir, const char *name, int depth,
		       const struct ent *e, int installed)
{
	int rc, uchild;

	if (S_ISDIR(e->tst.st_mode)) {
		int ichild = openat(idir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (ichild < 0)
			return -errno;
		uchild = e->f.parent_gone ? -1 : user_dir(udir, name);
		rc = walk(r, ichild, uchild, depth + 1);
		if (rc == 0 && installed && uchild >= 0)
			IGNORE(tc_times(udir, name, &e->tst)); /* times are cosmetic for a directory */
		close(ichild);
	} else if (r->m->have && mf_path_under(r->m->cur.path, r->rel.s)) {
		uchild = user_dir(udir, name);
		rc = cu_drain(r, uchild, depth + 1);
	} else {
		return 0;
	}
	if (uchild >= 0)
		close(uchild);
	return rc;
}

static int entry(struct run *r, int idir, int udir, const char *name, int depth, int parent_gone)
{
	struct ent e = { .f = { 0, CU_USER_ABSENT, CU_THEIRS_CHANGED, 0, parent_gone, r->action == CU_RESTORE } };
	struct cu_decision d;
	size_t dirlen = r->rel.len, old;
	int rc, cmp = 1;

	rc = relpath_push(&r->rel, name, &old);
	if (rc < 0)
		return rc;
	/* the manifest's records before this path left the image */
	while (r->m->have && (cmp = mf_path_cmp(r->m->cur.path, r->rel.s)) < 0) {
		relpath_pop(&r->rel, dirlen);
		rc = cu_drain_one(r, udir, depth);
		if (rc < 0)
			return rc;
		IGNORE(relpath_push(&r->rel, name, &old)); /* fitted before */
	}
	if (fstatat(idir, name, &e.tst, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	rc = 0;
	if (tc_type(e.tst.st_mode)) {
		rc = entry_facts(r, idir, udir, name, cmp, &e);
		if (rc == 0) {
			d = copyup_decide(&e.f);
			rc = entry_act(r, idir, udir, name, &e, &d);
		}
		if (rc == 0)
			rc = entry_below(r, idir, udir, name, depth, &e, d.act == CU_ACT_INSTALL);
		else
			return rc;
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
		rc = cu_drain(r, udir, depth);
	if (rc == 0 && r->action == CU_RESTORE && udir >= 0) {
		/* the user's own entries: a reset takes them away */
		size_t ufirst, ucount;

		rc = nametab_read(&r->names, udir, &ufirst, &ucount);
		for (size_t i = 0; rc == 0 && i < ucount; i++) {
			const char *nm = nametab_name(&r->names, ufirst + i);

			if (nametab_has(&r->names, first, count, nm))
				continue;
			rc = cu_to_trash(r, udir, nm);
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
