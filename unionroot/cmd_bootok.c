// SPDX-License-Identifier: MIT
/* unionroot boot-ok: this boot is healthy; clears the boot counter that
 * union.maxfails watches. In a failsafe boot the persistent branch is
 * read-only under /run/unionroot/saved: it is made writable for the one
 * atomic write, then read-only again. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "branch.h"
#include "cli.h"
#include "state.h"
#include "sys.h"

int cmd_boot_ok(int argc, char **argv)
{
	const char *dir = RUNTIME_DIR "/saved";
	struct ur_state st;
	int rw, rc, remounted = 0;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "unionroot boot-ok: takes no options\n");
		return 2;
	}
	rw = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rw < 0) {
		dir = RUNTIME_RW;
		rw = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (rw < 0) {
		fprintf(stderr, "unionroot boot-ok: %s: %s; is there a writable branch?\n", dir,
			strerror(errno));
		return 1;
	}
	rc = state_load(rw, &st);
	if (rc < 0) {
		fprintf(stderr, "unionroot boot-ok: the control state is damaged (%s); writing a fresh one\n",
			state_error_name(rc));
		state_clear(&st);
	} else if (st.boots == 0) {
		close(rw);
		printf("unionroot: boot counter already 0\n");
		return 0;
	}
	if (fd_readonly(rw)) {
		if (mount(NULL, dir, NULL, MS_REMOUNT | MS_NOATIME, NULL) < 0) {
			fprintf(stderr, "unionroot boot-ok: making %s writable: %s\n", dir,
				strerror(errno));
			close(rw);
			return 1;
		}
		remounted = 1;
	}
	st.boots = 0;
	rc = state_save(rw, &st);
	close(rw);
	if (remounted && mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY | MS_NOATIME, NULL) < 0)
		fprintf(stderr, "unionroot boot-ok: %s stays writable: %s\n", dir, strerror(errno));
	if (rc < 0) {
		fprintf(stderr, "unionroot boot-ok: saving %s/%s/%s: %s\n", dir, BRANCH_STATE,
			STATE_FILE, strerror(-rc));
		return 1;
	}
	printf("unionroot: boot counter cleared; the next boot is a normal one\n");
	return 0;
}
