// SPDX-License-Identifier: MIT
/* Keep-list walk and copy. Parents of a kept entry are created with the old
 * directories' owner and mode but never their opaque mark (a parent must not
 * hide the image's other entries); a kept directory keeps its opaque mark, a
 * kept whiteout stays a whiteout. Hard links become separate copies. */
#include "glob.h"
#include "keepcopy.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "sbuf.h"
#include "sys.h"

#define OVL_XATTR "trusted.overlay."
#define OVL_OPAQUE "trusted.overlay.opaque"

struct kc {
	int old_root, new_root;
	dev_t dev;
	keepcopy_report_fn report;
	void *ctx;
	struct keepcopy_stats *st;
	int fatal;
};

/* one PID 1, one thread: the copy buffers need not live on the stack */
static char xlist[4096];
static char xval[65536];
static char data[65536];

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

/* xattrs from fd to fd: the overlay's own are dropped (origin, redirect and
 * friends describe the old layers) except the opaque mark when asked. */
static int copy_xattrs(int from, int to, int with_opaque)
{
	ssize_t len = flistxattr(from, xlist, sizeof(xlist));

	if (len < 0)
		return errno == ENOTSUP ? 0 : -errno;
	for (ssize_t off = 0; off < len; off += (ssize_t)strlen(xlist + off) + 1) {
		const char *name = xlist + off;
		ssize_t n;

		if (strncmp(name, OVL_XATTR, sizeof(OVL_XATTR) - 1) == 0 &&
		    !(with_opaque && strcmp(name, OVL_OPAQUE) == 0))
			continue;
		n = fgetxattr(from, name, xval, sizeof(xval));
		if (n < 0)
			return -errno;
		if (fsetxattr(to, name, xval, (size_t)n, 0) < 0)
			return -errno;
	}
	return 0;
}

/* owner before mode (chown clears set-id bits), times last */
static int copy_meta_fd(int from, int to, const struct stat *st, int with_opaque)
{
	struct timespec ts[2] = { st->st_atim, st->st_mtim };
	int rc = copy_xattrs(from, to, with_opaque);

	if (rc < 0)
		return rc;
	if (fchown(to, st->st_uid, st->st_gid) < 0 || fchmod(to, st->st_mode & 07777) < 0 ||
	    futimens(to, ts) < 0)
		return -errno;
	return 0;
}

