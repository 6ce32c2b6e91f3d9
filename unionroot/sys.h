/* SPDX-License-Identifier: MIT */
/* The syscall edge: calls musl 1.2.3 has no wrapper for, and small helpers
 * that return -errno instead of setting errno. */
#ifndef UNIONROOT_SYS_H
#define UNIONROOT_SYS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "defs.h"

int sys_finit_module(int fd, const char *params, int flags) WUR;
int sys_renameat2(int olddir, const char *oldpath, int newdir, const char *newpath,
		  unsigned flags) WUR;
/* openat2 with RESOLVE_* flags; before 5.6 (ENOSYS) the same resolution
 * done one component at a time (resolve.c), or -ENOSYS for what it lacks. */
int sys_openat2(int dir, const char *path, int flags, uint64_t resolve) WUR;
/* Opens path (leading '/' ignored) inside the tree at dir, never leaving it:
 * no "..", no symlink out of it, no magic links, no other mount. Symlinks
 * within the tree resolve.
 * An untrusted medium's file or -errno (-EXDEV: the path tried to leave). */
int sys_open_beneath(int dir, const char *path, int flags) WUR;
int sys_pivot_root(const char *new_root, const char *put_old) WUR;

/* mount(2) returning -errno. */
int sys_mount(const char *src, const char *dst, const char *type,
	      unsigned long flags, const char *data) WUR;
/* Whether the file system under fd / path is mounted read-only (statvfs's
 * ST_RDONLY); 0 when it cannot tell. */
int fd_readonly(int fd);
int path_readonly(const char *path);
/* mkdir -p for paths we own (/run/...); 0 or -errno. */
int sys_mkdir_p(const char *path, mode_t mode) WUR;
/* Reads a whole small regular file into buf (NUL-terminated); length or
 * -errno (-EFBIG when it does not fit, -EINVAL when it is no regular file;
 * a symlink as the last component is not followed: -ELOOP). */
ssize_t sys_read_file(const char *path, char *buf, size_t cap) WUR;
ssize_t sys_read_fileat(int dir, const char *path, char *buf, size_t cap) WUR;
/* Writes buf to path: new file, fsync, rename over, fsync the directory. */
int sys_write_file_atomic(int dir, const char *name, const char *buf, size_t len,
			  mode_t mode) WUR;
/* Milliseconds since boot (CLOCK_BOOTTIME): the one clock. */
uint64_t sys_now_ms(void);

/* Calls fn for each entry of an open directory except "." and "..", without
 * allocating (getdents64 into a stack buffer). fn returns < 0 to stop. */
int sys_dir_each(int dirfd, int (*fn)(const char *name, unsigned char type, void *ctx),
		 void *ctx) WUR;
#endif
