// SPDX-License-Identifier: MIT
/* One entry at a time: data by copy_file_range where the kernel allows it
 * (same file system type since 5.19; squashfs to ext4 is EXDEV), else
 * read/write that leaves a hole for every all-zero 4 KiB block; then owner,
 * mode (after chown, which clears setuid), xattrs (after chmod, since a
 * security.capability does not survive chown), times. */
#include "lib/treecopy.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "lib/chash.h"
#include "lib/sbuf.h"
#include "lib/sys.h"

#define CHUNK (128 * 1024)
#define BLOCK 4096
#define XATTR_NAMES 256

static unsigned char data[CHUNK] __attribute__((aligned(64)));
/* not const: a const array of zeros goes into the file (.rodata), this one
 * into .bss */
static unsigned char zeros[BLOCK];
static char xnames[65536];
static char xnames_dst[65536];
static char xvalue[65536];

char tc_type(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return 'f';
	case S_IFDIR: return 'd';
	case S_IFLNK: return 'l';
	case S_IFCHR: return 'c';
	case S_IFBLK: return 'b';
	case S_IFIFO: return 'p';
	case S_IFSOCK: return 's';
	default: return 0;
	}
}

/* ---- xattrs ---------------------------------------------------------------- */

/* user.*, security.* and the POSIX ACLs travel; trusted.* (overlayfs' own)
 * and anything else stay behind. */
static int wanted(const char *name)
{
	return strncmp(name, "user.", 5) == 0 || strncmp(name, "security.", 9) == 0 ||
	       strcmp(name, "system.posix_acl_access") == 0 ||
	       strcmp(name, "system.posix_acl_default") == 0;
}

/* Files and directories by fd; the rest by /proc/self/fd/DIR/NAME with the
 * l* calls (no *xattrat syscalls before 6.13). */
struct xref {
	int fd;
	char path[64 + 256];
};

static int xref_set(struct xref *x, int fd, int dir, const char *name)
{
	x->fd = fd;
	if (fd >= 0)
		return 0;
	return strfmt(x->path, sizeof(x->path), "/proc/self/fd/%d/%s", dir, name);
}

static ssize_t x_list(const struct xref *x, char *buf, size_t cap)
{
	ssize_t n = x->fd >= 0 ? flistxattr(x->fd, buf, cap) : llistxattr(x->path, buf, cap);

	return n < 0 ? -errno : n;
}

static ssize_t x_get(const struct xref *x, const char *name, void *buf, size_t cap)
{
	ssize_t n = x->fd >= 0 ? fgetxattr(x->fd, name, buf, cap) : lgetxattr(x->path, name, buf, cap);

	return n < 0 ? -errno : n;
}

static int x_set(const struct xref *x, const char *name, const void *buf, size_t n)
{
	int rc = x->fd >= 0 ? fsetxattr(x->fd, name, buf, n, 0) : lsetxattr(x->path, name, buf, n, 0);

	return rc < 0 ? -errno : 0;
}

/* The wanted names, sorted (list order differs between file systems). */
static int x_names_in(const struct xref *x, const char **names, char *buf, size_t cap)
{
	ssize_t n = x_list(x, buf, cap);
	int count = 0;

	if (n == -ENOTSUP || n == -ENOENT)
		return 0;
	if (n < 0)
		return (int)n;
	for (ssize_t off = 0; off < n; off += (ssize_t)strlen(buf + off) + 1) {
		const char *nm = buf + off;
		int i;

		if (!wanted(nm))
			continue;
		if (count == XATTR_NAMES)
			return -E2BIG;
		for (i = count; i > 0 && strcmp(names[i - 1], nm) > 0; i--)
			names[i] = names[i - 1];
		names[i] = nm;
		count++;
	}
	return count;
}

static int x_names(const struct xref *x, const char **names)
{
	return x_names_in(x, names, xnames, sizeof(xnames));
}

