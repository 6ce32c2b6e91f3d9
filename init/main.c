// SPDX-License-Identifier: MIT
/* unionroot: PID 1 when the kernel started it (its configuration, then the
 * plan's steps, init/run.c); `mount-root` the same steps inside another
 * initramfs (init/mountroot.c); anything else is the admin tool. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "cmd/cli.h"
#include "lib/relro.h"
#include "lib/sys.h"
#include "steps.h"

static struct boot boot;

/* The kernel's own init: PID 1 of the first PID namespace, the one where
 * PID 2 is the kernel's kthreadd (rest_init() starts init, then kthreadd;
 * no namespace made later holds a kernel thread). PID 1 of a namespace
 * (`unshare -pf unionroot status`, a container's entrypoint) is the admin
 * tool, never the boot: that would read the host's command line and apply
 * its reset or count its boots on the live branch. The kernel's init runs
 * the boot whatever its argv holds (the kernel passes stray command-line
 * words there), for it must never exit. */
static int kernel_init(void)
{
	return getpid() == 1 && (kill(2, 0) == 0 || errno == EPERM);
}

int main(int argc, char **argv, char **envp)
{
	const char *name;

	/* before anything reads input: the pointer tables become read-only */
	IGNORE(relro_seal());
	/* systemd-shutdown runs it as PID 1 too: before kernel_init() */
	name = argc > 0 ? strrchr(argv[0], '/') : NULL;
	if (argc > 0 && strcmp(name ? name + 1 : argv[0], "shutdown") == 0)
		shutdown_main(argc, argv);
	if (!kernel_init() && argc > 1 && strcmp(argv[1], "mount-root") == 0)
		return mountroot_main(&boot, argc, argv, envp);
	if (!kernel_init())
		return cli_main(argc, argv);

	boot.t_start = sys_now_ms();
	boot.argv = argv;
	boot.envp = envp;

	early_setup(&boot);     /* 1. /proc /sys /dev /run, console, kmsg */
	watchdog_start();       /*    names a step PID 1 hangs in */
	watchdog_phase(WD_PHASE_S, "reading the configuration");
	configure(&boot);       /* 2. board defaults, then the command line */
	noinitramfs_setup(&boot); /* booted without one: the root is the lower */
	boot_run(&boot);        /* 3.-7. the plan's steps, one at a time */
}
