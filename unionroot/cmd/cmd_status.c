// SPDX-License-Identifier: MIT
/* unionroot status: this boot's record from /run/unionroot/status, plus what
 * is live: usage of the writable branch, a pending reset, the boot counter.
 * --json prints the same keys as one JSON object (values as strings,
 * message= lines as an array "messages"). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "branch.h"
#include "cli.h"
#include "out.h"
#include "persist.h"
#include "reserve.h"
#include "reset.h"
#include "sbuf.h"
#include "state.h"
#include "strnum.h"
#include "sys.h"

struct out {
	int json;
	int first;
};

static void json_str(const char *s)
{
	out("\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			out("\\%c", c);
		else if (c < 0x20)
			out("\\u%04x", c);
		else
			out("%c", c);
	}
	out("\"");
}

static void field(struct out *o, const char *key, const char *val)
{
	if (!o->json) {
		out("%s=%s\n", key, val);
		return;
	}
	out("%s\n  ", o->first ? "{" : ",");
	o->first = 0;
	json_str(key);
	out(": ");
	json_str(val);
}

/* The boot record: key=value lines; message= lines gathered last in JSON. */
static void boot_record(struct out *o, char *text)
{
	int any_msg = 0;

	for (char *line = text, *nl; *line; line = nl + 1) {
		char *eq;

		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		eq = strchr(line, '=');
		if (eq && (!o->json || strncmp(line, "message=", 8) != 0)) {
			*eq = '\0';
			field(o, line, eq + 1);
			*eq = '=';
		}
		*nl = '\n';
	}
	if (!o->json)
		return;
	for (char *line = text, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		if (strncmp(line, "message=", 8) != 0)
			continue;
		*nl = '\0';
		out("%s\n  ", any_msg ? "," : (o->first ? "{" : ","));
		if (!any_msg)
			out("\"messages\": [\n    ");
		o->first = 0;
		json_str(line + 8);
		any_msg = 1;
		*nl = '\n';
	}
	if (any_msg)
		out("\n  ]");
}

/* ext4, f2fs and ubifs stop writing after an I/O error (a worn card), often
 * without marking the mount read-only: an unnamed file, created and dropped
 * at once, tells. Other errors (no O_TMPFILE on jffs2) say nothing. */
static void write_probe(struct out *o)
{
	char val[240];
	int fd = open(RUNTIME_RW, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);

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

static void live(struct out *o, unsigned warnfull, int persistent)
{
	static char text[RESET_REQUEST_MAX];
	char val[160];
	struct statfs vfs;
	struct ur_state st;
	struct reset_req req;
	struct persist p;
	int rw, state, rc;
	ssize_t n;

	if (statfs(RUNTIME_RW, &vfs) == 0 && vfs.f_blocks) {
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
	out(",\n  \"reset_keep\": [");
	for (unsigned i = 0; i < req.keep.n; i++) {
		out("%s", i ? ", " : "");
		json_str(req.keep.path[i]);
	}
	out("]");
}

int cmd_status(int argc, char **argv)
{
	static char text[8192];
	struct out o = { 0, 1 };
	ssize_t n;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			o.json = 1;
		} else {
			return cli_usage("status", argv[i]);
		}
	}
	n = sys_read_file(RUNTIME_DIR "/status", text, sizeof(text));
	if (n < 0) {
		out_err("unionroot status: %s/status: %s (was this system booted by unionroot?)\n",
			RUNTIME_DIR, strerror((int)-n));
		return 1;
	}
	boot_record(&o, text);
	{
		const char *w = str_find(text, "\nwarnfull=");
		uint64_t warnfull = 0;

		if (w) {
			w += 10;
			num_u64(&w, &warnfull);
		}

		live(&o, warnfull ? (unsigned)warnfull : 90, str_find(text, "\nupper_state=persistent") != NULL);
	}
	if (o.json)
		out("%s\n}\n", o.first ? "{" : "");
	return 0;
}
