// SPDX-License-Identifier: MIT
/* Overlay mount options for a root whose read-only layers are replaced
 * offline by upgrades (Documentation/filesystems/overlayfs.rst, "Changes to
 * underlying filesystems"): no feature may record lower identities in the
 * upper. Every option is passed explicitly, because their defaults are module
 * parameters a distro or a user can flip (overlay.index=1).
 *   index=off          an index records lower file handles; a new lower then
 *                      fails the mount with ESTALE
 *   redirect_dir=nofollow  creates no redirects and follows none: Debian
 *                      builds REDIRECT_ALWAYS_FOLLOW, so "off" would still
 *                      follow redirects planted on an untrusted writable
 *                      medium. Cost: renaming a directory that comes from a
 *                      lower layer fails with EXDEV (mv copes)
 *   metacopy=off       metadata-only copies point at lower files by xattr; a
 *                      crafted upper could reach any lower file
 *   xino=off           inode numbers would mix in lower fs ids that change
 *                      with every new image
 *   nfs_export=off     needs index
 * No "volatile": it only skips syncs, which cost nothing on a tmpfs upper and
 * must not be skipped on a persistent one. */
#include "overlay/overlay.h"

#include <errno.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/xattr.h>

#include "lib/sbuf.h"
#include "lib/strnum.h"
#include "lib/sys.h"

#define FIXED_OPTIONS ",index=off,redirect_dir=nofollow,metacopy=off,xino=off,nfs_export=off"

static int bad_path(const char *p)
{
	/* overlayfs splits options at ',' and lowerdir at ':' (escapes exist, but
	 * our own paths never need them) */
	return !p || p[0] != '/' || strpbrk(p, ",:\\") != NULL;
}

int overlay_options(char *buf, size_t cap, const char *const *lowers, unsigned nlower,
		    const char *upper, const char *work)
{
	struct sbuf sb;

	if (nlower == 0 || (!upper != !work))
		return -EINVAL;
	sbuf_init(&sb, buf, cap);
	sbuf_add(&sb, "lowerdir=");
	for (unsigned i = 0; i < nlower; i++) {
		if (bad_path(lowers[i]))
			return -EINVAL;
		sbuf_addf(&sb, "%s%s", i ? ":" : "", lowers[i]);
	}
	if (upper) {
		if (bad_path(upper) || bad_path(work))
			return -EINVAL;
		sbuf_addf(&sb, ",upperdir=%s,workdir=%s", upper, work);
	}
	sbuf_add(&sb, FIXED_OPTIONS);
	return sbuf_done(&sb);
}

int overlay_is_whiteout(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == 0;
}

int overlay_is_opaque(int dir)
{
	char v[4];

	return fgetxattr(dir, OVERLAY_OPAQUE, v, sizeof(v)) == 1 && v[0] == 'y';
}

int overlay_in_kernel(void)
{
	static char fs[4096];

	/* a cut read still holds the start of the list */
	if (sys_read_file("/proc/filesystems", fs, sizeof(fs)) < 0 && !fs[0])
		return 0;
	return str_find(fs, "\toverlay\n") != NULL;
}

int overlay_module_path(unsigned i, char *buf, size_t cap)
{
	static const char names[][15] = { "overlay.ko", "overlay.ko.xz", "overlay.ko.zst" };
	struct utsname u;
	int rc;

	if (i >= ARRAY_SIZE(names))
		return -ENOENT;
	if (uname(&u) < 0)
		return -errno;
	rc = strfmt(buf, cap, "/lib/modules/%s/kernel/fs/overlayfs/%s", u.release, names[i]);
	return rc < 0 ? rc : i > 0;
}
