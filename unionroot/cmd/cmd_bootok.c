// SPDX-License-Identifier: MIT
/* unionroot boot-ok: this boot is healthy; clears the boot counter that
 * union.maxfails watches. In a failsafe or kiosk boot the persistent branch
 * is read-only under /run/unionroot/saved: it is made writable for the one
 * atomic write, then read-only again (persist.c). */
#include <string.h>

#include "branch/branch.h"
#include "branch/persist.h"
#include "branch/state.h"
#include "cmd/cli.h"
#include "cmd/out.h"
#include "lib/runstate.h"

int cmd_boot_ok(int argc, char **argv)
{
	struct persist p;
	struct ur_state st;
	int rc, ro;

	if (argc > 1)
		return cli_usage("boot-ok", argv[1]);
	rc = persist_open(&p);
	if (rc < 0) {
		out_err("unionroot boot-ok: %s: %s; is there a writable branch?\n", RWDIR,
			strerror(-rc));
		return 1;
	}
	rc = state_load(p.fd, &st);
	if (rc < 0) {
		out_err("unionroot boot-ok: the control state is damaged (%s); writing a fresh one\n",
			state_error_name(rc));
		state_clear(&st);
	} else if (st.boots == 0) {
		IGNORE(persist_close(&p)); /* nothing was remounted */
		out("unionroot: boot counter already 0\n");
		return 0;
	}
	rc = persist_writable(&p);
	if (rc < 0) {
		out_err("unionroot boot-ok: making %s writable: %s\n", p.dir, strerror(-rc));
		IGNORE(persist_close(&p)); /* nothing was remounted */
		return 1;
	}
	st.boots = 0;
	rc = state_save(p.fd, &st);
	ro = persist_close(&p);
	if (ro < 0)
		out_err("unionroot boot-ok: %s stays writable: %s\n", p.dir, strerror(-ro));
	if (rc < 0) {
		out_err("unionroot boot-ok: saving %s/%s/%s: %s\n", p.dir, BRANCH_STATE,
			STATE_FILE, strerror(-rc));
		return 1;
	}
	out("unionroot: boot counter cleared; the next boot is a normal one\n");
	return 0;
}
