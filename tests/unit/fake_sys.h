/* SPDX-License-Identifier: MIT */
/* A fake of the syscall edge (lib/sysx.c: the calls of lib/sysx.h and
 * lib/sys.h) for unit tests of init/: build/host/unit-init links init/
 * files versus it; lib/sys.c's file helpers run over it unchanged.
 *  - Every call is logged as one line "name arg" (arg: the path, the mount
 *    target, or the path an fd was opened with); fake_sys_log() reads it.
 *  - A table of faults: fake_sys_fail("mount", "/newroot", 0, -ENODEV) fails
 *    every sys_mount onto /newroot; nth 3 fails only the third match; arg
 *    NULL matches any argument.
 *  - Files, directories and descriptors are real, under the root given to
 *    fake_sys_reset() (an absolute path "/x" is root/x); mount, umount2,
 *    execve, kill, finit_module, ioctl, the sockets and fork are not: mount
 *    records the target (fake_sys_mounted) and makes its directory, the
 *    others answer 0 (fork, socket, execve: -ENOSYS).
 *  - An MTD erase (ioctl MEMERASE) is logged once more, as "erase 0xOFFSET",
 *    where a fault may hit it; fake_sys_blockdev() makes a path stat as a
 *    block device (an mtdblock node).
 *  - fake_sys_statfs() sets what statfs/fstatfs answer (a full branch);
 *    sys_now_ms() reads fake_now_ms and adds fake_tick_ms each call. */
#ifndef FAKE_SYS_H
#define FAKE_SYS_H

#include <stdint.h>
#include <sys/statfs.h>

/* Forgets the log, the faults, the mounts and the statfs answer; root is
 * where absolute paths go (a test's unit_tmpdir()). */
void fake_sys_reset(const char *root);
void fake_sys_fail(const char *call, const char *arg, unsigned nth, int err);
/* The log, one "name arg\n" a call. */
const char *fake_sys_log(void);
/* How many logged lines are exactly line ("mount /newroot"). */
unsigned fake_sys_count(const char *line);
/* NULL: the real file system's answer. */
void fake_sys_statfs(const struct statfs *sfs);
int fake_sys_mounted(const char *target);
/* fstatat on path (as the code names it) answers S_IFBLK; NULL: none. */
void fake_sys_blockdev(const char *path);

extern uint64_t fake_now_ms, fake_tick_ms;
/* Called by sys_power with a reboot(2) command: a test longjmps out, for
 * PID 1 would stop there. */
extern void (*fake_power_hook)(int how);
/* sys_exit in the process that set it: the test's longjmp, not an exit */
extern void (*fake_exit_hook)(int status);
extern int fake_exit_pid;
#endif
