// SPDX-License-Identifier: MIT
/* What the manifest has and the image no longer has: the user's copy is
 * removed when it is still the image's, kept when the user changed it, and
 * taken away by a reset (to the trash when it holds more). */
#include "copyup/copyup_walk.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "copyup/copyup_rec.h"
#include "lib/defs.h"

#define NAME_MAX_ 255

/* What removed() keeps of a manifest record while the cursor moves on. */
struct brief {
	char type;
	unsigned mode, uid, gid;
	uint64_t size, hash, ino;
	int64_t mtime, ctime;
	uint32_t mtime_ns, ctime_ns;
};

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

/* Removes the user's udir/name as decided (ust: its lstat when present):
 * 0, or -errno when the branch fails. */
static int remove_user(struct run *r, int udir, const char *name, int present, const struct stat *ust)
{
	int flags = present && S_ISDIR(ust->st_mode) ? AT_REMOVEDIR : 0;

	if (unlinkat(udir, name, flags) == 0) {
		r->res->removed++;
	} else if (errno == ENOTEMPTY || errno == EEXIST) {
		if (r->action == CU_RESTORE && cu_to_trash(r, udir, name) == 0) {
			r->res->removed++;
		} else {
			r->res->kept++;
			cu_note(r, "left the image but holds your files; kept");
		}
	} else if (errno != ENOENT) {
		return -errno;
	}
	return 0;
}

/* The manifest's next record lies under the current directory and is not
 * in the image any more (r->rel.s is the directory; restored on return). */
static int removed(struct run *r, int udir, int depth)
{
	size_t mine = strlen(r->m->cur.path), parent = r->rel.len;
	struct cu_facts f = { 1, CU_USER_ABSENT, CU_THEIRS_ABSENT, 0, udir < 0, r->action == CU_RESTORE };
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
	rc = 0;
	rec_of(&base, &b);
	f.user = rec_user_state(udir, name, &base, &ust, &uh, &known);
	d = copyup_decide(&f);
	if (b.type == 'd' && f.user != CU_USER_ABSENT && S_ISDIR(ust.st_mode))
		child = openat(udir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	while (rc == 0 && b.type == 'd' && r->m->have && mf_path_under(r->m->cur.path, r->rel.s)) {
		rc = removed(r, child, depth + 1);
		relpath_pop(&r->rel, mine);
	}
	if (child >= 0)
		close(child);
	if (rc < 0)
		return rc;
	if (d.act == CU_ACT_REMOVE) {
		rc = remove_user(r, udir, name, f.user != CU_USER_ABSENT, &ust);
	} else if (d.act == CU_ACT_KEEP_USER) {
		r->res->kept++;
		if (d.note == CU_NOTE_KEPT_REMOVED)
			cu_note(r, "left the image; your changed copy is kept");
	}
	relpath_pop(&r->rel, parent);
	return rc;
}

int cu_drain_one(struct run *r, int udir, int depth)
{
	size_t here = r->rel.len;
	int rc;

	if (strchr(r->m->cur.path + (here ? here + 1 : 0), '/'))
		return mreader_next(r->m); /* deeper than a child, without its parent: skip */
	rc = removed(r, udir, depth);
	relpath_pop(&r->rel, here);
	return rc;
}

int cu_drain(struct run *r, int udir, int depth)
{
	while (r->m->have && mf_path_under(r->m->cur.path, r->rel.s)) {
		int rc = cu_drain_one(r, udir, depth);

		if (rc < 0)
			return rc;
	}
	return 0;
}
