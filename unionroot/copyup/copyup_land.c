// SPDX-License-Identifier: MIT
/* Lands one entry of the image in the user's tree: a hard link to an
 * earlier path of the same image inode, or a copy staged in .unionroot/stage,
 * fsynced, and renamed over the user's entry, so a cut leaves the old or the
 * new version. What is replaced goes to the trash. */
#include "copyup/copyup_walk.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <string.h>
#include <unistd.h>

#include "lib/resolve.h"
#include "lib/rmtree.h"
#include "lib/sbuf.h"
#include "lib/sys.h"

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

int cu_to_trash(struct run *r, int dir, const char *name)
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

int cu_install(struct run *r, int idir, int udir, const char *name, const struct stat *tst,
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
			return cu_to_trash(r, r->stage, "f");
		rc = cu_to_trash(r, udir, name);
		if (rc < 0)
			return rc;
	}
	return sys_renameat(r->stage, "f", udir, name) < 0 ? -errno : 0;
}
