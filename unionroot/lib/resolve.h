/* SPDX-License-Identifier: MIT */
/* openat2 through sys_openat2, and its path resolution done in userspace
 * for kernels before 5.6, where the syscall meets ENOSYS. */
#ifndef UNIONROOT_RESOLVE_H
#define UNIONROOT_RESOLVE_H

#include <stdint.h>

#include "lib/defs.h"

/* openat2(dir, path, {flags, resolve}) one component at a time: the same fd
 * or the same -errno the kernel would give (O_CLOEXEC added), -ENOSYS for a
 * flag it does not implement (O_CREAT, O_TMPFILE, RESOLVE_CACHED). Limits:
 * RESOLVE_NO_XDEV compares st_dev, so a bind mount of the same file system
 * goes unnoticed; RESOLVE_NO_MAGICLINKS refuses every symlink on procfs, the
 * plain /proc/self too. Public for the tests, which compare it with the
 * kernel's. */
int sys_openat2_walk(int dir, const char *path, int flags, uint64_t resolve) WUR;
/* openat2 with RESOLVE_* flags; before 5.6 (ENOSYS) the same resolution
 * done one component at a time (resolve.c), or -ENOSYS for what it lacks. */
int sys_openat2(int dir, const char *path, int flags, uint64_t resolve) WUR;
/* Opens path (leading '/' ignored) inside the tree at dir, never leaving it:
 * no "..", no symlink out of it, no magic links, no other mount. Symlinks
 * within the tree resolve.
 * An untrusted medium's file or -errno (-EXDEV: the path tried to leave). */
int sys_open_beneath(int dir, const char *path, int flags) WUR;

#endif
