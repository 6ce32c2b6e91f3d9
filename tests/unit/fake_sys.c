// SPDX-License-Identifier: MIT
/* The fake syscall edge (fake_sys.h): a call log, a table of faults, real
 * files under a root, mounts and processes pretended. */
#include "fake_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <mtd/mtd-user.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/filesave.h"
#include "lib/resolve.h"
#include "lib/sys.h"
#include "lib/sysx.h"

#define FAULTS_MAX 16
#define MOUNTS_MAX 16
#define FDS_MAX 1024

static struct fault {
	char call[24], arg[256];
	int any_arg;
	unsigned nth, seen;
	int err;
} faults[FAULTS_MAX];
static unsigned nfaults;
static char mounts[MOUNTS_MAX][256];
static char fdpath[FDS_MAX][256];
static char root[256];
static char log_text[65536];
static size_t log_len;
static struct statfs sfs_answer;
static int sfs_set;
static char blockdev[256];
uint64_t fake_now_ms, fake_tick_ms = 1;

void fake_sys_reset(const char *dir)
{
	snprintf(root, sizeof(root), "%s", dir);
	nfaults = 0;
	memset(mounts, 0, sizeof(mounts));
	memset(fdpath, 0, sizeof(fdpath));
	log_len = 0;
	log_text[0] = '\0';
	sfs_set = 0;
	blockdev[0] = '\0';
	fake_now_ms = 1000;
	fake_tick_ms = 1;
}

void fake_sys_fail(const char *call, const char *arg, unsigned nth, int err)
{
	struct fault *f;

	if (nfaults == FAULTS_MAX)
		return;
	f = &faults[nfaults++];
	snprintf(f->call, sizeof(f->call), "%s", call);
	snprintf(f->arg, sizeof(f->arg), "%s", arg ? arg : "");
	f->any_arg = !arg;
	f->nth = nth;
	f->seen = 0;
	f->err = err;
}

const char *fake_sys_log(void)
{
	return log_text;
}

unsigned fake_sys_count(const char *line)
{
	size_t len = strlen(line);
	unsigned n = 0;

	for (const char *p = log_text; *p; p = strchr(p, '\n') + 1)
		if (strncmp(p, line, len) == 0 && p[len] == '\n')
			n++;
	return n;
}

void fake_sys_statfs(const struct statfs *sfs)
{
	sfs_set = sfs != NULL;
	if (sfs)
		sfs_answer = *sfs;
}

void fake_sys_blockdev(const char *path)
{
	snprintf(blockdev, sizeof(blockdev), "%s", path ? path : "");
}

int fake_sys_mounted(const char *target)
{
	for (unsigned i = 0; i < MOUNTS_MAX; i++)
		if (strcmp(mounts[i], target) == 0)
			return 1;
	return 0;
}

/* Logs the call; the fault's -errno when one matches, else 0. */
static int call(const char *name, const char *arg)
{
	int n = snprintf(log_text + log_len, sizeof(log_text) - log_len, "%s %s\n", name,
			 arg ? arg : "");

	if (n > 0 && (size_t)n < sizeof(log_text) - log_len)
		log_len += (size_t)n;
	for (unsigned i = 0; i < nfaults; i++) {
		struct fault *f = &faults[i];

		if (strcmp(f->call, name) != 0 || (!f->any_arg && strcmp(f->arg, arg ? arg : "") != 0))
			continue;
		f->seen++;
		if (!f->nth || f->nth == f->seen)
			return f->err;
	}
	return 0;
}

static const char *fd_name(int fd)
{
	static char num[16];

	if (fd >= 0 && fd < FDS_MAX && fdpath[fd][0])
		return fdpath[fd];
	snprintf(num, sizeof(num), "%d", fd);
	return num;
}

/* path as the real file system has it: an absolute one beneath root */
static const char *real(const char *path, char *buf, size_t cap)
{
	if (path[0] != '/')
		return path;
	snprintf(buf, cap, "%s%s", root, path);
	return buf;
}