/* A new entry inherits the default ACL of its directory: what the source
 * does not have goes. */
static void x_drop_extra(const struct xref *dst, const char *const *keep, int nkeep,
			 unsigned *errors)
{
	const char *names[XATTR_NAMES];
	int count = x_names_in(dst, names, xnames_dst, sizeof(xnames_dst));

	for (int i = 0; i < count; i++) {
		int found = 0;

		for (int j = 0; j < nkeep && !found; j++)
			found = strcmp(names[i], keep[j]) == 0;
		if (found)
			continue;
		if ((dst->fd >= 0 ? fremovexattr(dst->fd, names[i]) : lremovexattr(dst->path, names[i])) < 0)
			(*errors)++;
	}
}

/* Hashes (and copies to dst when given) the wanted xattrs of src. */
static int x_each(const struct xref *src, const struct xref *dst, struct chash *h,
		  unsigned *errors)
{
	const char *names[XATTR_NAMES];
	int count = x_names(src, names);

	if (count < 0)
		return count;
	for (int i = 0; i < count; i++) {
		ssize_t v = x_get(src, names[i], xvalue, sizeof(xvalue));
		uint64_t len;

		if (v < 0)
			return (int)v;
		len = (uint64_t)v;
		chash_add(h, names[i], strlen(names[i]) + 1);
		chash_add(h, &len, sizeof(len));
		chash_add(h, xvalue, (size_t)v);
		if (dst && x_set(dst, names[i], xvalue, (size_t)v) < 0)
			(*errors)++;
	}
	if (dst)
		x_drop_extra(dst, names, count, errors);
	return 0;
}

/* ---- content --------------------------------------------------------------- */

static void hash_zeros(struct chash *h, uint64_t n)
{
	while (n) {
		size_t k = n < sizeof(zeros) ? (size_t)n : sizeof(zeros);

		chash_add(h, zeros, k);
		n -= k;
	}
}

