// SPDX-License-Identifier: MIT
/* Admin command dispatch and help. */
#include "cmd/cli.h"

#include <string.h>

#include "cmd/out.h"
#include "lib/defs.h"

/* init/main.c runs it (init/mountroot.c); a build without init/ cannot. */
static int cmd_mount_root(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	out_err("unionroot mount-root: only the boot's own binary runs it\n");
	return 2;
}

static const struct command {
	char name[13]; /* an array: static-pie relocates each pointer */
	int (*fn)(int argc, char **argv);
	const char *usage; /* "USAGE\0HELP": one pointer, one relocation */
} commands[] = {
	{ "status", cmd_status, "status [--json]\0"
	  "show the branches, backend, fallbacks taken and why, writable usage, pending reset" },
	{ "plan", cmd_plan, "plan [CMDLINE]\0"
	  "print what a boot with this command line would do, touching nothing" },
	{ "reset", cmd_reset, "reset [--keep PATH]... [--reboot] [--yes]\0"
	  "schedule a factory reset of the writable branch for the next boot" },
	{ "diff", cmd_diff, "diff [--stat] [RW | --upper DIR [--lower DIR]...]\0"
	  "list what the writable branch changes: A added, M modified, D deleted" },
	{ "mount-root", cmd_mount_root, "mount-root --at DIR\0"
	  "inside another initramfs: the boot's plan, with the union left at DIR for it to switch to" },
	{ "boot-ok", cmd_boot_ok, "boot-ok\0"
	  "mark this boot healthy: clears the counter union.maxfails watches" },
#ifdef UNIONROOT_CRASHPOINTS
	{ "test-reset", cmd_test_reset, "test-reset DIR [STEP|-] [keeplist|factory] [LOWER]\0"
	  "test builds: apply a pending reset to the branch top DIR, killed after STEP" },
	{ "test-reserve", cmd_test_reserve, "test-reserve DIR make|release\0"
	  "test builds: make or give up the reserve of the branch top DIR as a boot does" },
#endif
	{ "copyup", cmd_copyup, "copyup [--reset] [--upgrade keep|reset] (--id ID|--image PATH) ROOT RW\0"
	  "run the copy-up step (first copy, merge, restore) on a tree; for tests and boards without an initramfs" },
	{ "probe", cmd_probe, "probe PATH...\0"
	  "identify file systems and partition tables like blkid, from their superblocks" },
};

/* The one usage text of each command, for help and for the commands' own
 * usage errors. */
static const struct command *find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static const char *help_of(const struct command *c)
{
	return c->usage + strlen(c->usage) + 1;
}

int cli_usage(const char *name, const char *bad)
{
	const struct command *c = find(name);

	if (bad)
		out_err("unionroot %s: unknown option \"%s\"; ", name, bad);
	out_err("usage: unionroot %s\n", c ? c->usage : name);
	return 2;
}

static int usage(int ok)
{
	int (*say)(const char *fmt, ...) = ok ? out : out_err;

	say("unionroot %s: a read-only image plus a writable branch as one root\n\n"
	    "As PID 1 in an initramfs it builds the union and starts the real init.\n"
	    "Afterwards it is the admin tool:\n\n",
	    UNIONROOT_VERSION);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		say("  unionroot %-26s %s\n", commands[i].usage, help_of(&commands[i]));
	say("\n  unionroot help COMMAND      help for one command\n"
	    "  unionroot --version\n");
	return ok ? 0 : 2;
}

static int dispatch(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;
	const struct command *cmd;

	if (!name)
		return usage(0);
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 ||
	    (strcmp(name, "help") == 0 && argc < 3))
		return usage(1);
	if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
		out("unionroot %s\n", UNIONROOT_VERSION);
		return 0;
	}
	if (strcmp(name, "help") == 0)
		name = argv[2];
	cmd = find(name);
	if (!cmd) {
		out_err("unionroot: unknown command \"%s\"; try 'unionroot --help'\n", name);
		return 2;
	}
	if (strcmp(argv[1], "help") == 0 ||
	    (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0))) {
		out("usage: unionroot %s\n  %s\n", cmd->usage, help_of(cmd));
		return 0;
	}
	return cmd->fn(argc - 1, argv + 1);
}

int cli_main(int argc, char **argv)
{
	int rc = dispatch(argc, argv);

	IGNORE(out_flush()); /* as at exit(3): a failed write does not change the status */
	return rc;
}