static long ret(long rc)
{
	return rc < 0 ? -errno : rc;
}

static int opened(int fd, const char *path)
{
	if (fd >= 0 && fd < FDS_MAX)
		snprintf(fdpath[fd], sizeof(fdpath[fd]), "%s", path);
	return fd;
}

#define FAIL(name, arg)                        \
	do {                                   \
		int err_ = call(name, arg);    \
		if (err_)                      \
			return err_;           \
	} while (0)

int sys_openat(int dir, const char *path, int flags, mode_t mode)
{
	char buf[512];

	FAIL("openat", path);
	return opened((int)ret(openat(dir, real(path, buf, sizeof(buf)), flags, mode)), path);
}

int sys_close(int fd)
{
	FAIL("close", fd_name(fd));
	if (fd >= 0 && fd < FDS_MAX)
		fdpath[fd][0] = '\0';
	return (int)ret(close(fd));
}

ssize_t sys_read(int fd, void *buf, size_t len)
{
	FAIL("read", fd_name(fd));
	return ret(read(fd, buf, len));
}

ssize_t sys_write(int fd, const void *buf, size_t len)
{
	FAIL("write", fd_name(fd));
	return ret(write(fd, buf, len));
}

ssize_t sys_pread(int fd, void *buf, size_t len, off_t at)
{
	FAIL("pread", fd_name(fd));
	return ret(pread(fd, buf, len, at));
}

ssize_t sys_pwrite(int fd, const void *buf, size_t len, off_t at)
{
	FAIL("pwrite", fd_name(fd));
	return ret(pwrite(fd, buf, len, at));
}

off_t sys_lseek(int fd, off_t at, int whence)
{
	FAIL("lseek", fd_name(fd));
	return ret(lseek(fd, at, whence));
}

int sys_fsync(int fd)
{
	FAIL("fsync", fd_name(fd));
	return (int)ret(fsync(fd));
}

int sys_ftruncate(int fd, off_t len)
{
	FAIL("ftruncate", fd_name(fd));
	return (int)ret(ftruncate(fd, len));
}

int sys_fallocate(int fd, int mode, off_t at, off_t len)
{
	FAIL("fallocate", fd_name(fd));
	return (int)ret(fallocate(fd, mode, at, len));
}

int sys_ioctl(int fd, unsigned long req, void *arg)
{
	FAIL("ioctl", fd_name(fd));
	if (req == MEMERASE) {
		char at[24];

		snprintf(at, sizeof(at), "0x%x", ((const struct erase_info_user *)arg)->start);
		FAIL("erase", at);
	}
	return 0;
}

int sys_dup2(int fd, int to)
{
	FAIL("dup2", fd_name(fd));
	return (int)ret(dup2(fd, to));
}

int sys_pipe2(int fds[2], int flags)
{
	FAIL("pipe2", NULL);
	return (int)ret(pipe2(fds, flags));
}

int sys_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	FAIL("poll", NULL);
	return (int)ret(poll(fds, n, timeout_ms));
}

int sys_fstatat(int dir, const char *path, struct stat *st, int flags)
{
	char buf[512];

	int rc;

	FAIL("fstatat", path[0] ? path : fd_name(dir));
	rc = (int)ret(fstatat(dir, real(path, buf, sizeof(buf)), st, flags));
	if (rc == 0 && blockdev[0] && strcmp(path, blockdev) == 0)
		st->st_mode = S_IFBLK | 0600;
	return rc;
}

int sys_statfs(const char *path, struct statfs *sfs)
{
	char buf[512];

	FAIL("statfs", path);
	if (sfs_set) {
		*sfs = sfs_answer;
		return 0;
	}
	return (int)ret(statfs(real(path, buf, sizeof(buf)), sfs));
}

int sys_fstatfs(int fd, struct statfs *sfs)
{
	FAIL("fstatfs", fd_name(fd));
	if (sfs_set) {
		*sfs = sfs_answer;
		return 0;
	}
	return (int)ret(fstatfs(fd, sfs));
}

