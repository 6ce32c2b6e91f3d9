// SPDX-License-Identifier: MIT
/* Steps 6 and 7: prepare and check everything that can fail (the new init,
 * the runtime copy of this binary, the status), then commit: move /dev /proc
 * /sys /run into the new root, switch root, leave the initramfs to a cleaner
 * child, exec. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/mount.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot.h"
#include "branch/branch.h"
#include "branch/crashpoint.h"
#include "lib/fdcopy.h"
#include "lib/log.h"
#include "lib/resolve.h"
#include "lib/rmtree.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"

static const char moved[][6] = { "/dev", "/proc", "/sys", "/run" };

/* Is path an executable regular file inside the new root, resolving its
 * symlinks (/sbin/init -> /lib/systemd/systemd) as if chrooted there? */
static int usable_init(int root, const char *path)
{
	struct stat st;
	int fd = sys_openat2(root, path, O_PATH, RESOLVE_IN_ROOT);
	int ok;

	if (fd < 0)
		return 0;
	ok = sys_fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
	sys_close(fd);
	return ok;
}

static int copy_file(const char *src, const char *dst, mode_t mode)
{
	static char buf[16384];
	int in, out, rc, closed;

	in = sys_open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return in;
	out = sys_openat(AT_FDCWD, dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (out < 0) {
		sys_close(in);
		return out;
	}
	rc = fd_copy(in, out, FDCOPY_ALL, buf, sizeof(buf), NULL, NULL);
	sys_close(in);
	closed = sys_close(out);
	return rc ? rc : closed;
}

/* systemd-shutdown's way back (init/shutdown.c): the runtime copy linked
 * as /run/initramfs/shutdown, with the mount points the switch needs. */
static void shutdown_layout(void)
{
	static const char dirs[][24] = { RUN_INITRAMFS "/dev", RUN_INITRAMFS "/proc", RUN_INITRAMFS "/sys",
					 RUN_INITRAMFS "/run", RUN_INITRAMFS "/oldroot" };
	int rc = 0;

	for (size_t i = 0; i < ARRAY_SIZE(dirs) && rc == 0; i++)
		rc = sys_mkdir_p(dirs[i], 0755);
	if (rc == 0)
		rc = sys_link(RUN_BIN, RUN_SHUTDOWN);
	if (rc < 0)
		log_warn("laying out %s failed: %s; the shutdown leaves the union mounted",
			 RUN_INITRAMFS, strerror(-rc));
}

/* shutdown: lay out PID 1's way back at poweroff (in another initramfs,
 * the way back is the host's) */
static void runtime_copies(int shutdown)
{
	int rc = sys_mkdir_p(RUNDIR "/bin", 0755);

	if (rc == 0)
		rc = copy_file("/proc/self/exe", RUNDIR "/bin/unionroot", 0755);
	if (rc < 0)
		log_err("copying unionroot to %s/bin failed: %s; the runtime commands need the image's own copy",
			RUNDIR, strerror(-rc));
	else if (shutdown)
		shutdown_layout();
	utab_keep_media();
	rc = copy_file("/etc/unionroot.conf", RUNDIR "/unionroot.conf", 0644);
	if (rc < 0 && rc != -ENOENT)
		log_warn("copying the board defaults to %s failed: %s", RUNDIR, strerror(-rc));
}

void handoff_records(struct boot *b)
{
	runtime_copies(!boot_hosted(b));
	status_write(b);
}

/* The initramfs's root, opened before the switch so that its files can be
 * deleted after it; -1 when / is not one (ramfs or tmpfs). */
static int initramfs_root(void)
{
	struct statfs sfs;
	int fd;

	/* f_type is a signed word in 32-bit glibc, where ramfs' magic is negative */
	if (sys_statfs("/", &sfs) < 0 ||
	    ((unsigned long)sfs.f_type != RAMFS_MAGIC && (unsigned long)sfs.f_type != TMPFS_MAGIC)) {
		log_warn("/ is not an initramfs; not deleting anything from it");
		return -1;
	}
	fd = sys_open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		log_warn("freeing the initramfs: %s; some memory stays in use", strerror(-fd));
		return -1;
	}
	return fd;
}

/* Only ever the initramfs's own files: rmtree stays on its mount. The
 * module pack goes first: its loop holds its file. */
static void free_initramfs(int old)
{
	struct stat st;
	int rc;

	modpack_release(old);
	if (sys_fstat(old, &st) == 0) {
		rc = rmtree_contents(old, st.st_dev);
		if (rc < 0 && rc != -EXDEV)
			log_warn("freeing the initramfs: %s; some memory stays in use", strerror(-rc));
	}
}

/* After the switch, in one child, out of the real init's way: free the
 * initramfs (old: its root, or -1), then delete the old writable tree, so a
 * reset costs the same for ten files as for a million. Deleting a PC board's
 * 15 MB of modules before the exec held the real init back 0.1 s under TCG,
 * most of it the kernel's own freeing after the unlinks. No child when there
 * is nothing to delete; without one the initramfs is freed here. */
