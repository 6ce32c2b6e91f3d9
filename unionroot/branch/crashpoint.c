// SPDX-License-Identifier: MIT
/* Crash points: a no-op unless built for tests. */
#include "branch/crashpoint.h"

#include <errno.h>
#include <string.h>

#include "branch/reset.h"
#include "lib/sbuf.h"

#ifdef UNIONROOT_CRASHPOINTS
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/strnum.h"

static char armed[16];
static int reboot_armed;

int crashpoint_available(void)
{
	return 1;
}

int crashpoint_arm(const char *step, int reboot)
{
	static const char steps[] = CRASH_STEPS;
	size_t n = strlen(step);
	const char *p = str_find(steps, step);

	if (n == 0 || n >= sizeof(armed) || !p || (p != steps && p[-1] != ' ') ||
	    (p[n] != ' ' && p[n] != '\0'))
		return -EINVAL;
	reboot_armed = reboot;
	return strcopy(armed, sizeof(armed), step);
}

int crashpoint_hit(const char *step, void *ctx)
{
	(void)ctx;
	if (!armed[0] || strcmp(armed, step) != 0)
		return 0;
	log_warn("test crash point: stopping dead after step \"%s\"", step);
	if (reboot_armed) {
		/* 'b': reboot at once, no sync, no unmount: what a power cut
		 * leaves of the page cache is what the disk already has */
		int fd = open("/proc/sysrq-trigger", O_WRONLY | O_CLOEXEC);

		if (fd >= 0)
			IGNORE(write(fd, "b", 1)); /* does not return when it works */
	}
	kill(getpid(), SIGKILL);
	for (;;)
		pause();
}

static unsigned stall_s;

int crashpoint_stall_arm(unsigned seconds)
{
	stall_s = seconds;
	return 0;
}

void crashpoint_stall(void)
{
	unsigned left = stall_s;

	if (!left)
		return;
	stall_s = 0;
	log_warn("test stall: sleeping %u s", left);
	while ((left = sleep(left)) > 0)
		;
}
#else
int crashpoint_available(void)
{
	return 0;
}

int crashpoint_arm(const char *step, int reboot)
{
	(void)step;
	(void)reboot;
	return -EPERM;
}

int crashpoint_hit(const char *step, void *ctx)
{
	(void)step;
	(void)ctx;
	return 0;
}

int crashpoint_stall_arm(unsigned seconds)
{
	(void)seconds;
	return -EPERM;
}

void crashpoint_stall(void)
{
}
#endif
