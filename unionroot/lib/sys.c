// SPDX-License-Identifier: MIT
/* Syscall wrappers and small file helpers; everything returns -errno. */
#include "lib/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>


#if !defined(__GLIBC__) && defined(SYS_newfstatat)
/* The stat family as the kernel's one call: musl's fstatat copies the
 * kernel's struct stat field by field into its own, which on the 64-bit
 * targets (x86-64, arm64) is the same struct, and falls back to
 * /proc/self/fd for kernels before 2.6.39 (0.3 KB). The host's libc keeps
 * its own. */
int fstatat(int dir, const char *restrict path, struct stat *restrict st, int flags)
{
	return (int)syscall(SYS_newfstatat, dir, path, st, flags);
}

int fstat(int fd, struct stat *st)
{
	return fstatat(fd, "", st, AT_EMPTY_PATH);
}

int stat(const char *restrict path, struct stat *restrict st)
{
	return fstatat(AT_FDCWD, path, st, 0);
}

int lstat(const char *restrict path, struct stat *restrict st)
{
	return fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}
#endif

int sys_finit_module(int fd, const char *params, int flags)
{
	return syscall(SYS_finit_module, fd, params, flags) < 0 ? -errno : 0;
}

int sys_fcntl(int fd, int cmd, long arg)
{
	long rc = syscall(SYS_fcntl, fd, cmd, arg);

	return rc < 0 ? -errno : (int)rc;
}

int sys_utimensat(int dir, const char *name, const struct timespec ts[2], int flags)
{
	return syscall(SYS_utimensat, dir, name, ts, flags) < 0 ? -errno : 0;
}

int sys_fchmodat(int dir, const char *name, mode_t mode)
{
	return syscall(SYS_fchmodat, dir, name, mode) < 0 ? -errno : 0;
}

int sys_renameat2(int olddir, const char *oldpath, int newdir, const char *newpath,
		  unsigned flags)
{
	return syscall(SYS_renameat2, olddir, oldpath, newdir, newpath, flags) < 0 ? -errno : 0;
}

int sys_pivot_root(const char *new_root, const char *put_old)
{
	return syscall(SYS_pivot_root, new_root, put_old) < 0 ? -errno : 0;
}

int sys_mount(const char *src, const char *dst, const char *type,
	      unsigned long flags, const char *data)
{
	return mount(src, dst, type, flags, data) < 0 ? -errno : 0;
}

int fd_readonly(int fd)
{
	struct statfs vfs;

	return fstatfs(fd, &vfs) == 0 && (vfs.f_flags & ST_RDONLY);
}

int path_readonly(const char *path)
{
	struct statfs vfs;

	return statfs(path, &vfs) == 0 && (vfs.f_flags & ST_RDONLY);
}

int sys_remount(const char *path, unsigned long set, unsigned long clear)
{
	static const unsigned long kept[][2] = {
		{ ST_RDONLY, MS_RDONLY },     { ST_NOSUID, MS_NOSUID },
		{ ST_NODEV, MS_NODEV },       { ST_NOEXEC, MS_NOEXEC },
		{ ST_NOATIME, MS_NOATIME },   { ST_NODIRATIME, MS_NODIRATIME },
		{ ST_RELATIME, MS_RELATIME }, { ST_SYNCHRONOUS, MS_SYNCHRONOUS },
	};
	struct statfs vfs;
	unsigned long flags = 0;

	if (statfs(path, &vfs) < 0)
		return -errno;
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++)
		if (vfs.f_flags & kept[i][0])
			flags |= kept[i][1];
	return sys_mount(NULL, path, NULL, MS_REMOUNT | (flags & ~clear) | set, NULL);
}

int sys_mkdir_p(const char *path, mode_t mode)
{
	char buf[256];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int sys_lexists(int dir, const char *path)
{
	struct stat st;

	return fstatat(dir, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

pid_t sys_fork(void)
{
	return _Fork();
}

void sys_close_from(int low)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)low, ~0u, 0u) == 0)
		return;
#endif
	for (int fd = low; fd < 1024; fd++) /* before Linux 5.9: init's RLIMIT_NOFILE */
		close(fd);
}

