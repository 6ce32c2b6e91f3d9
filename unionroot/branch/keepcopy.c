// SPDX-License-Identifier: MIT
/* Keep-list walk. Each entry is copied by the copy-up backend's entry copy
 * (treecopy.c), so both keep file capabilities the same way. Parents of a
 * kept entry never take their opaque mark; a kept directory keeps it, a kept
 * whiteout stays a whiteout. Hard links become separate copies. */
#include "branch/keepcopy.h"
#include "lib/glob.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/treecopy.h"
#include "overlay/overlay.h"

struct kc {
	int old_root, new_root;
	dev_t dev;
	keepcopy_report_fn report;
	void *ctx;
	struct keepcopy_stats *st;
	struct tc_stats tc; /* the entry copy's counters: its xattr failures */
};

static void refuse(struct kc *k, const char *path, const char *why)
{
	k->st->refused++;
	if (k->report)
		k->report(path, why, k->ctx);
}

static int open_dir_at(int at, const char *name)
{
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* The entry copy carries no trusted.* (the overlay's own: origin, redirect
 * describe the old layers); a kept directory's opaque mark is the one that
 * still means something. */
static int carry_opaque(int od, int nd)
{
	char v[8];
	ssize_t n = fgetxattr(od, OVERLAY_OPAQUE, v, sizeof(v));

	if (n < 0)
		return errno == ENODATA || errno == ENOTSUP ? 0 : -errno;
	return fsetxattr(nd, OVERLAY_OPAQUE, v, (size_t)n, 0) < 0 ? -errno : 0;
}

static int copy_entry(struct kc *k, int od, int nd, const char *name, const char *path,
		      int depth);

struct dir_walk {
	struct kc *k;
	int od, nd, depth;
	const char *path;
	int rc;
};

static int copy_child(const char *name, unsigned char type, void *arg)
{
	struct dir_walk *w = arg;
	char path[4096];

	(void)type;
	if (strfmt(path, sizeof(path), "%s/%s", w->path, name) < 0) {
		refuse(w->k, w->path, "a name below it is too long");
		return 0;
	}
	w->rc = copy_entry(w->k, w->od, w->nd, name, path, w->depth + 1);
	return w->rc < 0 ? w->rc : 0;
}

/* The entries of a directory the entry copy made (or an earlier pattern:
 * merge, the kept directory's metadata wins), then its mark and times. */
static int copy_dir(struct kc *k, int od, int nd, const char *name, const char *path,
		    const struct stat *st, int depth, int merge)
{
	struct dir_walk w = { k, -1, -1, depth, path, 0 };
	int rc;

	w.od = open_dir_at(od, name);
	if (w.od < 0) {
		refuse(k, path, "cannot be opened");
		return 0;
	}
	w.nd = open_dir_at(nd, name);
	if (w.nd < 0) {
		close(w.od);
		return w.nd;
	}
	rc = merge ? tc_dir_meta(od, name, st, nd, name) : 0;
	if (rc == -EIO) { /* as tc_copy: an xattr the new directory refused */
		k->tc.xattr_errors++;
		rc = 0;
	}
	if (rc == 0)
		rc = sys_dir_each(w.od, copy_child, &w);
	if (rc == 0)
		rc = carry_opaque(w.od, w.nd);
	if (rc == 0)
		rc = tc_times(nd, name, st);
	close(w.od);
	close(w.nd);
	return rc;
}

/* Copies od/name to nd/name. < 0 only for failures of the new upper that
 * are worth stopping for (no space, read-only); the rest is reported. */
static int copy_entry(struct kc *k, int od, int nd, const char *name, const char *path,
		      int depth)
{
	unsigned xattr_errors = k->tc.xattr_errors;
	uint64_t hash; /* the copy-up manifest's; no use here */
	struct stat st;
	int rc;

	if (fstatat(od, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0; /* gone meanwhile */
	if (st.st_dev != k->dev) {
		refuse(k, path, "is on another file system");
		return 0;
	}
	if (S_ISSOCK(st.st_mode))
		return 0; /* meaningless after a reboot */
	if (S_ISDIR(st.st_mode) && depth > KEEPCOPY_DEPTH_MAX) {
		refuse(k, path, "nested too deep");
		return 0;
	}
	rc = tc_copy(od, name, &st, nd, name, &hash, &k->tc);
	if (rc == 0)
		k->st->copied++;
	if (rc == 0 && k->tc.xattr_errors != xattr_errors) /* this entry's, not its children's */
		refuse(k, path, "copied without some of its extended attributes");
	if (S_ISDIR(st.st_mode) && (rc == 0 || rc == -EEXIST))
		rc = copy_dir(k, od, nd, name, path, &st, depth, rc == -EEXIST);
	if (rc == -EEXIST)
		rc = 0; /* kept by an earlier pattern */
	if (rc == -ENOSPC || rc == -EROFS || rc == -EIO || rc == -EDQUOT)
		return rc;
	if (rc < 0) {
		char why[96];

		IGNORE(strfmt(why, sizeof(why), "copy failed: %s",
			      rc == -ESTALE ? "it changed while copying" : strerror(-rc))); /* fits */
		refuse(k, path, why);
	}
	return 0;
}

/* Enters directory name from *fd, closing the one it leaves. */
static int step_into(int *fd, const char *name)
{
	int sub = open_dir_at(*fd, name);

	if (sub < 0)
		return sub;
	close(*fd);
	*fd = sub;
	return 0;
}

/* Makes the new upper's directories for path's parents, each with the old
 * directory's owner, mode and xattrs (never its opaque mark: a parent must
 * not hide the image's other entries), and opens the deepest: an fd or
 * -errno; *old_out is the old upper's parent. */
static int new_parent(struct kc *k, const char *rel, int *old_out)
{
	char comp[256];
	int od = fcntl(k->old_root, F_DUPFD_CLOEXEC, 0), nd = fcntl(k->new_root, F_DUPFD_CLOEXEC, 0), rc = 0;

	if (od < 0 || nd < 0)
		rc = -errno;
	for (const char *c = rel; rc == 0;) {
		const char *slash = strchr(c, '/');
		uint64_t hash;
		struct stat st;

		if (!slash)
			break;
		if ((size_t)(slash - c) >= sizeof(comp)) {
			rc = -ENAMETOOLONG;
			break;
		}
		memcpy(comp, c, (size_t)(slash - c));
		comp[slash - c] = '\0';
		c = slash + 1;
		if (fstatat(od, comp, &st, AT_SYMLINK_NOFOLLOW) < 0)
			rc = -errno;
		else if (!S_ISDIR(st.st_mode))
			rc = -ENOTDIR;
		else if ((rc = tc_copy(od, comp, &st, nd, comp, &hash, &k->tc)) == -EEXIST)
			rc = 0;
		if (rc == 0)
			rc = step_into(&od, comp);
		if (rc == 0)
			rc = step_into(&nd, comp);
	}
	if (rc < 0) {
		if (od >= 0)
			close(od);
		if (nd >= 0)
			close(nd);
		return rc;
	}
	*old_out = od;
	return nd;
}

static int keep_match(struct kc *k, int od, const char *pat, char *rel, size_t rel_len);

struct glob_walk {
	struct kc *k;
	int od;
	const char *comp, *rest;
	char *rel;
	size_t rel_len;
	int rc;
};

/* One old-upper entry that matched a pattern component: the end of the
 * pattern copies it, a directory goes on, anything else stops the path. */
static int matched(struct kc *k, int od, const char *name, const char *rest, char *rel,
		   size_t rel_len)
{
	size_t len = rel_len + strlen(name) + (rel_len ? 1 : 0);
	struct stat st;
	int rc = 0;

	if (len >= 4096)
		return 0;
	if (rel_len)
		rel[rel_len] = '/';
	memcpy(rel + rel_len + (rel_len ? 1 : 0), name, strlen(name) + 1);
	if (fstatat(od, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = 0; /* not in the upper: nothing changed there to keep */
	} else if (st.st_dev != k->dev) {
		refuse(k, rel, "is on another file system");
	} else if (!rest) {
		int old_parent = -1, new_parent_fd;

		k->st->matched++;
		new_parent_fd = new_parent(k, rel, &old_parent);
		if (new_parent_fd < 0) {
			rc = new_parent_fd == -ENOSPC || new_parent_fd == -EROFS ? new_parent_fd : 0;
			if (!rc)
				refuse(k, rel, "a parent directory cannot be carried over");
		} else {
			rc = copy_entry(k, old_parent, new_parent_fd, name, rel, 0);
			close(old_parent);
			close(new_parent_fd);
		}
	} else if (S_ISLNK(st.st_mode)) {
		refuse(k, rel, "is a symbolic link; keep paths never follow one");
	} else if (S_ISDIR(st.st_mode)) {
		int sub = open_dir_at(od, name);

		if (sub >= 0) {
			rc = keep_match(k, sub, rest, rel, len);
			close(sub);
		}
	}
	rel[rel_len] = '\0';
	return rc;
}

static int glob_entry(const char *name, unsigned char type, void *arg)
{
	struct glob_walk *g = arg;

	(void)type;
	if (!glob_match(g->comp, name))
		return 0;
	g->rc = matched(g->k, g->od, name, g->rest, g->rel, g->rel_len);
	return g->rc;
}

static int keep_match(struct kc *k, int od, const char *pat, char *rel, size_t rel_len)
{
	const char *slash = strchr(pat, '/');
	char comp[256];
	size_t n = slash ? (size_t)(slash - pat) : strlen(pat);

	if (n >= sizeof(comp))
		return 0;
	memcpy(comp, pat, n);
	comp[n] = '\0';
	if (keep_is_glob(comp)) {
		struct glob_walk g = { k, od, comp, slash ? slash + 1 : NULL, rel, rel_len, 0 };
		int rc = sys_dir_each(od, glob_entry, &g);

		return g.rc < 0 ? g.rc : (rc == -ENOSPC || rc == -EROFS ? rc : 0);
	}
	return matched(k, od, comp, slash ? slash + 1 : NULL, rel, rel_len);
}

int keepcopy_run(int old_upper, int new_upper, const struct keep_list *kl,
		 keepcopy_report_fn report, void *ctx, struct keepcopy_stats *stats)
{
	struct kc k = { .old_root = old_upper, .new_root = new_upper, .report = report,
			.ctx = ctx, .st = stats };
	static char rel[4096];
	struct stat st;

	memset(stats, 0, sizeof(*stats));
	if (fstat(old_upper, &st) < 0)
		return -errno;
	k.dev = st.st_dev;
	for (unsigned i = 0; i < kl->n; i++) {
		int rc;

		rel[0] = '\0';
		rc = keep_match(&k, old_upper, kl->path[i] + 1, rel, 0);
		if (rc < 0)
			return rc;
	}
	return 0;
}
