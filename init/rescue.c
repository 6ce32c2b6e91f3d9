// SPDX-License-Identifier: MIT
/* The never-return paths: break points, the rescue shell, union.onfail, and
 * the countdown to reboot when nothing else can run. PID 1 never exits. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot.h"
#include "lib/log.h"
#include "lib/sbuf.h"
#include "lib/sys.h"

#define SHELL "/bin/sh"
#define REBOOT_DELAY 10

int rescue_have_shell(void)
{
	return access(SHELL, X_OK) == 0;
}

int rescue_shell(const char *why)
{
	static char *const argv[] = { "sh", "-i", NULL };
	static char *const envp[] = { "PATH=/bin:/sbin:/usr/bin:/usr/sbin", "HOME=/",
				      "PS1=(unionroot rescue) # ", "TERM=linux", NULL };
	pid_t pid;

	if (!rescue_have_shell())
		return -ENOENT;
	log_err("%s; starting the rescue shell, leave it with 'exit' to continue", why);
	pid = sys_fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = open("/dev/console", O_RDWR | O_CLOEXEC);

		setsid();
		if (fd >= 0) {
			ioctl(fd, TIOCSCTTY, 1);
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execve(SHELL, argv, envp);
		_exit(127);
	}
	watchdog_step(0, "in the rescue shell"); /* a person takes their time */
	for (;;) {
		int status;
		pid_t r = waitpid(-1, &status, 0);

		if (r == pid || (r < 0 && errno == ECHILD))
			break;
	}
	watchdog_step_end();
	return 0;
}

static NORETURN void power(int how, const char *what)
{
	sync();
	for (int left = REBOOT_DELAY; how == RB_AUTOBOOT && left > 0; left--) {
		char line[48];

		if (strfmt(line, sizeof(line), "unionroot: rebooting in %d s\r", left) == 0)
			IGNORE(write(2, line, strlen(line))); /* console progress, best effort */
		sleep(1);
	}
	log_err("%s now", what);
	sync();
	reboot(how);
	/* reboot(2) refused: stay alive, PID 1 must never exit */
	for (;;)
		pause();
}

/* union.onfail=reboot or halt, or a refused verity layer's the same: said
 * with why, then done. */
static NORETURN void reboot_or_halt(int halt, const char *why)
{
	const char *now = halt ? "powering off" : "rebooting";

	log_err("%s; %s (union.onfail=%s)", why, now, halt ? "halt" : "reboot");
	power(halt ? RB_POWER_OFF : RB_AUTOBOOT, now);
}

void rescue_break(struct boot *b, int phase, const char *name)
{
	char why[64];

	if (!(b->cfg.brk & phase))
		return;
	IGNORE(strfmt(why, sizeof(why), "union.break=%s", name)); /* fits */
	if (rescue_shell(why) < 0)
		log_err("union.break=%s: no rescue shell in this initramfs; continuing", name);
}

NORETURN void rescue_fatal(struct boot *b, const char *why)
{
	(void)b;
	if (rescue_have_shell()) {
		IGNORE(rescue_shell(why)); /* whatever the shell did, we reboot next */
		power(RB_AUTOBOOT, "rescue shell left; rebooting");
	}
	log_err("%s; no rescue shell in the initramfs, rebooting in %d s", why, REBOOT_DELAY);
	power(RB_AUTOBOOT, "rebooting");
}

/* A refused read-only layer has no stand-in: the boot stops. A rescue shell
 * only when union.onfail=shell asks for it (a root shell is what swapping
 * the image is after), else a reboot, or union.onfail=halt's power off. */
void rescue_verity(struct boot *b, const char *why)
{
	if (b->plan.verity_fail == VFAIL_RESCUE)
		rescue_fatal(b, why);
	if (b->plan.verity_fail == VFAIL_HALT || b->cfg.onfail == ONFAIL_REBOOT)
		reboot_or_halt(b->plan.verity_fail == VFAIL_HALT, why);
	log_err("%s; rebooting in %d s (union.onfail=shell would open a rescue shell)", why, REBOOT_DELAY);
	power(RB_AUTOBOOT, "rebooting");
}

/* union.verity asks for verification the boot cannot give: the top layer is
 * refused by the path and in the words of a wrong root hash. */
void rescue_verity_refused(struct boot *b)
{
	char why[512];

	if (!b->plan.verity_refused[0] || !b->nlower)
		return;
	IGNORE(strfmt(why, sizeof(why), "read-only layer 1 %s: verity refused it: %s", b->lower_dev[0],
		      b->plan.verity_refused)); /* a cut line still names it */
	rescue_verity(b, why);
}


void onfail(struct boot *b, int step, int err, const char *why)
{
	struct plan_facts *f = &b->facts;
	struct sbuf sb;

	if (step == STEP_TMPFS) {
		f->tmpfs_errno = err;
	} else {
		f->failed_step = step;
		f->failed_errno = err;
		sbuf_init(&sb, f->upper_failed, sizeof(f->upper_failed));
		sbuf_add(&sb, why); /* for the plan; a cut reason still says the branch failed */
	}
	plan_build(f, &b->plan);
	if (b->plan.upper_kind == UPPER_NONE && b->plan.backend == PLAN_READONLY) {
		log_err("%s; booting read-only", why);
		return;
	}
	image_release_upper(b); /* before a shell: the user may mend the stick */
	switch (b->plan.fallback) {
	case FALLBACK_SHELL:
		if (rescue_shell(why) < 0)
			log_err("%s; no rescue shell in the initramfs (union.onfail=shell)", why);
		break;
	case FALLBACK_REBOOT:
	case FALLBACK_HALT:
		reboot_or_halt(b->plan.fallback == FALLBACK_HALT, why);
	default:
		break;
	}
	log_err("%s; booting with a volatile writable branch in RAM (union.onfail=%s)", why,
		config_onfail_name(b->plan.fallback));
	result_branch(b, OUTCOME_FALLBACK, why, err);
}
