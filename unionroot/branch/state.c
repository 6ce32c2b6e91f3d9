// SPDX-License-Identifier: MIT
/* .unionroot/state: "unionroot-state 1", then "boots N" and one "lower ID"
 * line per read-only layer. Strict: any other line makes the file garbage. */
#include "branch/state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "branch/branch.h"
#include "lib/filesave.h"
#include "lib/lines.h"
#include "lib/sbuf.h"
#include "lib/strnum.h"
#include "lib/sys.h"
#include "lib/sysx.h"

#define STATE_MAGIC "unionroot-state 1"

void state_clear(struct ur_state *st)
{
	memset(st, 0, sizeof(*st));
}

static int parse_uint(const char *s, unsigned *out)
{
	uint64_t v;

	if (!num_u64(&s, &v) || *s || v > 1000000)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

/* An identity is printable ASCII without spaces at its ends. */
static int valid_id(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= STATE_ID_MAX || s[0] == ' ' || s[n - 1] == ' ')
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return 0;
	return 1;
}

static int state_line(const char *line, void *ctx)
{
	struct ur_state *st = ctx;

	if (strncmp(line, "boots ", 6) == 0)
		return parse_uint(line + 6, &st->boots);
	if (strncmp(line, "lower ", 6) != 0 || st->nlower >= STATE_LOWER_MAX || !valid_id(line + 6))
		return -EINVAL;
	memcpy(st->lower[st->nlower++], line + 6, strlen(line + 6) + 1);
	return 0;
}

int state_parse(const char *text, struct ur_state *st)
{
	char line[STATE_ID_MAX + 16];

	state_clear(st);
	if (lines_strict(text, STATE_MAGIC, line, sizeof(line), state_line, st) == 0)
		return 0;
	state_clear(st);
	return -EINVAL;
}

int state_format(const struct ur_state *st, char *buf, size_t cap)
{
	struct sbuf sb;

	sbuf_init(&sb, buf, cap);
	sbuf_addf(&sb, STATE_MAGIC "\nboots %u\n", st->boots);
	for (unsigned i = 0; i < st->nlower && i < STATE_LOWER_MAX; i++)
		sbuf_addf(&sb, "lower %s\n", st->lower[i]);
	return sbuf_done(&sb);
}

int state_load(int rw, struct ur_state *st)
{
	char text[STATE_TEXT_MAX + 1];
	int dir = sys_openat(rw, BRANCH_STATE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	ssize_t n;

	state_clear(st);
	if (dir < 0)
		return dir == -ENOENT ? 0 : dir;
	n = sys_read_fileat(dir, STATE_FILE, text, sizeof(text));
	sys_close(dir);
	if (n == -ENOENT)
		return 0;
	if (n < 0)
		return (int)n;
	return state_parse(text, st);
}

int state_save(int rw, const struct ur_state *st)
{
	char text[STATE_TEXT_MAX + 1], old[STATE_TEXT_MAX + 1];
	int dir, rc = state_format(st, text, sizeof(text));
	size_t len = strlen(text);

	if (rc < 0)
		return rc;
	dir = sys_openat(rw, BRANCH_STATE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (dir < 0)
		return dir;
	/* Most boots (no boot counting, the same images) save what the file
	 * holds: those bytes reached the disk when a boot wrote them (fsynced,
	 * renamed, directory fsynced), so rewriting them would only cost two
	 * journal commits and cache flushes. */
	if (sys_read_fileat(dir, STATE_FILE, old, sizeof(old)) == (ssize_t)len &&
	    memcmp(old, text, len) == 0) {
		sys_close(dir);
		return 0;
	}
	rc = sys_write_file_atomic(dir, STATE_FILE, text, len, 0600);
	sys_close(dir);
	return rc;
}

int state_lowers_changed(const struct ur_state *saved, const struct ur_state *now)
{
	if (saved->nlower == 0)
		return 0;
	if (saved->nlower != now->nlower)
		return 1;
	for (unsigned i = 0; i < now->nlower; i++)
		if (strcmp(saved->lower[i], now->lower[i]) != 0)
			return 1;
	return 0;
}

const char *state_error_name(int err)
{
	return err == -EINVAL ? "not a state file" : err == -EFBIG ? "oversized" : strerror(-err);
}
