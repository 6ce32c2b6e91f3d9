/* SPDX-License-Identifier: MIT */
/* The plain system calls init/ makes, one wrapper each: the result, or
 * -errno where libc returns -1 and sets errno. Nothing more: a fake of
 * these (tests/unit/fake_sys.c) runs init/'s steps without a kernel. */
#ifndef UNIONROOT_SYSX_H
#define UNIONROOT_SYSX_H

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "lib/defs.h"

/* files */
int sys_openat(int dir, const char *path, int flags, mode_t mode) WUR;
static inline int sys_open(const char *path, int flags)
{
	return sys_openat(AT_FDCWD, path, flags, 0);
}
int sys_close(int fd);
ssize_t sys_read(int fd, void *buf, size_t len) WUR;
ssize_t sys_write(int fd, const void *buf, size_t len) WUR;
ssize_t sys_pread(int fd, void *buf, size_t len, off_t at) WUR;
ssize_t sys_pwrite(int fd, const void *buf, size_t len, off_t at) WUR;
off_t sys_lseek(int fd, off_t at, int whence) WUR;
int sys_fsync(int fd) WUR;
int sys_ftruncate(int fd, off_t len) WUR;
int sys_fallocate(int fd, int mode, off_t at, off_t len) WUR;
/* ioctl(2): its result (some are >= 0 answers), or -errno */
int sys_ioctl(int fd, unsigned long req, void *arg) WUR;
int sys_dup2(int fd, int to) WUR;
int sys_pipe2(int fds[2], int flags) WUR;
int sys_poll(struct pollfd *fds, nfds_t n, int timeout_ms) WUR;

/* names */
int sys_fstatat(int dir, const char *path, struct stat *st, int flags) WUR;
static inline int sys_stat(const char *path, struct stat *st)
{
	return sys_fstatat(AT_FDCWD, path, st, 0);
}
static inline int sys_fstat(int fd, struct stat *st)
{
	return sys_fstatat(fd, "", st, AT_EMPTY_PATH);
}
int sys_statfs(const char *path, struct statfs *sfs) WUR;
int sys_fstatfs(int fd, struct statfs *sfs) WUR;
int sys_mkdirat(int dir, const char *path, mode_t mode) WUR;
static inline int sys_mkdir(const char *path, mode_t mode)
{
	return sys_mkdirat(AT_FDCWD, path, mode);
}
/* unlinkat(2); AT_REMOVEDIR for a directory */
int sys_unlinkat(int dir, const char *path, int flags) WUR;
int sys_link(const char *path, const char *to) WUR;
mode_t sys_umask(mode_t mask);
int sys_chdir(const char *path) WUR;
int sys_fchdir(int fd) WUR;
int sys_chroot(const char *path) WUR;
int sys_umount2(const char *path, int flags) WUR;

/* processes */
int sys_execve(const char *path, char *const argv[], char *const envp[]) WUR;
/* execveat(fd, "", ..., AT_EMPTY_PATH): the file fd is, wherever its path leads now */
int sys_fexecve(int fd, char *const argv[], char *const envp[]) WUR;
int sys_unshare(int flags) WUR;
NORETURN void sys_exit(int status);
/* sync(), then reboot(how) unless how is 0 (a sync alone); returns when refused. */
void sys_power(int how);
int sys_kill(pid_t pid, int sig) WUR;
pid_t sys_waitpid(pid_t pid, int *status, int flags) WUR;
int sys_waitid(idtype_t type, id_t id, siginfo_t *si, int flags) WUR;
int sys_setpgid(pid_t pid, pid_t pgid) WUR;
/* prctl(2) with one argument (PR_SET_NAME) */
int sys_prctl(int op, unsigned long arg) WUR;
/* sched_setscheduler(2) on the caller, at priority 0 (musl's is a stub) */
int sys_sched_policy(int policy) WUR;
void sys_sleep_ms(unsigned ms);
int sys_uname(struct utsname *u) WUR;
/* len bytes shared with the children forked after (*page), or -errno */
int sys_map_shared(size_t len, void **page) WUR;
int sys_unmap(void *page, size_t len);

/* sockets */
int sys_socket(int domain, int type, int proto) WUR;
int sys_bind(int fd, const struct sockaddr *sa, socklen_t len) WUR;
int sys_setsockopt(int fd, int level, int name, const void *val, socklen_t len) WUR;
ssize_t sys_recv(int fd, void *buf, size_t len, int flags) WUR;
int sys_connect(int fd, const struct sockaddr *sa, socklen_t len) WUR;
ssize_t sys_sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *sa,
		   socklen_t salen) WUR;
#endif
