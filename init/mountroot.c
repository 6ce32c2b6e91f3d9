// SPDX-License-Identifier: MIT
/* `unionroot mount-root --at DIR`: the boot's own plan, run inside another
 * initramfs (initramfs-tools' mountroot(), dracut's mount hook, a systemd
 * unit before initrd-root-fs.target). The same loop runs the same steps;
 * the last one leaves the union at DIR instead of switching, and the host
 * moves /run, with /run/unionroot and the media under it, into the new
 * root as it switches. A boot that would stop says why in one line and
 * exits 1; union.onfail=shell exits 1 too, to the host's own shell. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>

#include "boot.h"
#include "cmd/cli.h"
#include "lib/log.h"
#include "lib/sys.h"
#include "lib/sysx.h"
#include "steps.h"

NORETURN void mountroot_fail(const char *why, int status)
{
	log_err("%s; mount-root gives up (exit %d), the host's initramfs takes over", why, status);
	early_restore();
	sys_exit(status);
}

/* DIR: an absolute directory, not a symlink, not the host's own root. */
static int usable_dir(const char *dir)
{
	struct stat st;

	if (dir[0] != '/' || strcmp(dir, "/") == 0 || strlen(dir) >= 200)
		return -EINVAL;
	if (sys_fstatat(AT_FDCWD, dir, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -ENOENT;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/* initramfs-tools mounts /run noexec: the runtime copy of this binary,
 * which the real root's admin commands run, needs a tmpfs that may. */
static void exec_rundir(void)
{
	struct statfs sfs;
	int rc;

	if (sys_statfs("/run", &sfs) < 0 || !(sfs.f_flags & ST_NOEXEC))
		return;
	rc = sys_mkdir_p(RUNDIR, 0755);
	if (rc == 0)
		rc = sys_mount("tmpfs", RUNDIR, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755");
	if (rc < 0)
		log_warn("/run is noexec and a tmpfs at %s failed (%s): %s cannot run from there",
			 RUNDIR, strerror(-rc), RUN_BIN);
}

int mountroot_main(struct boot *b, int argc, char **argv, char **envp)
{
	struct stat st;
	int rc;

	if (argc != 4 || strcmp(argv[2], "--at") != 0) {
		return cli_usage("mount-root", NULL);
	}
	rc = usable_dir(argv[3]);
	if (rc < 0) {
		log_setup(-1, 2);
		log_err("mount-root --at %s: %s", argv[3],
			rc == -EINVAL ? "not an absolute directory below /" : strerror(-rc));
		return 2;
	}
	b->t_start = sys_now_ms();
	b->argv = argv;
	b->envp = envp;
	b->facts.mount_at = argv[3];
	sys_umask(022);
	/* the host mounted /proc, /sys, /dev and /run; its console is ours */
	/* each line once: on the console through kmsg when its level shows
	 * there, else on fd 2; kmsg's rate limit lifted until the end */
	log_setup(sys_open("/dev/kmsg", O_WRONLY | O_CLOEXEC), 2);
	log_set_console_loglevel(early_console_loglevel());
	early_kmsg_unlimited();
	if (sys_stat("/proc/self/mountinfo", &st) < 0 || sys_stat("/run", &st) < 0 || !S_ISDIR(st.st_mode)) {
		log_err("mount-root needs /proc and /run, which the host's initramfs mounts");
		return 1;
	}
	exec_rundir();
	configure(b);
	boot_run(b); /* the last step exits */
}

NORETURN void mountroot_done(struct boot *b)
{
	if (b->plan.backend == PLAN_STOP)
		rescue_fatal(b, b->plan.backend_why);
	step_close_branch(b);
	b->t_mounts = sys_now_ms();
	log_info("root: %s; writable branch %s", b->backend, b->upper_state);
	handoff_records(b);
	log_note("the union is at %s on %s root, for the host to switch; mount-root took %llu ms "
		 "(modules %llu, devices %llu, mounts %llu)", boot_root(b), b->backend,
		 (unsigned long long)(sys_now_ms() - b->t_start),
		 (unsigned long long)(b->t_modules - b->t_start),
		 (unsigned long long)(b->t_devices - b->t_modules),
		 (unsigned long long)(b->t_mounts - b->t_devices));
	early_restore();
	sys_exit(0);
}
