// SPDX-License-Identifier: MIT
/* Steps 6 and 7: prepare and check everything that can fail (the new init,
 * the runtime copy of this binary, the status), then commit: move /dev /proc
 * /sys /run into the new root, free the initramfs, switch root, exec. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot.h"
#include "branch.h"
#include "crashpoint.h"
#include "fdcopy.h"
#include "log.h"
#include "rmtree.h"
#include "sbuf.h"
#include "sys.h"

static const char *const moved[] = { "/dev", "/proc", "/sys", "/run" };

/* Is path an executable regular file inside the new root, resolving its
 * symlinks (/sbin/init -> /lib/systemd/systemd) as if chrooted there? */
static int usable_init(int root, const char *path)
{
	struct stat st;
	int fd = sys_openat2(root, path, O_PATH, RESOLVE_IN_ROOT);
	int ok;

	if (fd < 0)
		return 0;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
	close(fd);
	return ok;
}

static int copy_file(const char *src, const char *dst, mode_t mode)
{
	static char buf[16384];
	int in, out, rc;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (out < 0) {
		rc = -errno;
		close(in);
		return rc;
	}
	rc = fd_copy(in, out, FDCOPY_ALL, buf, sizeof(buf), NULL, NULL);
	close(in);
	if (close(out) < 0 && !rc)
		rc = -errno;
	return rc;
}

static void runtime_copies(void)
{
	int rc = sys_mkdir_p(RUNDIR "/bin", 0755);

	if (rc == 0)
		rc = copy_file("/proc/self/exe", RUNDIR "/bin/unionroot", 0755);
	if (rc < 0)
		log_err("copying unionroot to %s/bin failed: %s; the runtime commands need the image's own copy",
			RUNDIR, strerror(-rc));
	rc = copy_file("/etc/unionroot.conf", RUNDIR "/unionroot.conf", 0644);
	if (rc < 0 && rc != -ENOENT)
		log_warn("copying the board defaults to %s failed: %s", RUNDIR, strerror(-rc));
}

/* Deletes the old writable tree after the switch, in a child, so a reset
 * costs the same for ten files as for a million. Whatever the backend; and
 * no child at all on the usual boot with an empty trash. */
static void trash_in_background(struct boot *b)
{
	pid_t pid;

	if (!b->trash_pending || !b->backend)
		return;
	pid = sys_fork();
	if (pid != 0) {
		if (pid < 0)
			log_warn("cannot start the trash cleaner: %s; the next boot tries again",
				 strerror(errno));
		return;
	}
	{
		int rw, rc;

		/* best effort: stay out of the real init's way (PID 1 runs at
		 * nice 0, so this is nice(10) without its read of the old value) */
		IGNORE(setpriority(PRIO_PROCESS, 0, 10));
		rw = open(RWDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		rc = rw < 0 ? -errno : branch_trash_empty(rw);
		if (rc < 0 && rc != -ENOENT)
			log_warn("emptying %s/.unionroot/trash failed: %s; the next boot tries again",
				 RWDIR, strerror(-rc));
		if (rw >= 0 && b->reset_applied)
			IGNORE(crashpoint_hit("trash", NULL)); /* returns unless a test armed it */
		_exit(0);
	}
}

static void free_initramfs(void)
{
	struct statfs sfs;
	struct stat st;
	int root, rc;

	/* only ever the initramfs: ramfs/tmpfs, and only on its own device */
	if (statfs("/", &sfs) < 0 || (sfs.f_type != RAMFS_MAGIC && sfs.f_type != TMPFS_MAGIC)) {
		log_warn("/ is not an initramfs; not deleting anything from it");
		return;
	}
	root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return;
	if (fstat(root, &st) == 0) {
		rc = rmtree_contents(root, st.st_dev);
		if (rc < 0 && rc != -EXDEV)
			log_warn("freeing the initramfs: %s; some memory stays in use", strerror(-rc));
	}
	close(root);
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
	close(root);
	IGNORE(config_inits_text(inits, sizeof(inits))); /* fits */
	IGNORE(strfmt(why, sizeof(why), "no init in the new root (tried init=, %s)", inits));
	rescue_fatal(b, why);
}

NORETURN void handoff(struct boot *b)
{
	const char *init;
	char *argv[64];
	int root, argc = 0;

	/* --- check: nothing below this block may be undone --- */
	root = open(NEWROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		rescue_fatal(b, "cannot open the new root " NEWROOT);
	init = choose_init(b, root);
	for (size_t i = 0; i < ARRAY_SIZE(moved); i++) {
		struct stat st;

		if (fstatat(root, moved[i] + 1, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
		    mkdirat(root, moved[i] + 1, 0755) < 0)
			log_warn("the new root has no %s and it cannot be made (%s)", moved[i],
				 strerror(errno));
	}
	close(root);
	argv[argc++] = (char *)init;
	for (int i = 1; b->argv[i] && argc < (int)ARRAY_SIZE(argv) - 1; i++)
		argv[argc++] = b->argv[i];
	argv[argc] = NULL;
	runtime_copies();
	status_write(b);
	log_note("switching to %s on %s root; PID 1 took %llu ms (modules %llu, devices %llu, mounts %llu)",
		 init, b->backend,
		 (unsigned long long)(sys_now_ms() - b->t_start),
		 (unsigned long long)(b->t_modules - b->t_start),
		 (unsigned long long)(b->t_devices - b->t_modules),
		 (unsigned long long)(b->t_mounts - b->t_devices));

	watchdog_stop(); /* it must not outlive the initramfs it runs from */

	/* --- commit --- */
	IGNORE(sys_mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)); /* rootfs is private already */
	for (size_t i = 0; i < ARRAY_SIZE(moved); i++) {
		char dst[64];
		int rc;

		IGNORE(strfmt(dst, sizeof(dst), NEWROOT "%s", moved[i])); /* fits */
		rc = sys_mount(moved[i], dst, NULL, MS_MOVE, NULL);
		if (rc < 0) {
			log_warn("moving %s into the new root failed: %s; unmounting it", moved[i],
				 strerror(-rc));
			IGNORE(umount2(moved[i], MNT_DETACH)); /* nothing better to do */
		}
	}
	if (b->pivot) {
		int rc = noinitramfs_switch();

		if (rc < 0) {
			char why[96];

			IGNORE(strfmt(why, sizeof(why), "pivot_root into the union failed: %s",
				      strerror(-rc))); /* fits */
			rescue_fatal(b, why);
		}
	} else {
		free_initramfs();
		if (chdir(NEWROOT) < 0 || sys_mount(".", "/", NULL, MS_MOVE, NULL) < 0 ||
		    chroot(".") < 0 || chdir("/") < 0) {
			char why[96];

			IGNORE(strfmt(why, sizeof(why), "switching to the new root failed: %s",
				      strerror(errno))); /* fits */
			rescue_fatal(b, why);
		}
	}
	trash_in_background(b);
	early_restore();
	status_handoff(b);
	execve(init, argv, b->envp);
	log_err("executing %s failed: %s; trying the others", init, strerror(errno));
	for (size_t i = b->pivot ? 1 : 0; i < CFG_INITS; i++) {
		argv[0] = (char *)config_inits[i];
		execve(config_inits[i], argv, b->envp);
	}
	rescue_fatal(b, "no init could be executed in the new root");
}
