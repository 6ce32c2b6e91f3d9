// SPDX-License-Identifier: MIT
/* The never-return paths: break points, the rescue shell, reboot or halt, and
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
#include "lib/sysx.h"

#define SHELL "/bin/sh"

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
	sys_power(0);
	for (int left = RESCUE_REBOOT_S; how == RB_AUTOBOOT && left > 0; left--) {
		char line[48];

		if (strfmt(line, sizeof(line), "unionroot: rebooting in %d s\r", left) == 0)
			IGNORE(sys_write(2, line, strlen(line))); /* console progress, best effort */
		sys_sleep_ms(1000);
	}
	log_err("%s now", what);
	sys_power(how);
	/* reboot(2) refused: stay alive, PID 1 must never exit */
	for (;;)
		sys_sleep_ms(3600 * 1000);
}

void rescue_power(int halt, const char *what)
{
	power(halt ? RB_POWER_OFF : RB_AUTOBOOT, what);
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
	if (boot_hosted(b)) /* mount-root: the host's initramfs says what follows */
		mountroot_fail(why, 1);
	if (rescue_have_shell()) {
		IGNORE(rescue_shell(why)); /* whatever the shell did, we reboot next */
		power(RB_AUTOBOOT, "rescue shell left; rebooting");
	}
	log_err("%s; no rescue shell in the initramfs, rebooting in %d s", why, RESCUE_REBOOT_S);
	power(RB_AUTOBOOT, "rebooting");
}
