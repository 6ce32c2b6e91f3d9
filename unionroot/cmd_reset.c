// SPDX-License-Identifier: MIT
/* unionroot reset: records a durable reset request; PID 1 applies it at the
 * next boot, before the union exists (changing a mounted layer is undefined). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/reboot.h>
#include <unistd.h>

#include "branch.h"
#include "cli.h"
#include "keep.h"
#include "reset.h"

static int confirm(void)
{
	char answer[16];

	if (!isatty(0)) {
		fprintf(stderr, "unionroot reset: not on a terminal; use --yes to confirm\n");
		return 0;
	}
	printf("Every change made to this system will be lost at the next boot,\n"
	       "except the paths named by --keep and " KEEP_FILE ".\n"
	       "Type 'yes' to schedule a factory reset: ");
	fflush(stdout);
	if (!fgets(answer, sizeof(answer), stdin))
		return 0;
	return strcmp(answer, "yes\n") == 0;
}

int cmd_reset(int argc, char **argv)
{
	static struct reset_req req;
	int yes = 0, do_reboot = 0, rw, rc;

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
				fprintf(stderr, "unionroot reset: refusing --keep \"%s\": %s\n", argv[i], why);
				return 2;
			}
			if (keep_add(&req.keep, argv[i]) < 0) {
				fprintf(stderr, "unionroot reset: more than %d --keep paths\n", KEEP_MAX);
				return 2;
			}
		} else {
			fprintf(stderr, "unionroot reset: unknown option \"%s\"; usage: unionroot reset [--keep PATH]... [--reboot] [--yes]\n",
				argv[i]);
			return 2;
		}
	}
	rw = open(RUNTIME_RW, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rw < 0) {
		fprintf(stderr, "unionroot reset: %s: %s; is there a writable branch?\n", RUNTIME_RW,
			strerror(errno));
		return 1;
	}
	if (!yes && !confirm()) {
		close(rw);
		fprintf(stderr, "unionroot reset: not confirmed; nothing changed\n");
		return 1;
	}
	rc = branch_request_reset(rw, &req);
	close(rw);
	if (rc < 0) {
		fprintf(stderr, "unionroot reset: recording the request in %s/%s failed: %s\n",
			RUNTIME_RW, BRANCH_STATE, strerror(-rc));
		return 1;
	}
	printf("unionroot: factory reset scheduled for the next boot");
	if (req.keep.n)
		printf(", keeping %u path(s) and those of %s", req.keep.n, KEEP_FILE);
	printf("\n");
	if (do_reboot) {
		sync();
		/* the system's own reboot stops services cleanly; the syscall is
		 * the fallback when there is none */
		execlp("reboot", "reboot", (char *)NULL);
		if (reboot(RB_AUTOBOOT) < 0) {
			fprintf(stderr, "unionroot reset: reboot: %s\n", strerror(errno));
			return 1;
		}
	}
	return 0;
}
