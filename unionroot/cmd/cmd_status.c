// SPDX-License-Identifier: MIT
/* unionroot status: this boot's record from /run/unionroot/status, plus what
 * is read now: usage of the writable branch, a pending reset, the boot counter.
 * Lines as the record stores them (values escaped, lib/record.h); --json
 * prints the same keys once each as one JSON object (values as strings,
 * message= lines as an array "messages", cmd/json.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "branch/branch.h"
#include "branch/persist.h"
#include "branch/reserve.h"
#include "branch/reset.h"
#include "branch/state.h"
#include "cmd/cli.h"
#include "cmd/json.h"
#include "cmd/out.h"
#include "lib/record.h"
#include "lib/runstate.h"
#include "lib/sbuf.h"
#include "lib/sys.h"

/* the JSON object, or NULL for key=value lines */
struct out {
	struct json_obj *json;
};

static void put_out(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	out("%.*s", (int)n, s);
}

/* KEY=VALUE, the value escaped as the record stores it: one line whatever
 * it holds */
static void print_line(const char *key, size_t key_len, const char *val, size_t val_len)
{
	out("%.*s=", (int)key_len, key);
	record_escape(put_out, NULL, val, val_len);
	out("\n");
}

static void field(struct out *o, const char *key, const char *val)
{
	if (!o->json)
		print_line(key, strlen(key), val, strlen(val));
	else if (json_key(o->json, key, strlen(key)))
		json_str(o->json, val, strlen(val));
}

/* a value of the record, decoded */
static char record_val[RECORD_MAX + RECORD_TAIL_MAX];

/* The boot record: its lines as they are stored, or the JSON fields. */
static void boot_record(struct out *o, const char *text)
{
	struct record_line l;

	if (o->json) {
		json_record(o->json, text);
		return;
	}
	while (record_next(&text, &l))
		print_line(l.key, l.key_len, record_val, record_unescape(l.val, l.val_len, record_val));
}

/* ext4, f2fs and ubifs stop writing after an I/O error (a worn card), often
 * without marking the mount read-only: an unnamed file, created and dropped
 * at once, tells. Other errors (no O_TMPFILE on jffs2) say nothing. */
static void write_probe(struct out *o)
{
	char val[240];
	int fd = open(RWDIR, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);

	if (fd >= 0) {
		close(fd);
		return;
	}
	if ((errno == EROFS || errno == EIO) &&
	    strfmt(val, sizeof(val),
		   "the writable branch refuses writes (%s): the kernel stops writing after I/O errors (a failing medium?); changes since then are lost; the next boot checks it",
		   strerror(errno)) == 0)
		field(o, "upper_error", val);
}

/* What the record cannot hold, read now: the writable branch's usage and
 * health, its boot counter, a pending reset and its keep paths. */
static void print_branch_now(struct out *o, unsigned warnfull, int persistent)
{
	static char text[RESET_REQUEST_MAX];
	char val[160];
	struct statfs vfs;
	struct ur_state st;
	struct reset_req req;
	struct persist p;
	int rw, state, rc;
	ssize_t n;

	if (statfs(RWDIR, &vfs) == 0 && vfs.f_blocks) {
		unsigned long long total = (unsigned long long)vfs.f_blocks * vfs.f_frsize;
		unsigned long long avail = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
		unsigned used_pct = (unsigned)fs_used_percent(&vfs); /* f_blocks > 0 */

		if (strfmt(val, sizeof(val), "%u", used_pct) == 0)
			field(o, "upper_used_percent", val);
		if (strfmt(val, sizeof(val), "%llu", avail / 1024) == 0)
			field(o, "upper_free_kib", val);
		if (strfmt(val, sizeof(val), "%llu", total / 1024) == 0)
			field(o, "upper_size_kib", val);
		if (used_pct >= warnfull &&
		    strfmt(val, sizeof(val), "%u%% full, over union.warnfull=%u%%: writes fail when it is full",
			   used_pct, warnfull) == 0)
			field(o, "upper_warning", val);
	}
	/* the control state lives on the persistent branch: read-only under
	 * saved/ in a failsafe or kiosk boot */
	if (persistent)
		write_probe(o);
	if (persist_open(&p) < 0)
		return;
	rw = p.fd;
	rc = state_load(rw, &st);
	if (rc < 0) {
		IGNORE(strfmt(val, sizeof(val), "damaged (%s)", state_error_name(rc))); /* fits */
		field(o, "boot_counter", val);
	} else if (strfmt(val, sizeof(val), "%u", st.boots) == 0)
		field(o, "boot_counter", val);
	state = openat(rw, BRANCH_STATE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	IGNORE(persist_close(&p)); /* nothing was remounted */
	n = state < 0 ? -ENOENT : sys_read_fileat(state, RESET_REQUEST, text, sizeof(text));
	if (state >= 0)
		close(state);
	if (n == -ENOENT) {
		field(o, "reset_pending", "no");
		return;
	}
	field(o, "reset_pending", "yes");
	if (n < 0 || reset_request_parse(text, &req) < 0) {
		field(o, "reset_request", "damaged: the reset keeps only " KEEP_FILE);
		return;
	}
	field(o, "reset_keeplist", req.keeplist ? "yes" : "no");
	if (!o->json) {
		for (unsigned i = 0; i < req.keep.n; i++)
			field(o, "reset_keep", req.keep.path[i]);
		return;
	}
	if (!json_key(o->json, "reset_keep", 10))
		return;
	json_raw(o->json, "[");
	for (unsigned i = 0; i < req.keep.n; i++) {
		json_raw(o->json, i ? ", " : "");
		json_str(o->json, req.keep.path[i], strlen(req.keep.path[i]));
	}
	json_raw(o->json, "]");
}

int cmd_status(int argc, char **argv)
{
	static char text[RECORD_MAX + RECORD_TAIL_MAX];
	static struct runstate rs;
	static struct json_obj json;
	struct out o = { NULL };
	char why[160];
	int persistent = 0;
	unsigned warnfull = 90;
	ssize_t n;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			o.json = &json;
		} else {
			return cli_usage("status", argv[i]);
		}
	}
	n = sys_read_file(RUN_STATUS, text, sizeof(text));
	if (n < 0) {
		out_err("unionroot status: %s: %s (was this system booted by unionroot?)\n", RUN_STATUS,
			strerror((int)-n));
		return 1;
	}
	/* the record is shown as stored whatever the parser says: a line it
	 * refuses is still the boot's word */
	if (runstate_parse(text, &rs, why, sizeof(why)) < 0) {
		out_err("unionroot status: %s: %s; the union.warnfull default applies\n", RUN_STATUS, why);
	} else {
		if (rs.warnfull > 0)
			warnfull = (unsigned)rs.warnfull;
		persistent = strncmp(rs.upper_state, "persistent", 10) == 0;
	}
	if (o.json)
		json_open(o.json, put_out, NULL);
	boot_record(&o, text);
	print_branch_now(&o, warnfull, persistent);
	if (o.json)
		json_close(o.json);
	return 0;
}
