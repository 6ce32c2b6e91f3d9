// SPDX-License-Identifier: MIT
/* unionroot reset: records a durable reset request on the persistent branch
 * (also from a failsafe or kiosk boot, where it is read-only under saved/);
 * PID 1 applies it at the next boot, before the union exists (changing a
 * mounted layer is undefined). A tmpfs branch has nothing to reset. */
#include <errno.h>
#include <string.h>
#include <sys/reboot.h>
#include <unistd.h>

#include "branch/branch.h"
#include "branch/keep.h"
#include "branch/persist.h"
#include "branch/reset.h"
#include "cmd/cli.h"
#include "cmd/out.h"
#include "lib/runstate.h"

/* where a system keeps its reboot (merged /usr, BusyBox, OpenWrt), tried in
 * turn, not PATH: a root tool runs no program a PATH entry planted */
static const char reboot_paths[][18] = { "/sbin/reboot", "/usr/sbin/reboot", "/bin/reboot",
					 "/usr/bin/reboot" };

static int confirm(void)
{
	char answer[16];
	ssize_t n;

	if (!isatty(0)) {
		out_err("unionroot reset: not on a terminal; use --yes to confirm\n");
		return 0;
	}
	out("Every change made to this system will be lost at the next boot,\n"
	    "except the paths named by --keep and " KEEP_FILE ".\n"
	    "Type 'yes' to schedule a factory reset: ");
	IGNORE(out_flush()); /* the prompt has no newline */
	/* a terminal (checked above) hands over one line a read; read(2)
	 * rather than fgets keeps stdio out of the binary */
	n = read(0, answer, sizeof(answer) - 1);
	if (n <= 0)
		return 0;
	answer[n] = '\0';
	return strcmp(answer, "yes\n") == 0;
}

int cmd_reset(int argc, char **argv)
{
	static struct reset_req req;
	struct persist p;
	int yes = 0, do_reboot = 0, rc, ro;

	memset(&req, 0, sizeof(req));
	req.keeplist = 1;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--yes") == 0 || strcmp(argv[i], "-y") == 0) {
			yes = 1;
		} else if (strcmp(argv[i], "--reboot") == 0) {
			do_reboot = 1;
		} else if (strcmp(argv[i], "--keep") == 0 && i + 1 < argc) {
			const char *why = keep_invalid(argv[++i]);

			if (why) {
				out_err("unionroot reset: refusing --keep \"%s\": %s\n", argv[i], why);
				return 2;
			}
			if (keep_add(&req.keep, argv[i]) < 0) {
				out_err("unionroot reset: more than %d --keep paths\n", KEEP_MAX);
				return 2;
			}
		} else {
			return cli_usage("reset", argv[i]);
		}
	}
	rc = persist_open(&p);
	if (rc < 0) {
		out_err("unionroot reset: %s: %s; is there a writable branch?\n", RWDIR,
			strerror(-rc));
		return 1;
	}
	if (p.volatile_only) {
		IGNORE(persist_close(&p)); /* nothing was remounted */
		out_err("unionroot reset: this boot's writable branch is a tmpfs (see 'unionroot status'): there is nothing persistent to reset; its changes are gone at the next boot anyway\n");
		return 1;
	}
	if (!yes && !confirm()) {
		IGNORE(persist_close(&p)); /* nothing was remounted */
		out_err("unionroot reset: not confirmed; nothing changed\n");
		return 1;
	}
	rc = persist_writable(&p);
	if (rc == 0)
		rc = branch_request_reset(p.fd, &req);
	ro = persist_close(&p);
	if (ro < 0)
		out_err("unionroot reset: %s stays writable: %s\n", p.dir, strerror(-ro));
	if (rc < 0) {
		out_err("unionroot reset: recording the request in %s/%s failed: %s\n", p.dir,
			BRANCH_STATE, strerror(-rc));
		return 1;
	}
	out("unionroot: factory reset scheduled for the next boot");
	if (req.keep.n)
		out(", keeping %u path(s) and those of %s", req.keep.n, KEEP_FILE);
	out("\n");
	if (do_reboot) {
		IGNORE(out_flush()); /* an exec would drop what stdout gathered */
		sync();
		/* the system's own reboot stops services cleanly; the syscall is
		 * the fallback when there is none */
		for (size_t i = 0; i < ARRAY_SIZE(reboot_paths); i++)
			execve(reboot_paths[i], (char *[]){ "reboot", NULL }, environ);
		if (reboot(RB_AUTOBOOT) < 0) {
			out_err("unionroot reset: reboot: %s\n", strerror(errno));
			return 1;
		}
	}
	return 0;
}