int sys_file_check(int fd, struct stat *st)
{
	struct stat own;
	int fl, rc = 0;

	if (fd < 0)
		return fd;
	if (!st)
		st = &own;
	if (fstat(fd, st) < 0 || (S_ISREG(st->st_mode) && ((fl = sys_fcntl(fd, F_GETFL, 0)) < 0 ||
						 sys_fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)))
		rc = -errno;
	else if (!S_ISREG(st->st_mode))
		rc = -EINVAL; /* a FIFO, device, socket or directory is no file of ours */
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

int sys_file_open(int dir, const char *name, int flags, struct stat *st)
{
	struct stat pre;
	int fd;

	/* a device node is not even opened: that alone can act (a watchdog) */
	if (fstatat(dir, name, &pre, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISREG(pre.st_mode))
		return S_ISLNK(pre.st_mode) ? -ELOOP : -EINVAL;
	/* O_NONBLOCK: a FIFO swapped in since waits for a writer forever */
	fd = openat(dir, name, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	return sys_file_check(fd < 0 ? -errno : fd, st);
}

ssize_t sys_read_fd(int fd, char *buf, size_t cap)
{
	size_t len = 0;

	if (cap == 0)
		return -EFBIG;
	for (;;) {
		ssize_t n;

		if (len == cap - 1) {
			char extra;

			n = read(fd, &extra, 1);
			buf[len] = '\0';
			return n > 0 ? -EFBIG : (ssize_t)len;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			buf[len] = '\0';
			return n < 0 ? -errno : (ssize_t)len;
		}
		len += (size_t)n;
	}
}

void *sys_map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

ssize_t sys_map_text(const char *path, size_t max, char **text)
{
	struct stat st = { 0 }; /* the analyzer cannot tell that fd >= 0 filled it */
	size_t cap;
	ssize_t n;
	char *buf;
	int fd = sys_file_open(AT_FDCWD, path, O_RDONLY, &st);

	if (fd < 0)
		return fd;
	/* a file larger than max (or grown since) fills cap: -EFBIG */
	cap = ((uint64_t)st.st_size < max ? (size_t)st.st_size : max) + 1;
	buf = sys_map_anon(cap);
	n = buf ? sys_read_fd(fd, buf, cap) : -ENOMEM;
	close(fd);
	if (n >= 0)
		*text = buf;
	else if (buf)
		munmap(buf, cap);
	return n;
}

ssize_t sys_read_fileat(int dir, const char *path, char *buf, size_t cap)
{
	int fd = sys_file_open(dir, path, O_RDONLY, NULL);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = sys_read_fd(fd, buf, cap);
	close(fd);
	return n;
}

ssize_t sys_read_file(const char *path, char *buf, size_t cap)
{
	return sys_read_fileat(AT_FDCWD, path, buf, cap);
}

uint64_t sys_now_ms(void)
{
	struct timespec ts;

	/* the syscall, not clock_gettime(): musl's looks the vDSO up first
	 * (1 KB of ELF parsing) for a clock read a few hundred times a boot */
	if (syscall(SYS_clock_gettime, CLOCK_BOOTTIME, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

struct linux_dirent64_hdr {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* The record at *off of a getdents64 answer of len bytes, stepping *off past
 * it, or NULL for one that leaves the answer. */
static const struct linux_dirent64_hdr *dirent_at(const char *buf, long len, long *off)
{
	const struct linux_dirent64_hdr *d = (const void *)(buf + *off);
	const long head = (long)offsetof(struct linux_dirent64_hdr, name);

	if (len - *off <= head || d->reclen <= head || d->reclen > len - *off)
		return NULL;
	*off += d->reclen;
	return d;
}

static int dot_or_dotdot(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

int sys_dir_each(int dirfd, int (*fn)(const char *name, unsigned char type, void *ctx),
		 void *ctx)
{
	char buf[4096] __attribute__((aligned(8)));

	for (;;) {
		long n = syscall(SYS_getdents64, dirfd, buf, sizeof(buf));

		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		for (long off = 0; off < n;) {
			const struct linux_dirent64_hdr *d = dirent_at(buf, n, &off);
			int rc;

			if (!d)
				return -EIO;
			if (dot_or_dotdot(d->name))
				continue;
			rc = fn(d->name, d->type, ctx);
			if (rc < 0)
				return rc;
		}
	}
}

int sys_dir_next(int dirfd, struct sys_dir_cursor *cur, const char **name)
{
	for (;;) {
		const struct linux_dirent64_hdr *d;

		if (cur->pos >= cur->len) {
			long n = syscall(SYS_getdents64, dirfd, cur->buf, sizeof(cur->buf));

			if (n < 0)
				return -errno;
			cur->len = n;
			cur->pos = 0;
			if (n == 0)
				return 0;
		}
		d = dirent_at(cur->buf, cur->len, &cur->pos);
		if (!d)
			return -EIO;
		if (!dot_or_dotdot(d->name)) {
			*name = d->name;
			return 1;
		}
	}
}