static int write_all(int fd, const unsigned char *p, size_t n, off_t off)
{
	while (n) {
		ssize_t w = pwrite(fd, p, n, off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
		off += w;
	}
	return 0;
}

/* Writes runs of non-zero blocks; all-zero blocks stay holes. */
static int write_sparse(int fd, const unsigned char *p, size_t n, off_t off)
{
	size_t i = 0;

	while (i < n) {
		size_t k = n - i < BLOCK ? n - i : BLOCK, j;
		int rc;

		if (memcmp(p + i, zeros, k) == 0) {
			i += k;
			continue;
		}
		for (j = i + k; j < n; j += k) {
			k = n - j < BLOCK ? n - j : BLOCK;
			if (memcmp(p + j, zeros, k) == 0)
				break;
		}
		rc = write_all(fd, p + i, j - i, off + (off_t)i);
		if (rc < 0)
			return rc;
		i = j;
	}
	return 0;
}

/* Reads [from, to) of src into the hash, and to dst unless dst < 0. */
static int pass(int src, int dst, off_t from, off_t to, struct chash *h)
{
	while (from < to) {
		size_t want = to - from < CHUNK ? (size_t)(to - from) : CHUNK;
		ssize_t n = pread(src, data, want, from);
		int rc;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO; /* the file shrank under us: not a read-only image */
		chash_add(h, data, (size_t)n);
		if (dst >= 0) {
			rc = write_sparse(dst, data, (size_t)n, from);
			if (rc < 0)
				return rc;
		}
		from += n;
	}
	return 0;
}

static int copy_range(int src, int dst, off_t from, off_t to, struct chash *h,
		      struct tc_stats *stats)
{
	off_t in = from, out = from;

	while (!stats->no_copy_range && in < to) {
		ssize_t n = copy_file_range(src, &in, dst, &out, (size_t)(to - in), 0);

		if (n > 0)
			continue;
		if (n == 0)
			return -EIO;
		if (errno == EINTR)
			continue;
		if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
			return -errno;
		stats->no_copy_range = 1;
	}
	if (in > from) {
		int rc = pass(src, -1, from, in, h); /* the hash still needs the bytes */

		if (rc < 0)
			return rc;
	}
	return in < to ? pass(src, dst, in, to, h) : 0;
}

/* Content of a regular file, data regions by SEEK_DATA/SEEK_HOLE; the hash
 * covers the logical content, holes as zeros. dst < 0: hash only. */
static int content(int src, int dst, off_t size, struct chash *h, struct tc_stats *stats)
{
	off_t pos = 0;
	int rc;

	while (pos < size) {
		off_t d = lseek(src, pos, SEEK_DATA), e;

		if (d < 0 && errno == ENXIO)
			d = size;
		else if (d < 0)
			d = pos; /* no SEEK_DATA here: all data */
		if (d > size)
			d = size;
		hash_zeros(h, (uint64_t)(d - pos));
		if (d >= size)
			break;
		e = lseek(src, d, SEEK_HOLE);
		if (e < 0 || e > size)
			e = size;
		if (e <= d)
			e = size;
		rc = dst >= 0 && stats ? copy_range(src, dst, d, e, h, stats) : pass(src, -1, d, e, h);
		if (rc < 0)
			return rc;
		pos = e;
	}
	if (dst >= 0 && ftruncate(dst, size) < 0)
		return -errno;
	return 0;
}

int tc_hash(int dir, const char *name, const struct stat *st, uint64_t *hash)
{
	struct chash h;
	struct xref x;
	int fd = -1, rc = 0;

	chash_init(&h);
	if (S_ISREG(st->st_mode) || S_ISDIR(st->st_mode)) {
		fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC |
					       (S_ISDIR(st->st_mode) ? O_DIRECTORY : O_NONBLOCK));
		if (fd < 0)
			return -errno;
		if (S_ISREG(st->st_mode))
			rc = content(fd, -1, st->st_size, &h, NULL);
	} else if (S_ISLNK(st->st_mode)) {
		ssize_t n = readlinkat(dir, name, (char *)data, sizeof(data));

		if (n < 0)
			return -errno;
		chash_add(&h, data, (size_t)n);
	}
	if (rc == 0)
		rc = xref_set(&x, fd, dir, name);
	if (rc == 0)
		rc = x_each(&x, NULL, &h, NULL);
	if (fd >= 0)
		close(fd);
	*hash = chash_final(&h);
	return rc;
}

/* ---- one entry --------------------------------------------------------------- */