static int copy_data(int in, int out)
{
	for (;;) {
		ssize_t n = read(in, data, sizeof(data)), w = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : 0;
		while (w < n) {
			ssize_t k = write(out, data + w, (size_t)(n - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return -errno;
			w += k;
		}
	}
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

static int copy_dir(struct kc *k, int od, int nd, const char *name, const char *path,
		    const struct stat *st, int depth)
{
	struct dir_walk w = { k, -1, -1, depth, path, 0 };
	int rc;

	if (depth > KEEPCOPY_DEPTH_MAX) {
		refuse(k, path, "nested too deep");
		return 0;
	}
	if (mkdirat(nd, name, 0700) < 0 && errno != EEXIST)
		return -errno; /* EEXIST: an overlapping pattern made it; merge */
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
	k->st->copied++;
	rc = sys_dir_each(w.od, copy_child, &w);
	if (rc == 0)
		rc = copy_meta_fd(w.od, w.nd, st, 1);
	close(w.od);
	close(w.nd);
	return rc;
}

static int copy_file(struct kc *k, int od, int nd, const char *name, const char *path,
		     const struct stat *st)
{
	struct stat now;
	int in, out, rc;

	in = openat(od, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (in < 0 || fstat(in, &now) < 0 || now.st_ino != st->st_ino) {
		if (in >= 0)
			close(in);
		refuse(k, path, "changed while copying");
		return 0;
	}
	out = openat(nd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0) {
		rc = errno == EEXIST ? 0 : -errno; /* EEXIST: kept by an earlier pattern */
		close(in);
		return rc;
	}
	rc = copy_data(in, out);
	if (rc == 0)
		rc = copy_meta_fd(in, out, st, 0);
	close(in);
	if (close(out) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0)
		k->st->copied++;
	return rc;
}

/* symlinks, whiteouts (char 0/0), other devices, fifos: by name, no fd */
static int copy_special(struct kc *k, int od, int nd, const char *name, const struct stat *st)
{
	struct timespec ts[2] = { st->st_atim, st->st_mtim };

	if (S_ISLNK(st->st_mode)) {
		char target[4096];
		ssize_t n = readlinkat(od, name, target, sizeof(target) - 1);

		if (n < 0)
			return -errno;
		target[n] = '\0';
		if (symlinkat(target, nd, name) < 0)
			return errno == EEXIST ? 0 : -errno;
	} else {
		if (mknodat(nd, name, st->st_mode & (S_IFMT | 07777), st->st_rdev) < 0)
			return errno == EEXIST ? 0 : -errno;
	}
	if (fchownat(nd, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISLNK(st->st_mode) && fchmodat(nd, name, st->st_mode & 07777, 0) < 0)
		return -errno;
	if (utimensat(nd, name, ts, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	k->st->copied++;
	return 0;
}

/* Copies od/name to nd/name. < 0 only for failures of the new upper that
 * are worth stopping for (no space, read-only); the rest is reported. */
static int copy_entry(struct kc *k, int od, int nd, const char *name, const char *path,
		      int depth)
{
	struct stat st;
	int rc;

	if (fstatat(od, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0; /* gone meanwhile */
	if (st.st_dev != k->dev) {
		refuse(k, path, "is on another file system");
		return 0;
	}
	if (S_ISDIR(st.st_mode))
		rc = copy_dir(k, od, nd, name, path, &st, depth);
	else if (S_ISREG(st.st_mode))
		rc = copy_file(k, od, nd, name, path, &st);
	else if (S_ISSOCK(st.st_mode))
		rc = 0; /* meaningless after a reboot */
	else
		rc = copy_special(k, od, nd, name, &st);
	if (rc == -ENOSPC || rc == -EROFS || rc == -EIO || rc == -EDQUOT)
		return rc;
	if (rc < 0) {
		char why[96];

		IGNORE(strfmt(why, sizeof(why), "copy failed: %s", strerror(-rc))); /* fits */
		refuse(k, path, why);
	}
	return 0;
}

/* Makes the new upper's directories for path's parents, each with the old
 * directory's owner and mode, and opens the deepest: an fd or -errno. */
static int new_parent(struct kc *k, const char *rel, int *old_out)
{
	char comp[256];
	int od = dup(k->old_root), nd = dup(k->new_root);

	if (od < 0 || nd < 0)
		goto fail_errno;
	for (const char *c = rel;;) {
		const char *slash = strchr(c, '/');
		struct stat st;
		int o2, n2;

		if (!slash)
			break;
		if ((size_t)(slash - c) >= sizeof(comp))
			goto fail_len;
		memcpy(comp, c, (size_t)(slash - c));
		comp[slash - c] = '\0';
		c = slash + 1;
		o2 = open_dir_at(od, comp);
		if (o2 < 0 || fstat(o2, &st) < 0) {
			if (o2 >= 0)
				close(o2);
			goto fail_errno;
		}
		close(od);
		od = o2;
		if (mkdirat(nd, comp, 0700) == 0) {
			n2 = open_dir_at(nd, comp);
			if (n2 >= 0 && copy_meta_fd(od, n2, &st, 0) < 0) {
				close(n2);
				n2 = -EIO;
			}
		} else {
			n2 = errno == EEXIST ? open_dir_at(nd, comp) : -errno;
		}
		if (n2 < 0) {
			close(od);
			close(nd);
			return n2;
		}
		close(nd);
		nd = n2;
	}
	*old_out = od;
	return nd;
fail_len:
	errno = ENAMETOOLONG;
fail_errno:
	{
		int rc = -errno;

		if (od >= 0)
			close(od);
		if (nd >= 0)
			close(nd);
		return rc;
	}
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
	struct kc k = { old_upper, new_upper, 0, report, ctx, stats, 0 };
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
