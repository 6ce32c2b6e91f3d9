// SPDX-License-Identifier: MIT
/* The upper walk of 'unionroot diff'. A directory copied up only because
 * something below it changed is not reported; one whose owner or mode
 * changed is 'M'. Files compare type, owner, mode, size, mtime, then bytes;
 * symlinks their targets. */
#include "diff/diff.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/sys.h"
#include "lib/walktab.h"
#include "overlay/overlay.h"

struct walk {
	diff_fn fn;
	void *ctx;
	int err;
	dev_t dev;
	struct nametab names; /* the sorted names of the directories on the path */
	char path[4096];
};

static int same_bytes(int ud, int ld, const char *name)
{
	static char a[65536], b[65536];
	/* both were regular files when stat'ed; a FIFO swapped in must not hang */
	int fa = sys_file_open(ud, name, O_RDONLY, NULL);
	int fb = sys_file_open(ld, name, O_RDONLY, NULL);
	int same = fa >= 0 && fb >= 0;

	while (same) {
		ssize_t na = read(fa, a, sizeof(a)), nb;
		size_t got = 0;

		if (na <= 0) {
			same = na == 0 && read(fb, b, 1) == 0;
			break;
		}
		while (got < (size_t)na) {
			nb = read(fb, b + got, (size_t)na - got);
			if (nb <= 0)
				break;
			got += (size_t)nb;
		}
		same = got == (size_t)na && memcmp(a, b, got) == 0;
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

static int same_link(int ud, int ld, const char *name)
{
	char a[4096], b[4096];
	ssize_t na = readlinkat(ud, name, a, sizeof(a)), nb = readlinkat(ld, name, b, sizeof(b));

	return na >= 0 && na == nb && memcmp(a, b, (size_t)na) == 0;
}

static int modified(int ud, int ld, const char *name, const struct stat *u, const struct stat *l)
{
	if ((u->st_mode & S_IFMT) != (l->st_mode & S_IFMT) || u->st_mode != l->st_mode ||
	    u->st_uid != l->st_uid || u->st_gid != l->st_gid)
		return 1;
	if (S_ISDIR(u->st_mode))
		return 0;
	if (S_ISCHR(u->st_mode) || S_ISBLK(u->st_mode))
		return u->st_rdev != l->st_rdev;
	if (!S_ISREG(u->st_mode) && !S_ISLNK(u->st_mode))
		return 0;
	/* a file or link the user made anew (its own mtime) is the user's, as
	 * in copy-up mode, even when its bytes are the image's */
	if (u->st_size != l->st_size || u->st_mtim.tv_sec != l->st_mtim.tv_sec ||
	    u->st_mtim.tv_nsec != l->st_mtim.tv_nsec)
		return 1;
	return S_ISLNK(u->st_mode) ? !same_link(ud, ld, name) : !same_bytes(ud, ld, name);
}

static int emit(struct walk *w, char kind)
{
	int rc = w->fn(kind, w->path[0] ? w->path : "/", w->ctx);

	if (rc < 0 && !w->err)
		w->err = rc;
	return rc;
}

static void note(struct walk *w, int err)
{
	if (!w->err)
		w->err = err;
}

static int walk_dir(struct walk *w, int ud, const int *lds, unsigned nl, int depth);

/* lds: the lower directories at this level that can still show through */
static int upper_entry(struct walk *w, int ud, const int *lds, unsigned nl, const char *name,
		       int depth)
{
	struct stat u, l;
	int lower = -1; /* index in lds of the top-most layer having name */
	size_t plen = strlen(w->path);
	int rc = 0;

	if (plen + 1 + strlen(name) >= sizeof(w->path)) {
		note(w, -ENAMETOOLONG);
		return 0;
	}
	w->path[plen] = '/';
	strcpy(w->path + plen + 1, name);
	if (fstatat(ud, name, &u, AT_SYMLINK_NOFOLLOW) < 0) {
		note(w, -errno);
		goto out;
	}
	for (unsigned i = 0; i < nl && lower < 0; i++) {
		if (lds[i] >= 0 && fstatat(lds[i], name, &l, AT_SYMLINK_NOFOLLOW) == 0) {
			if (overlay_is_whiteout(&l))
				break; /* deleted in a layer below: absent */
			lower = (int)i;
		}
	}
	if (overlay_is_whiteout(&u)) {
		if (lower >= 0)
			rc = emit(w, 'D');
		goto out;
	}
	if (S_ISDIR(u.st_mode) && u.st_dev == w->dev) {
		int sub = openat(ud, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int subl[DIFF_LOWER_MAX];
		unsigned nsub = 0;
		int opaque;

		if (sub < 0) {
			note(w, -errno);
			goto out;
		}
		opaque = overlay_is_opaque(sub);
		if (lower < 0)
			rc = emit(w, 'A');
		else if (opaque || !S_ISDIR(l.st_mode))
			rc = emit(w, 'D') < 0 ? -1 : emit(w, 'A');
		else if (modified(ud, lds[lower], name, &u, &l))
			rc = emit(w, 'M');
		/* below an opaque or new directory nothing of the layers shows */
		if (!opaque && lower >= 0 && S_ISDIR(l.st_mode)) {
			for (unsigned i = (unsigned)lower; i < nl; i++) {
				if (lds[i] < 0)
					continue;
				subl[nsub++] = openat(lds[i], name,
						      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			}
		}
		if (rc >= 0)
			rc = walk_dir(w, sub, subl, nsub, depth + 1);
		for (unsigned i = 0; i < nsub; i++)
			if (subl[i] >= 0)
				close(subl[i]);
		close(sub);
		goto out;
	}
	if (lower < 0)
		rc = emit(w, 'A');
	else if (modified(ud, lds[lower], name, &u, &l))
		rc = emit(w, 'M');
out:
	w->path[plen] = '\0';
	return rc < 0 ? rc : 0;
}

static int walk_dir(struct walk *w, int ud, const int *lds, unsigned nl, int depth)
{
	size_t nused = w->names.nused, iused = w->names.iused, first, count;
	int rc;

	if (depth > DIFF_DEPTH_MAX) {
		note(w, -ELOOP);
		return 0;
	}
	rc = nametab_read(&w->names, ud, &first, &count);
	if (rc < 0) {
		note(w, rc);
		return 0;
	}
	for (size_t i = 0; i < count && rc >= 0; i++)
		rc = upper_entry(w, ud, lds, nl, nametab_name(&w->names, first + i), depth);
	/* drops this directory's names */
	w->names.nused = nused;
	w->names.iused = iused;
	return rc;
}

int diff_run(int upper, const int *lowers, unsigned nlower, diff_fn fn, void *ctx)
{
	static struct walk w;
	struct stat st;

	if (nlower > DIFF_LOWER_MAX)
		return -E2BIG;
	memset(&w, 0, sizeof(w));
	w.fn = fn;
	w.ctx = ctx;
	if (fstat(upper, &st) < 0)
		return -errno;
	w.dev = st.st_dev;
	if (nametab_open(&w.names) < 0) {
		nametab_close(&w.names);
		return -ENOMEM;
	}
	IGNORE(walk_dir(&w, upper, lowers, nlower, 0)); /* errors are kept in w.err */
	nametab_close(&w.names);
	return w.err;
}
