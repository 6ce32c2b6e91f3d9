// SPDX-License-Identifier: MIT
/* unionroot: PID 1 as SPEC.md's seven steps, one call each, when the kernel
 * started it; anything else is the admin tool. */
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "boot.h"
#include "cmd/cli.h"
#include "lib/relro.h"
#include "lib/sys.h"

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
	/* before anything reads input: the pointer tables become read-only */
	IGNORE(relro_seal());
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
	rescue_break(&boot, BREAK_MODULES, "modules");
	watchdog_phase(WD_PHASE_S, "loading modules");
	modules_load(&boot);    /* 3. modules in dependency order */
	devices_wait(&boot);    /* 4. media, uevent driven, with deadlines */
	watchdog_phase(WD_PHASE_S, "preparing a blank writable medium");
	firstboot(&boot);       /*    a blank writable medium: union.format= */
	rescue_break(&boot, BREAK_MOUNT, "mount");
	watchdog_phase(WD_PHASE_S, "building the union");
	union_build(&boot);     /* 5. layers, writable branch, union */
	rescue_break(&boot, BREAK_SWITCH, "switch");
	watchdog_phase(WD_PHASE_S, "handing over to the real init");
	handoff(&boot);         /* 6.+7. branches to /run/unionroot, free, exec */
}