int sys_mkdirat(int dir, const char *path, mode_t mode)
{
	char buf[512];

	FAIL("mkdirat", path);
	return (int)ret(mkdirat(dir, real(path, buf, sizeof(buf)), mode));
}

int sys_unlinkat(int dir, const char *path, int flags)
{
	char buf[512];

	FAIL("unlinkat", path);
	return (int)ret(unlinkat(dir, real(path, buf, sizeof(buf)), flags));
}

int sys_link(const char *path, const char *to)
{
	char buf[512], buf2[512];

	FAIL("link", to);
	return (int)ret(link(real(path, buf, sizeof(buf)), real(to, buf2, sizeof(buf2))));
}

mode_t sys_umask(mode_t mask)
{
	IGNORE(call("umask", NULL));
	return mask;
}

int sys_chdir(const char *path)
{
	FAIL("chdir", path);
	return 0;
}

int sys_fchdir(int fd)
{
	FAIL("fchdir", fd_name(fd));
	return 0;
}

int sys_chroot(const char *path)
{
	FAIL("chroot", path);
	return 0;
}

/* A mount's target, made beneath root as the mount would find it; not
 * logged, for no system call of the boot makes it. */
static int make_dirs(const char *path)
{
	char buf[512];
	char *p;

	snprintf(buf, sizeof(buf), "%s%s", root, path);
	for (p = buf + strlen(root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(buf, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

int sys_mount(const char *src, const char *dst, const char *type, unsigned long flags,
	      const char *data)
{
	(void)src;
	(void)type;
	(void)flags;
	(void)data;
	FAIL("mount", dst);
	for (unsigned i = 0; i < MOUNTS_MAX; i++) {
		if (!mounts[i][0]) {
			snprintf(mounts[i], sizeof(mounts[i]), "%s", dst);
			break;
		}
	}
	return make_dirs(dst) == 0 ? 0 : -ENOENT;
}

int sys_umount2(const char *path, int flags)
{
	(void)flags;
	FAIL("umount2", path);
	for (unsigned i = 0; i < MOUNTS_MAX; i++) {
		if (strcmp(mounts[i], path) == 0) {
			mounts[i][0] = '\0';
			return 0;
		}
	}
	return -EINVAL;
}

int sys_remount(const char *path, unsigned long set, unsigned long clear)
{
	(void)set;
	(void)clear;
	FAIL("remount", path);
	return 0;
}

int sys_pivot_root(const char *new_root, const char *put_old)
{
	(void)put_old;
	FAIL("pivot_root", new_root);
	return 0;
}

int sys_finit_module(int fd, const char *params, int flags)
{
	(void)params;
	(void)flags;
	FAIL("finit_module", fd_name(fd));
	return 0;
}

int sys_execve(const char *path, char *const argv[], char *const envp[])
{
	(void)argv;
	(void)envp;
	FAIL("execve", path);
	return -ENOSYS;
}

int sys_fexecve(int fd, char *const argv[], char *const envp[])
{
	(void)argv;
	(void)envp;
	FAIL("fexecve", fd_name(fd));
	return -ENOSYS;
}

int sys_unshare(int flags)
{
	(void)flags;
	FAIL("unshare", "");
	return 0;
}

void (*fake_exit_hook)(int status);
int fake_exit_pid;

void sys_exit(int status)
{
	if (fake_exit_hook && getpid() == fake_exit_pid)
		fake_exit_hook(status);
	_exit(status);
}

int sys_kill(pid_t pid, int sig)
{
	char arg[16];

	(void)sig;
	snprintf(arg, sizeof(arg), "%d", (int)pid);
	FAIL("kill", arg);
	return 0;
}

pid_t sys_waitpid(pid_t pid, int *status, int flags)
{
	(void)flags;
	FAIL("waitpid", NULL);
	if (status)
		*status = 0;
	return pid;
}

int sys_waitid(idtype_t type, id_t id, siginfo_t *si, int flags)
{
	(void)type;
	(void)flags;
	FAIL("waitid", NULL);
	si->si_pid = (pid_t)id;
	return 0;
}

int sys_setpgid(pid_t pid, pid_t pgid)
{
	(void)pid;
	(void)pgid;
	FAIL("setpgid", NULL);
	return 0;
}

/* fork keeps libc's convention: -1 with errno */
pid_t sys_fork(void)
{
	int err = call("fork", NULL);

	errno = err ? -err : ENOSYS;
	return -1;
}

void sys_close_from(int low)
{
	(void)low;
	IGNORE(call("close_from", NULL));
}

int sys_prctl(int op, unsigned long arg)
{
	(void)op;
	(void)arg;
	FAIL("prctl", NULL);
	return 0;
}

int sys_sched_policy(int policy)
{
	(void)policy;
	FAIL("sched_policy", NULL);
	return 0;
}

void (*fake_power_hook)(int how);

void sys_power(int how)
{
	char arg[16];

	snprintf(arg, sizeof(arg), "%d", how);
	IGNORE(call("power", arg));
	if (how && fake_power_hook)
		fake_power_hook(how); /* a test's longjmp: the boot stopped here */
}

void sys_sleep_ms(unsigned ms)
{
	IGNORE(call("sleep_ms", NULL));
	fake_now_ms += ms;
}

uint64_t sys_now_ms(void)
{
	fake_now_ms += fake_tick_ms;
	return fake_now_ms;
}

int sys_uname(struct utsname *u)
{
	FAIL("uname", NULL);
	memset(u, 0, sizeof(*u));
	snprintf(u->release, sizeof(u->release), "%s", "6.1.0-fake");
	return 0;
}

int sys_map_shared(size_t len, void **page)
{
	void *p;

	FAIL("map_shared", NULL);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	*page = p;
	return 0;
}

int sys_unmap(void *page, size_t len)
{
	FAIL("unmap", NULL);
	return (int)ret(munmap(page, len));
}

void *sys_map_anon(size_t len)
{
	void *p;

	if (call("map_anon", NULL))
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

int sys_socket(int domain, int type, int proto)
{
	(void)domain;
	(void)type;
	(void)proto;
	FAIL("socket", NULL);
	return -ENOSYS;
}

int sys_bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	(void)sa;
	(void)len;
	FAIL("bind", fd_name(fd));
	return 0;
}

int sys_setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	(void)level;
	(void)name;
	(void)val;
	(void)len;
	FAIL("setsockopt", fd_name(fd));
	return 0;
}

ssize_t sys_recv(int fd, void *buf, size_t len, int flags)
{
	(void)buf;
	(void)len;
	(void)flags;
	FAIL("recv", fd_name(fd));
	return 0;
}

int sys_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	(void)sa;
	(void)len;
	FAIL("connect", fd_name(fd));
	return -ENETUNREACH;
}

ssize_t sys_sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *sa,
		   socklen_t salen)
{
	(void)buf;
	(void)flags;
	(void)sa;
	(void)salen;
	FAIL("sendto", fd_name(fd));
	return (ssize_t)len;
}

/* The calls of sys.h that lib/sysx.c makes (its file helpers, lib/sys.c,
 * run over this fake as they are), and those of resolve.h and filesave.h,
 * over the fake calls above so that a fault in them reaches the caller. */

int sys_fcntl(int fd, int cmd, long arg)
{
	FAIL("fcntl", fd_name(fd));
	return (int)ret(fcntl(fd, cmd, arg));
}

int sys_renameat2(int olddir, const char *oldpath, int newdir, const char *newpath,
		  unsigned flags)
{
	char a[512], b[512];

	FAIL("renameat2", newpath);
	return (int)ret(syscall(SYS_renameat2, olddir, real(oldpath, a, sizeof(a)), newdir,
				real(newpath, b, sizeof(b)), flags));
}

int sys_utimensat(int dir, const char *name, const struct timespec ts[2], int flags)
{
	char buf[512];

	FAIL("utimensat", name ? name : fd_name(dir));
	return (int)ret(syscall(SYS_utimensat, dir, name ? real(name, buf, sizeof(buf)) : NULL, ts,
				flags));
}

int sys_fchmodat(int dir, const char *name, mode_t mode)
{
	char buf[512];

	FAIL("fchmodat", name);
	return (int)ret(fchmodat(dir, real(name, buf, sizeof(buf)), mode, 0));
}

int sys_openat2(int dir, const char *path, int flags, uint64_t resolve)
{
	struct open_how how = { .flags = (uint64_t)(flags | O_CLOEXEC), .resolve = resolve };
	char buf[512];

	FAIL("openat2", path);
	int fd = (int)ret(syscall(SYS_openat2, dir, real(path, buf, sizeof(buf)), &how, sizeof(how)));

	/* a kernel before 5.6, and qemu-user (tests/host/bigendian.sh), have
	 * no openat2: the boot's own walk answers, as in lib/resolve.c */
	if (fd == -ENOSYS)
		fd = sys_openat2_walk(dir, real(path, buf, sizeof(buf)), flags, resolve);
	return opened(fd, path);
}

int sys_open_beneath(int dir, const char *path, int flags)
{
	while (*path == '/')
		path++;
	if (!*path)
		return -EINVAL;
	return sys_openat2(dir, path, flags, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV);
}

int sys_file_create(int dir, const char *name, mode_t mode)
{
	int rc = sys_unlinkat(dir, name, 0);

	if (rc < 0 && rc != -ENOENT)
		return rc;
	return sys_openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
}

int sys_file_commit(int dir, const char *tmp, const char *name)
{
	int rc = sys_renameat(dir, tmp, dir, name);

	return rc < 0 ? rc : sys_fsync(dir);
}

int sys_write_file_atomic(int dir, const char *name, const char *buf, size_t len, mode_t mode)
{
	char tmp[300];
	int fd, rc = 0;

	snprintf(tmp, sizeof(tmp), ".%s.new", name);
	fd = sys_file_create(dir, tmp, mode);
	if (fd < 0)
		return fd;
	while (len && rc == 0) {
		ssize_t n = sys_write(fd, buf, len);

		if (n < 0)
			rc = (int)n;
		else
			buf += n, len -= (size_t)n;
	}
	if (rc == 0)
		rc = sys_fsync(fd);
	sys_close(fd);
	if (rc == 0)
		rc = sys_file_commit(dir, tmp, name);
	if (rc)
		IGNORE(sys_unlinkat(dir, tmp, 0));
	return rc;
}

struct dirent64_hdr {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

int sys_dir_next(int dirfd, struct sys_dir_cursor *cur, const char **name)
{
	FAIL("dir_next", fd_name(dirfd));
	for (;;) {
		const struct dirent64_hdr *d;

		if (cur->pos >= cur->len) {
			cur->len = syscall(SYS_getdents64, dirfd, cur->buf, sizeof(cur->buf));
			cur->pos = 0;
			if (cur->len <= 0)
				return cur->len < 0 ? -errno : 0;
		}
		d = (const void *)(cur->buf + cur->pos);
		cur->pos += d->reclen;
		if (strcmp(d->name, ".") != 0 && strcmp(d->name, "..") != 0) {
			*name = d->name;
			return 1;
		}
	}
}

int sys_dir_each(int dirfd, int (*fn)(const char *name, unsigned char type, void *ctx), void *ctx)
{
	struct sys_dir_cursor cur = { 0, 0, { 0 } };
	const char *name;
	int rc;

	while ((rc = sys_dir_next(dirfd, &cur, &name)) > 0) {
		const struct dirent64_hdr *d =
			(const void *)(name - offsetof(struct dirent64_hdr, name));

		rc = fn(name, d->type, ctx);
		if (rc < 0)
			return rc;
	}
	return rc;
}
