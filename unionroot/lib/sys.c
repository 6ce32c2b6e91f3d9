// SPDX-License-Identifier: MIT
/* Small file helpers over the system calls of lib/sysx.c, so that unit-init
 * runs them over its fake of those; everything returns -errno. */
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

#include "lib/sysx.h"

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

int fd_readonly(int fd)
{
	struct statfs vfs;

	return sys_fstatfs(fd, &vfs) == 0 && (vfs.f_flags & ST_RDONLY);
}

int path_readonly(const char *path)
{
	struct statfs vfs;

	return sys_statfs(path, &vfs) == 0 && (vfs.f_flags & ST_RDONLY);
}

int sys_mkdir_p(const char *path, mode_t mode)
{
	char buf[256];
	size_t len = strlen(path);
	int rc;

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		rc = sys_mkdir(buf, mode);
		if (rc < 0 && rc != -EEXIST)
			return rc;
		*p = '/';
	}
	rc = sys_mkdir(buf, mode);
	return rc < 0 && rc != -EEXIST ? rc : 0;
}

int sys_lexists(int dir, const char *path)
{
	struct stat st;

	return sys_fstatat(dir, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int sys_file_check(int fd, struct stat *st)
{
	struct stat own;
	int fl, rc;

	if (fd < 0)
		return fd;
	if (!st)
		st = &own;
	rc = sys_fstat(fd, st);
	if (rc == 0 && S_ISREG(st->st_mode)) {
		fl = rc = sys_fcntl(fd, F_GETFL, 0);
		if (rc >= 0)
			rc = sys_fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	} else if (rc == 0) {
		rc = -EINVAL; /* a FIFO, device, socket or directory is no file of ours */
	}
	if (rc < 0) {
		sys_close(fd);
		return rc;
	}
	return fd;
}

int sys_file_open(int dir, const char *name, int flags, struct stat *st)
{
	struct stat pre;
	int rc;

	/* a device node is not even opened: that alone can act (a watchdog) */
	rc = sys_fstatat(dir, name, &pre, AT_SYMLINK_NOFOLLOW);
	if (rc < 0)
		return rc;
	if (!S_ISREG(pre.st_mode))
		return S_ISLNK(pre.st_mode) ? -ELOOP : -EINVAL;
	/* O_NONBLOCK: a FIFO swapped in since waits for a writer forever */
	return sys_file_check(sys_openat(dir, name, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0),
			      st);
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

			n = sys_read(fd, &extra, 1);
			buf[len] = '\0';
			return n > 0 ? -EFBIG : (ssize_t)len;
		}
		n = sys_read(fd, buf + len, cap - 1 - len);
		if (n == -EINTR)
			continue;
		if (n <= 0) {
			buf[len] = '\0';
			return n < 0 ? n : (ssize_t)len;
		}
		len += (size_t)n;
	}
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
	sys_close(fd);
	if (n >= 0)
		*text = buf;
	else if (buf)
		sys_unmap(buf, cap);
	return n;
}

ssize_t sys_read_fileat(int dir, const char *path, char *buf, size_t cap)
{
	int fd = sys_file_open(dir, path, O_RDONLY, NULL);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = sys_read_fd(fd, buf, cap);
	sys_close(fd);
	return n;
}

ssize_t sys_read_file(const char *path, char *buf, size_t cap)
{
	return sys_read_fileat(AT_FDCWD, path, buf, cap);
}
