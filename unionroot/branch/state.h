/* SPDX-License-Identifier: MIT */
/* Control state in .unionroot/state on the writable branch: the identity of
 * the read-only layers last booted and the boot counter. Parsing and
 * formatting are pure; saving is write-new, fsync, rename, fsync-directory. */
#ifndef UNIONROOT_STATE_H
#define UNIONROOT_STATE_H

#include <stddef.h>

#include "branch/identity.h"
#include "lib/defs.h"

#define STATE_FILE "state"          /* inside .unionroot */
#define STATE_TEXT_MAX 2048         /* a longer file is damaged */
#define STATE_LOWER_MAX 8
#define STATE_ID_MAX IDENTITY_MAX    /* identity.h */

struct ur_state {
	unsigned boots;                 /* boots since the last 'unionroot boot-ok' */
	unsigned nlower;
	char lower[STATE_LOWER_MAX][STATE_ID_MAX];
};

/* text -> state. 0, or -EINVAL for anything not written by state_format
 * (the state is then as after state_clear: no layers known, no boots). */
int state_parse(const char *text, struct ur_state *st) WUR;
/* state -> text; 0 or -ENAMETOOLONG. */
int state_format(const struct ur_state *st, char *buf, size_t cap) WUR;
void state_clear(struct ur_state *st);

/* Reads .unionroot/state below the branch top rw. 0 (missing = clear state),
 * -EINVAL garbage, -EFBIG oversized, other -errno; *st is cleared on error. */
int state_load(int rw, struct ur_state *st) WUR;
/* Writes it atomically and durably. 0 or -errno. */
int state_save(int rw, const struct ur_state *st) WUR;

/* Did a layer change? 1 when the saved identities differ from the current
 * ones (or their count differs), 0 when they match, 0 when nothing was saved
 * yet (a first boot is no upgrade). */
int state_lowers_changed(const struct ur_state *saved, const struct ur_state *now);

/* Why state_load failed, in a few words ("oversized", "not a state file"). */
const char *state_error_name(int err);
#endif