static void clean_in_background(struct boot *b, int old)
{
	int trash = b->trash_pending && b->backend;
	pid_t pid;

	if (old < 0 && !trash)
		return;
	pid = sys_fork();
	if (pid != 0) {
		if (pid < 0 && old >= 0) /* the trash waits for the next boot */
			free_initramfs(old);
		if (old >= 0)
			sys_close(old);
		return;
	}
	/* best effort: run only when the real init leaves the CPU idle (musl's
	 * sched_setscheduler is a stub); nice 10 still took 0.05 s of its start */
	IGNORE(sys_sched_policy(SCHED_IDLE));
	if (old >= 0)
		free_initramfs(old);
	if (trash) {
		int rw = sys_open(RWDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		int rc = rw < 0 ? rw : branch_trash_empty(rw);

		if (rc < 0 && rc != -ENOENT)
			log_warn("emptying %s/.unionroot/trash failed: %s; the next boot tries again",
				 RWDIR, strerror(-rc));
		if (rw >= 0 && b->reset_applied)
			IGNORE(crashpoint_hit("trash", NULL)); /* returns unless a test armed it */
	}
	sys_exit(0);
}

/* init= if it is there, else the first of the candidates that is. */
static const char *choose_init(struct boot *b, int root)
{
	char why[128], inits[64];

	if (b->cfg.init[0]) {
		if (usable_init(root, b->cfg.init))
			return b->cfg.init;
		log_err("init %s is not an executable file in the new root; trying %s",
			b->cfg.init, config_inits[0]);
	}
	/* without an initramfs /sbin/init is unionroot itself: skipped */
	for (size_t i = b->pivot ? 1 : 0; i < CFG_INITS; i++)
		if (usable_init(root, config_inits[i]))
			return config_inits[i];
	sys_close(root);
	IGNORE(config_inits_text(inits, sizeof(inits))); /* fits */
	IGNORE(strfmt(why, sizeof(why), "no init in the new root (tried init=, %s)", inits));
	rescue_fatal(b, why);
}

/* Everything that can still fail without harm: the init chosen (argv[0]),
 * the mount points the early mounts move to, the status written. */
static const char *handoff_check(struct boot *b, char **argv, size_t cap)
{
	const char *init;
	int root, argc = 0, rc;

	root = sys_open(NEWROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		rescue_fatal(b, "cannot open the new root " NEWROOT);
	init = choose_init(b, root);
	for (size_t i = 0; i < ARRAY_SIZE(moved); i++) {
		struct stat st;

		if (sys_fstatat(root, moved[i] + 1, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
		    (rc = sys_mkdirat(root, moved[i] + 1, 0755)) < 0)
			log_warn("the new root has no %s and it cannot be made (%s)", moved[i],
				 strerror(-rc));
	}
	sys_close(root);
	argv[argc++] = (char *)init;
	for (int i = 1; b->argv[i] && argc < (int)cap - 1; i++)
		argv[argc++] = b->argv[i];
	argv[argc] = NULL;
	handoff_records(b);
	log_note("switching to %s on %s root; PID 1 took %llu ms (modules %llu, devices %llu, mounts %llu)",
		 init, b->backend,
		 (unsigned long long)(sys_now_ms() - b->t_start),
		 (unsigned long long)(b->t_modules - b->t_start),
		 (unsigned long long)(b->t_devices - b->t_modules),
		 (unsigned long long)(b->t_mounts - b->t_devices));

	watchdog_stop(); /* it must not outlive the initramfs it runs from */
	return init;
}

/* Nothing from here on may be undone: the early mounts move, the root
 * switches, the initramfs is freed, the init runs. */
static NORETURN void handoff_commit(struct boot *b, const char *init, char **argv)
{
	int old = -1, rc;

	IGNORE(sys_mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)); /* rootfs is private already */
	for (size_t i = 0; i < ARRAY_SIZE(moved); i++) {
		char dst[64];

		IGNORE(strfmt(dst, sizeof(dst), NEWROOT "%s", moved[i])); /* fits */
		rc = sys_mount(moved[i], dst, NULL, MS_MOVE, NULL);
		if (rc < 0) {
			log_warn("moving %s into the new root failed: %s; unmounting it", moved[i],
				 strerror(-rc));
			IGNORE(sys_umount2(moved[i], MNT_DETACH)); /* nothing better to do */
		}
	}
	if (b->pivot) {
		rc = noinitramfs_switch();
		if (rc < 0) {
			char why[96];

			IGNORE(strfmt(why, sizeof(why), "pivot_root into the union failed: %s",
				      strerror(-rc))); /* fits */
			rescue_fatal(b, why);
		}
	} else {
		old = initramfs_root(); /* -1: its memory, the module pack's too, stays in use */
		if ((rc = sys_chdir(NEWROOT)) < 0 || (rc = sys_mount(".", "/", NULL, MS_MOVE, NULL)) < 0 ||
		    (rc = sys_chroot(".")) < 0 || (rc = sys_chdir("/")) < 0) {
			char why[96];

			IGNORE(strfmt(why, sizeof(why), "switching to the new root failed: %s",
				      strerror(-rc))); /* fits */
			rescue_fatal(b, why);
		}
	}
	clean_in_background(b, old);
	early_restore();
	status_handoff(b);
	rc = sys_execve(init, argv, b->envp);
	log_err("executing %s failed: %s; trying the others", init, strerror(-rc));
	for (size_t i = b->pivot ? 1 : 0; i < CFG_INITS; i++) {
		argv[0] = (char *)config_inits[i];
		IGNORE(sys_execve(config_inits[i], argv, b->envp)); /* the next one, then rescue */
	}
	rescue_fatal(b, "no init could be executed in the new root");
}

NORETURN void handoff(struct boot *b)
{
	char *argv[64];
	const char *init = handoff_check(b, argv, ARRAY_SIZE(argv));

	handoff_commit(b, init, argv);
}
