/* SPDX-License-Identifier: MIT */
/* The syscall edge: calls musl 1.2.3 has no wrapper for (made in
 * lib/sysx.c, with the plain ones), and small helpers over them (lib/sys.c)
 * that return -errno instead of setting errno. */
#ifndef UNIONROOT_SYS_H
#define UNIONROOT_SYS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "lib/defs.h"

int sys_finit_module(int fd, const char *params, int flags) WUR;
int sys_renameat2(int olddir, const char *oldpath, int newdir, const char *newpath,
		  unsigned flags) WUR;
/* renameat(2), which only <stdio.h> declares (stdio stays in cmd/): 0, or
 * -errno with errno set as well. */
static inline int sys_renameat(int olddir, const char *oldpath, int newdir, const char *newpath)
{
	return sys_renameat2(olddir, oldpath, newdir, newpath, 0);
}
/* fcntl(2)'s plain commands (F_GETFD, F_GETFL, F_SETFL): musl's wrapper
 * brings emulations of others (0.4 KB) nobody here asks for. >= 0 or -errno
 * (errno set as well). */
int sys_fcntl(int fd, int cmd, long arg) WUR;
/* utimensat(2) (name NULL: dir itself) and fchmodat(2) as the kernel has
 * them: musl's wrappers carry emulations for kernels before 2.6.22 and for
 * AT_SYMLINK_NOFOLLOW (0.8 KB) that copy-up never needs. 0 or -errno. */
int sys_utimensat(int dir, const char *name, const struct timespec ts[2], int flags) WUR;
int sys_fchmodat(int dir, const char *name, mode_t mode) WUR;
int sys_pivot_root(const char *new_root, const char *put_old) WUR;

/* mount(2) returning -errno. */
int sys_mount(const char *src, const char *dst, const char *type,
	      unsigned long flags, const char *data) WUR;
/* Whether the file system under fd / path is mounted read-only (ST_RDONLY
 * in statfs's f_flags, which Linux fills since 2.6.36: musl's statvfs only
 * copies them over, in 0.5 KB); 0 when it cannot tell. */
int fd_readonly(int fd);
int path_readonly(const char *path);
/* Remounts the mount at path with the flags it has now (statfs f_flags:
 * nodev, nosuid, noexec, the atime ones, ro), minus clear, plus set: a bare
 * MS_REMOUNT would replace its nodev/nosuid/noexec with none. set may hold
 * MS_BIND (per-mount flags only). 0 or -errno. */
int sys_remount(const char *path, unsigned long set, unsigned long clear) WUR;
/* mkdir -p for paths we own (/run/...); 0 or -errno. */
int sys_mkdir_p(const char *path, mode_t mode) WUR;
/* Files on a branch or a medium, where anything may be planted at a name
 * unionroot reads or writes: a FIFO (an open would wait forever), a device,
 * a symlink out, a directory. Every such file is opened through these.
 * sys_file_check: fd (opened O_NONBLOCK) must be a regular file; returns it
 * blocking again, or -errno with fd closed (-EINVAL: no regular file); a
 * negative fd passes through. st (may be NULL) gets its stat. */
int sys_file_check(int fd, struct stat *st) WUR;
/* openat, never following a symlink as the last component (-ELOOP), then
 * the check. fd or -errno. */
int sys_file_open(int dir, const char *name, int flags, struct stat *st) WUR;
/* Reads a whole small regular file into buf (NUL-terminated); length or
 * -errno (-EFBIG when it does not fit, -EINVAL when it is no regular file;
 * a symlink as the last component is not followed: -ELOOP). */
ssize_t sys_read_file(const char *path, char *buf, size_t cap) WUR;
ssize_t sys_read_fileat(int dir, const char *path, char *buf, size_t cap) WUR;
/* The same from an open fd, from where it is. */
ssize_t sys_read_fd(int fd, char *buf, size_t cap) WUR;
/* Memory of len bytes, zeroed, in a mapping of its own (PID 1 has no
 * malloc; the exec of the real init frees it): NULL when there is none. */
void *sys_map_anon(size_t len);
/* The regular file path read whole into memory of its size (sys_map_anon),
 * NUL-terminated, into *text: its length, or -errno with *text as it was
 * (-EFBIG when the file is larger than max bytes). */
ssize_t sys_map_text(const char *path, size_t max, char **text) WUR;
/* Whether path (from dir) names anything, a symlink itself included: an
 * lstat, as musl's faccessat(AT_SYMLINK_NOFOLLOW) needs faccessat2 (Linux
 * 5.8) and answers EINVAL before it. 1 or 0. */
int sys_lexists(int dir, const char *path);
/* fork(): PID 1 has no threads, no stdio locks to take and no atfork
 * handlers, so musl's _Fork, without fork()'s lock-taking around it. */
pid_t sys_fork(void);
/* Closes every descriptor from low up (close_range, or one by one before
 * Linux 5.9): a child about to exec a program keeps only what it set up. */
void sys_close_from(int low);
/* Milliseconds since boot (CLOCK_BOOTTIME): the one clock. */
uint64_t sys_now_ms(void);

/* Calls fn for each entry of an open directory except "." and "..", without
 * allocating (getdents64 into a stack buffer). fn returns < 0 to stop. */
int sys_dir_each(int dirfd, int (*fn)(const char *name, unsigned char type, void *ctx),
		 void *ctx) WUR;

/* A directory read one entry at a time, so that a walk can stop between two
 * entries, do other work and go on (rmtree holds one per open level). Zero
 * it, with the directory at offset 0, to start. */
struct sys_dir_cursor {
	long len, pos; /* buf holds len bytes of getdents64; pos is the next */
	char buf[1024] __attribute__((aligned(8))); /* 3 entries of NAME_MAX */
};
/* The next entry's name (not "." or ".."), valid until the next call: 1,
 * 0 at the end, or -errno. */
int sys_dir_next(int dirfd, struct sys_dir_cursor *cur, const char **name) WUR;
#endif
