// SPDX-License-Identifier: MIT
/* The plain system calls, -errno instead of errno (sysx.h). */
#include "lib/sysx.h"

#include <errno.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

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
