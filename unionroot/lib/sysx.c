// SPDX-License-Identifier: MIT
/* The system calls, -errno instead of errno: the plain ones (sysx.h) and
 * those musl has no wrapper for or a larger one than needed (sys.h). The
 * whole of what unit-init fakes (tests/unit/fake_sys.c). */
#include "lib/sysx.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/sys.h"

/* libc's -1 (or any negative answer) as -errno, else the answer */
static long ret(long rc)
{
	return rc < 0 ? -errno : rc;
}

int sys_openat(int dir, const char *path, int flags, mode_t mode)
{
	return (int)ret(openat(dir, path, flags, mode));
}

int sys_close(int fd)
{
	return (int)ret(close(fd));
}

ssize_t sys_read(int fd, void *buf, size_t len)
{
	return ret(read(fd, buf, len));
}

ssize_t sys_write(int fd, const void *buf, size_t len)
{
	return ret(write(fd, buf, len));
}

ssize_t sys_pread(int fd, void *buf, size_t len, off_t at)
{
	return ret(pread(fd, buf, len, at));
}

ssize_t sys_pwrite(int fd, const void *buf, size_t len, off_t at)
{
	return ret(pwrite(fd, buf, len, at));
}

off_t sys_lseek(int fd, off_t at, int whence)
{
	return ret(lseek(fd, at, whence));
}

int sys_fsync(int fd)
{
	return (int)ret(fsync(fd));
}

int sys_ftruncate(int fd, off_t len)
{
	return (int)ret(ftruncate(fd, len));
}

int sys_fallocate(int fd, int mode, off_t at, off_t len)
{
	return (int)ret(fallocate(fd, mode, at, len));
}

int sys_ioctl(int fd, unsigned long req, void *arg)
{
	return (int)ret(ioctl(fd, req, arg));
}

int sys_dup2(int fd, int to)
{
	return (int)ret(dup2(fd, to));
}

int sys_pipe2(int fds[2], int flags)
{
	return (int)ret(pipe2(fds, flags));
}

int sys_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	return (int)ret(poll(fds, n, timeout_ms));
}

int sys_fstatat(int dir, const char *path, struct stat *st, int flags)
{
	return (int)ret(fstatat(dir, path, st, flags));
}

int sys_statfs(const char *path, struct statfs *sfs)
{
	return (int)ret(statfs(path, sfs));
}

int sys_fstatfs(int fd, struct statfs *sfs)
{
	return (int)ret(fstatfs(fd, sfs));
}

int sys_mkdirat(int dir, const char *path, mode_t mode)
{
	return (int)ret(mkdirat(dir, path, mode));
}

int sys_unlinkat(int dir, const char *path, int flags)
{
	return (int)ret(unlinkat(dir, path, flags));
}

int sys_link(const char *path, const char *to)
{
	return (int)ret(link(path, to));
}

mode_t sys_umask(mode_t mask)
{
	return umask(mask);
}

int sys_chdir(const char *path)
{
	return (int)ret(chdir(path));
}

int sys_fchdir(int fd)
{
	return (int)ret(fchdir(fd));
}

int sys_chroot(const char *path)
{
	return (int)ret(chroot(path));
}

int sys_umount2(const char *path, int flags)
{
	return (int)ret(umount2(path, flags));
}

int sys_execve(const char *path, char *const argv[], char *const envp[])
{
	return (int)ret(execve(path, argv, envp));
}

int sys_fexecve(int fd, char *const argv[], char *const envp[])
{
	return (int)ret(syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH));
}

int sys_unshare(int flags)
{
	return (int)ret(unshare(flags));
}

void sys_exit(int status)
{
	_exit(status);
}

void sys_power(int how)
{
	sync();
	if (how)
		(void)reboot(how); /* refused: the caller stays alive */
}

int sys_kill(pid_t pid, int sig)
{
	return (int)ret(kill(pid, sig));
}

pid_t sys_waitpid(pid_t pid, int *status, int flags)
{
	return (pid_t)ret(waitpid(pid, status, flags));
}

int sys_waitid(idtype_t type, id_t id, siginfo_t *si, int flags)
{
	return (int)ret(waitid(type, id, si, flags));
}

int sys_setpgid(pid_t pid, pid_t pgid)
{
	return (int)ret(setpgid(pid, pgid));
}

int sys_prctl(int op, unsigned long arg)
{
	return (int)ret(prctl(op, arg));
}

int sys_sched_policy(int policy)
{
	struct sched_param sp = { 0 };

	return (int)ret(syscall(SYS_sched_setscheduler, 0, policy, &sp));
}

void sys_sleep_ms(unsigned ms)
{
	IGNORE(usleep(ms * 1000u)); /* a signal only cuts the wait short */
}

int sys_uname(struct utsname *u)
{
	return (int)ret(uname(u));
}

int sys_map_shared(size_t len, void **page)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	*page = p;
	return 0;
}

int sys_unmap(void *page, size_t len)
{
	return (int)ret(munmap(page, len));
}

int sys_socket(int domain, int type, int proto)
{
	return (int)ret(socket(domain, type, proto));
}

int sys_bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	return (int)ret(bind(fd, sa, len));
}

int sys_setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	return (int)ret(setsockopt(fd, level, name, val, len));
}

ssize_t sys_recv(int fd, void *buf, size_t len, int flags)
{
	return ret(recv(fd, buf, len, flags));
}

int sys_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	return (int)ret(connect(fd, sa, len));
}

ssize_t sys_sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *sa,
		   socklen_t salen)
{
	return ret(sendto(fd, buf, len, flags, sa, salen));
}

int sys_finit_module(int fd, const char *params, int flags)
{
	return syscall(SYS_finit_module, fd, params, flags) < 0 ? -errno : 0;
}

int sys_fcntl(int fd, int cmd, long arg)
{
	long rc = syscall(SYS_fcntl, fd, cmd, arg);

	return rc < 0 ? -errno : (int)rc;
}

/* The time calls as the kernel numbers them for this libc's time_t: a
 * 32-bit target (mipsel, arm) with musl's 64-bit time_t needs the _time64
 * calls, whose struct __kernel_timespec is musl's struct timespec; the plain
 * numbers there take 32-bit seconds and would read the wrong fields (musl
 * names the plain clock_gettime clock_gettime32). A 64-bit target has no
 * _time64 calls: its plain ones are 64-bit. */
#ifndef SYS_clock_gettime
#define SYS_clock_gettime SYS_clock_gettime32
#endif
#ifdef SYS_clock_gettime64
#define TIME64(plain, t64) (sizeof(time_t) > sizeof(long) ? (t64) : (plain))
#else
#define TIME64(plain, t64) (plain)
#endif
#define NR_CLOCK_GETTIME TIME64(SYS_clock_gettime, SYS_clock_gettime64)
#define NR_UTIMENSAT TIME64(SYS_utimensat, SYS_utimensat_time64)

int sys_utimensat(int dir, const char *name, const struct timespec ts[2], int flags)
{
	return syscall(NR_UTIMENSAT, dir, name, ts, flags) < 0 ? -errno : 0;
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

void *sys_map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

uint64_t sys_now_ms(void)
{
	struct timespec ts;

	/* the syscall, not clock_gettime(): musl's looks the vDSO up first
	 * (1 KB of ELF parsing) for a clock read a few hundred times a boot */
	if (syscall(NR_CLOCK_GETTIME, CLOCK_BOOTTIME, &ts) < 0)
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
