// SPDX-License-Identifier: MIT
/* The results of step 5 that several steps report: what the writable branch
 * became and the factory reset carried out. Each step says what happened;
 * the texts of the status are made here, so no step writes another's. */
#include <string.h>

#include "boot.h"
#include "lib/sbuf.h"

/* one writer: the text is never aliased, so tests/host/owners.sh sees it */
#define STATE(...) IGNORE(strfmt(b->upper_state, sizeof(b->upper_state), __VA_ARGS__))

void result_branch(struct boot *b, int what, const char *detail, int err)
{
	switch (what) {
	case OUTCOME_PERSISTENT:
		STATE("persistent on %s (%s)", b->upper_dev, detail); /* fits: short names */
		break;
	case OUTCOME_VOLATILE: /* a failure, failsafe or session said more already */
	case OUTCOME_NONE:
		if (!b->upper_state[0])
			STATE(what == OUTCOME_NONE ? "none (union.upper=none)" :
			      "volatile (union.upper=tmpfs)"); /* fits */
		break;
	case OUTCOME_FALLBACK:
		STATE("volatile: %s", detail); /* may cut */
		break;
	case OUTCOME_FAILSAFE:
		STATE("volatile: failsafe: %s", b->failsafe); /* fits */
		break;
	case OUTCOME_SESSION:
		STATE("volatile: kiosk session (union.session=volatile)%s%s%s",
		      detail ? "; the saved branch " : "", detail ? detail : "",
		      !detail ? "" : b->plan.backend == PLAN_COPYUP ? " is copied into RAM (copy-up)" :
		      " is a read-only layer"); /* fits */
		break;
	case OUTCOME_NO_COPYUP:
		STATE("none: copy-up is needed, and this build has none"); /* fits */
		break;
	default: /* OUTCOME_LOST */
		STATE("none: %s failed: %s", detail, strerror(-err)); /* fits */
		break;
	}
}

void result_reset(struct boot *b, const char *why, unsigned kept, unsigned refused)
{
	b->reset_applied = 1;
	b->reset_why = why;
	b->reset_kept = kept;
	b->reset_refused = refused;
}