static int copy_file(int sdir, const char *name, const struct stat *st, int ddir,
		     const char *dname, struct chash *h, struct tc_stats *stats)
{
	struct xref sx, dx;
	struct stat now;
	int src, dst, rc;

	src = openat(sdir, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (src < 0)
		return -errno;
	/* a writable branch may be hostile: the file opened is the one looked at */
	if (fstat(src, &now) < 0 || now.st_ino != st->st_ino || now.st_dev != st->st_dev) {
		close(src);
		return -ESTALE;
	}
	dst = openat(ddir, dname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (dst < 0) {
		rc = -errno;
		close(src);
		return rc;
	}
	rc = content(src, dst, st->st_size, h, stats);
	if (rc == 0 && fchown(dst, st->st_uid, st->st_gid) < 0)
		rc = -errno;
	if (rc == 0 && fchmod(dst, st->st_mode & 07777) < 0)
		rc = -errno;
	if (rc == 0) {
		IGNORE(xref_set(&sx, src, sdir, name)); /* fd based: cannot fail */
		IGNORE(xref_set(&dx, dst, ddir, dname));
		rc = x_each(&sx, &dx, h, &stats->xattr_errors);
	}
	if (rc == 0) {
		struct timespec ts[2] = { st->st_atim, st->st_mtim };

		rc = sys_utimensat(dst, NULL, ts, 0);
	}
	close(src);
	if (close(dst) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0) {
		stats->files++;
		stats->bytes += (uint64_t)st->st_size;
	}
	return rc;
}

int tc_dir_meta(int sdir, const char *name, const struct stat *st, int ddir, const char *dname)
{
	struct xref sx, dx;
	struct chash h;
	unsigned errors = 0;
	int src, dst, rc = 0;

	src = openat(sdir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (src < 0)
		return -errno;
	dst = openat(ddir, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dst < 0) {
		rc = -errno;
		close(src);
		return rc;
	}
	if (fchown(dst, st->st_uid, st->st_gid) < 0 || fchmod(dst, st->st_mode & 07777) < 0)
		rc = -errno;
	if (rc == 0) {
		IGNORE(xref_set(&sx, src, sdir, name)); /* fd based: cannot fail */
		IGNORE(xref_set(&dx, dst, ddir, dname));
		chash_init(&h);
		rc = x_each(&sx, &dx, &h, &errors);
	}
	close(src);
	close(dst);
	return rc ? rc : errors ? -EIO : 0;
}

static int copy_other(int sdir, const char *name, const struct stat *st, int ddir,
		      const char *dname, struct chash *h, struct tc_stats *stats)
{
	struct xref sx, dx;
	int rc;

	if (S_ISLNK(st->st_mode)) {
		ssize_t n = readlinkat(sdir, name, (char *)data, sizeof(data) - 1);

		if (n < 0)
			return -errno;
		data[n] = '\0';
		chash_add(h, data, (size_t)n);
		if (symlinkat((const char *)data, ddir, dname) < 0)
			return -errno;
		stats->links++;
	} else {
		if (mknodat(ddir, dname, (st->st_mode & S_IFMT) | 0600, st->st_rdev) < 0)
			return -errno;
		stats->others++;
	}
	if (fchownat(ddir, dname, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	rc = S_ISLNK(st->st_mode) ? 0 : sys_fchmodat(ddir, dname, st->st_mode & 07777);
	if (rc < 0)
		return rc;
	rc = xref_set(&sx, -1, sdir, name);
	if (rc == 0)
		rc = xref_set(&dx, -1, ddir, dname);
	if (rc == 0)
		rc = x_each(&sx, &dx, h, &stats->xattr_errors);
	if (rc < 0)
		return rc;
	return tc_times(ddir, dname, st);
}

int tc_copy(int sdir, const char *name, const struct stat *st, int ddir, const char *dname,
	    uint64_t *hash, struct tc_stats *stats)
{
	struct chash h;
	int rc;

	chash_init(&h);
	if (S_ISREG(st->st_mode)) {
		rc = copy_file(sdir, name, st, ddir, dname, &h, stats);
	} else if (S_ISDIR(st->st_mode)) {
		if (mkdirat(ddir, dname, 0700) < 0)
			return -errno;
		rc = tc_dir_meta(sdir, name, st, ddir, dname);
		if (rc == -EIO) {
			stats->xattr_errors++;
			rc = 0;
		}
		if (rc == 0) {
			/* the hash of a directory is its xattrs: recompute from the source */
			int fd = openat(sdir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			struct xref sx;

			if (fd < 0)
				return -errno;
			IGNORE(xref_set(&sx, fd, sdir, name)); /* fd based: cannot fail */
			rc = x_each(&sx, NULL, &h, NULL);
			close(fd);
		}
		stats->dirs++;
	} else if (tc_type(st->st_mode)) {
		rc = copy_other(sdir, name, st, ddir, dname, &h, stats);
	} else {
		rc = -EOPNOTSUPP;
	}
	*hash = chash_final(&h);
	return rc;
}

int tc_times(int dir, const char *name, const struct stat *st)
{
	struct timespec ts[2] = { st->st_atim, st->st_mtim };

	return sys_utimensat(dir, name, ts, AT_SYMLINK_NOFOLLOW);
}
