// SPDX-License-Identifier: MIT
/* Reset steps. Invariants that make every power cut old-or-factory:
 * .unionroot/ready exists only as a complete, synced new upper; upper/ is
 * replaced by renaming it to the trash and then ready/ to upper/, and a boot
 * that finds ready/ without upper/ does the second rename; the request is
 * cleared last, so any earlier cut replays the reset. */
#include "branch/reset.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "branch/branch.h"
#include "branch/keepcopy.h"
#include "lib/filesave.h"
#include "lib/fmt.h"
#include "lib/lines.h"
#include "lib/log.h"
#include "lib/resolve.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "overlay/overlay.h"

#define REQUEST_MAGIC "unionroot-reset 1"

int reset_request_format(const struct reset_req *req, char *buf, size_t cap)
{
	struct sbuf sb;

	sbuf_init(&sb, buf, cap);
	sbuf_addf(&sb, REQUEST_MAGIC "\nkeeplist %s\n", req->keeplist ? "yes" : "no");
	for (unsigned i = 0; i < req->keep.n; i++)
		sbuf_addf(&sb, "keep %s\n", req->keep.path[i]);
	return sbuf_done(&sb);
}

static int request_line(const char *line, void *ctx)
{
	struct reset_req *req = ctx;

	if (strcmp(line, "keeplist yes") == 0)
		req->keeplist = 1;
	else if (strcmp(line, "keeplist no") == 0)
		req->keeplist = 0;
	else if (strncmp(line, "keep ", 5) != 0 || keep_add(&req->keep, line + 5) < 0)
		return -EINVAL;
	return 0;
}

int reset_request_parse(const char *text, struct reset_req *req)
{
	char line[KEEP_PATH_MAX + 16];

	memset(req, 0, sizeof(*req));
	if (lines_strict(text, REQUEST_MAGIC, line, sizeof(line), request_line, req) == 0)
		return 0;
	memset(req, 0, sizeof(*req));
	req->keeplist = 1;
	return -EINVAL;
}

int reset_request_write(int state, const struct reset_req *req)
{
	static char text[RESET_REQUEST_MAX];
	int rc = reset_request_format(req, text, sizeof(text));

	if (rc < 0)
		return rc;
	return sys_write_file_atomic(state, RESET_REQUEST, text, strlen(text), 0600);
}

static int exists_at(int dir, const char *name, struct stat *st)
{
	return fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW) == 0;
}

int reset_to_trash(int from, int trash, const char *name)
{
	char dst[96];
	uint64_t now = sys_now_ms();
	struct stat st;

	for (unsigned i = 0;; i++) {
		if (i == 1000)
			return -EEXIST;
		if (strfmt(dst, sizeof(dst), "%s.%llu.%u", name, (unsigned long long)now, i) < 0)
			return -ENAMETOOLONG;
		if (!exists_at(trash, dst, &st))
			break;
	}
	if (sys_renameat(from, name, trash, dst) < 0)
		return errno == ENOENT ? 0 : -errno;
	return 1;
}

static int sync_dirs(int a, int b, int c)
{
	if (fsync(a) < 0 || (b >= 0 && fsync(b) < 0) || (c >= 0 && fsync(c) < 0))
		return -errno;
	return 0;
}

int reset_recover(int rw, int state, int trash, struct reset_result *res)
{
	struct stat st;
	int rc;

	if (exists_at(state, RESET_READY, &st) && !exists_at(rw, BRANCH_UPPER, &st)) {
		if (sys_renameat(state, RESET_READY, rw, BRANCH_UPPER) < 0)
			return -errno;
		res->recovered = 1;
		rc = sync_dirs(rw, state, -1);
		if (rc < 0)
			return rc;
	}
	rc = reset_to_trash(state, trash, RESET_STAGING);
	if (rc > 0)
		rc = sync_dirs(state, trash, -1);
	return rc < 0 ? rc : 0;
}

static void say(const struct reset_env *env, int level, const char *fmt, ...) PRINTF(3, 4);
static void say(const struct reset_env *env, int level, const char *fmt, ...)
{
	char msg[LOG_LINE_MAX];
	va_list ap;

	if (!env || !env->say)
		return;
	va_start(ap, fmt);
	IGNORE(fmt_vsn(msg, sizeof(msg), fmt, ap));
	va_end(ap);
	env->say(level, msg, env->ctx); /* a cut message still says what happened */
}

static void bad_keep_line(const char *line, const char *why, void *ctx)
{
	say(ctx, L_WARN, "factory reset: ignoring \"%s\" in " KEEP_FILE ": %s", line, why);
}

/* /etc/unionroot/keep as the merged root shows it: the old upper's copy, a
 * whiteout or opaque directory hiding the image's, else the top-most
 * layer's. Never follows a symlink. Length, 0 when there is none. */
static ssize_t keep_file(int old_upper, const struct reset_env *env, char *buf, size_t cap)
{
	static const char comps[][10] = { "etc", "unionroot", "keep" };
	int dir = fcntl(old_upper, F_DUPFD_CLOEXEC, 0), hidden = 0;
	ssize_t n = 0;

	for (size_t i = 0; dir >= 0 && i < ARRAY_SIZE(comps); i++) {
		struct stat st;
		int sub;

		if (!exists_at(dir, comps[i], &st))
			break;
		if (overlay_is_whiteout(&st) || S_ISLNK(st.st_mode)) {
			if (S_ISLNK(st.st_mode))
				say(env, L_WARN, "factory reset: %s in the writable branch is a symbolic link; %s",
				    KEEP_FILE, "not following it, keeping nothing from it");
			hidden = 1;
			break;
		}
		if (i + 1 == ARRAY_SIZE(comps)) {
			n = S_ISREG(st.st_mode) ? sys_read_fileat(dir, comps[i], buf, cap) : 0;
			hidden = 1;
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			hidden = 1;
			break;
		}
		sub = openat(dir, comps[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dir);
		dir = sub;
		if (dir >= 0 && overlay_is_opaque(dir))
			hidden = 2; /* the image's copy is hidden unless the upper has one */
	}
	if (dir >= 0)
		close(dir);
	if (hidden == 1)
		return n;
	for (unsigned i = 0; !hidden && env && i < env->nlower; i++) {
		int root = open(env->lowers[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;

		if (root < 0)
			continue;
		fd = sys_file_check(sys_openat2(root, &KEEP_FILE[1], O_RDONLY | O_NOCTTY | O_NONBLOCK,
						RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS),
				    NULL);
		close(root);
		if (fd >= 0) {
			n = sys_read_fd(fd, buf, cap);
			close(fd);
			return n;
		}
	}
	return 0;
}

static void refused(const char *path, const char *why, void *ctx)
{
	say(ctx, L_WARN, "factory reset: not keeping /%s: %s", path, why);
}

static int step(const struct reset_env *env, const char *name)
{
	return env && env->step ? env->step(name, env->ctx) : 0;
}

/* The keep file's patterns join the request's, once: a replay after the
 * swap must not look for the keep file in the new upper, which may not hold
 * it. */
static void resolve_keeplist(int rw, const struct reset_env *env, struct reset_req *req)
{
	static char text[KEEP_FILE_MAX + 1];
	int old;

	if (!req->keeplist)
		return;
	req->keeplist = 0;
	old = openat(rw, BRANCH_UPPER, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	{
		ssize_t n = keep_file(old, env, text, sizeof(text));

		if (old >= 0)
			close(old);
		if (n == -EFBIG)
			say(env, L_WARN, "factory reset: %s is longer than %d bytes; %s", KEEP_FILE,
			    KEEP_FILE_MAX, "keeping only the paths the request names");
		else if (n > 0 && keep_add_text(&req->keep, text, bad_keep_line, (void *)env) == -ENOSPC)
			say(env, L_WARN, "factory reset: more than %d keep paths; the rest are not kept",
			    KEEP_MAX);
	}
}

/* Builds .unionroot/ready: a fresh upper holding the kept paths, synced. */
static int build_ready(int rw, int state, int trash, const struct reset_env *env,
		       struct reset_req *req, struct reset_result *res)
{
	struct keepcopy_stats ks = { 0, 0, 0 };
	int old, stage, rc;

	IGNORE(reset_to_trash(state, trash, RESET_STAGING)); /* recover did it; harmless */
	if (mkdirat(state, RESET_STAGING, 0755) < 0)
		return -errno;
	stage = openat(state, RESET_STAGING, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (stage < 0)
		return -errno;
	rc = 0;
	old = openat(rw, BRANCH_UPPER, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (old >= 0 && req->keep.n) {
		struct stat st;

		/* the root directory's own owner and mode carry over too */
		if (fstat(old, &st) == 0 && (fchown(stage, st.st_uid, st.st_gid) < 0 ||
					     fchmod(stage, st.st_mode & 07777) < 0))
			rc = -errno;
		if (rc == 0)
			rc = keepcopy_run(old, stage, &req->keep, refused, (void *)env, &ks);
	}
	if (old >= 0)
		close(old);
	res->kept = ks.matched;
	res->refused = ks.refused;
	/* one syncfs instead of an fsync per copied entry: ready/ must not
	 * appear before everything in it is on the disk */
	if (rc == 0 && syncfs(stage) < 0)
		rc = -errno;
	close(stage);
	if (rc == 0 && sys_renameat(state, RESET_STAGING, state, RESET_READY) < 0)
		rc = -errno;
	if (rc == 0)
		rc = sync_dirs(state, -1, -1);
	return rc;
}

/* Reads the pending request, if any, into req (res->from_request); a damaged
 * or unreadable one becomes the fallback request (keep list only) and is
 * moved aside. 0 or -errno. */
static int request_read(int state, int trash, const struct reset_env *env, struct reset_result *res,
			struct reset_req *req, const char **what)
{
	static char text[RESET_REQUEST_MAX];
	ssize_t n;

	*what = "reading the reset request";
	n = sys_read_fileat(state, RESET_REQUEST, text, sizeof(text));
	if (n >= 0) {
		res->from_request = 1;
		if (reset_request_parse(text, req) < 0) {
			res->request_bad = 1;
			say(env, L_ERR, "factory reset: the request .unionroot/%s is damaged; %s",
			    RESET_REQUEST, "resetting, keeping only the paths of " KEEP_FILE);
		}
		return 0;
	}
	if (n == -ENOENT)
		return 0;
	/* there, but unreadable (oversized, a symlink, a FIFO, a directory):
	 * still a request, or every boot would stop here */
	res->from_request = 1;
	res->request_bad = 1;
	IGNORE(reset_request_parse("", req)); /* the fallback request */
	say(env, L_ERR, "factory reset: the request .unionroot/%s is %s; %s", RESET_REQUEST,
	    n == -EFBIG ? "oversized" : n == -EINVAL || n == -ELOOP ? "not a regular file" : strerror((int)-n),
	    "resetting, keeping only the paths of " KEEP_FILE);
	/* out of the way of the rewritten request: a directory would refuse
	 * the rename over it */
	*what = "moving the damaged reset request aside";
	return reset_to_trash(state, trash, RESET_REQUEST);
}

int reset_apply(int rw, int state, int trash, const struct reset_env *env,
		struct reset_result *res, const char **what)
{
	static struct reset_req req;
	int mode = env ? env->mode : RESET_NONE, rc;
	struct stat st;

	rc = request_read(state, trash, env, res, &req, what);
	if (rc < 0)
		return rc;
	if (mode != RESET_NONE) {
		/* the command line decides */
		memset(&req, 0, sizeof(req));
		req.keeplist = mode == RESET_FACTORY_KEEPLIST;
	} else if (!res->from_request) {
		return 0;
	}
	/* written down with the keep list resolved, so that a power cut before
	 * the end is finished the same way by the next boot, whatever its
	 * command line says */
	if (req.keeplist || mode != RESET_NONE || res->request_bad) {
		resolve_keeplist(rw, env, &req);
		*what = "recording the reset request";
		rc = reset_request_write(state, &req);
		if (rc < 0)
			return rc;
	}
	if (step(env, "request") < 0)
		return -ECANCELED;

	if (!exists_at(state, RESET_READY, &st)) {
		*what = "building the fresh upper/ with the kept paths";
		rc = build_ready(rw, state, trash, env, &req, res);
		if (rc < 0) {
			IGNORE(reset_to_trash(state, trash, RESET_STAGING)); /* recover retries */
			return rc;
		}
	}
	if (step(env, "keep") < 0)
		return -ECANCELED;

	*what = "moving the old upper/ aside";
	rc = reset_to_trash(rw, trash, BRANCH_UPPER);
	if (rc < 0)
		return rc;
	if (sys_renameat(state, RESET_READY, rw, BRANCH_UPPER) < 0)
		return -errno;
	rc = sync_dirs(rw, state, trash);
	if (rc < 0)
		return rc;
	res->applied = 1;
	if (step(env, "aside") < 0)
		return -ECANCELED;

	*what = "making a fresh work/";
	rc = reset_to_trash(rw, trash, BRANCH_WORK);
	if (rc >= 0 && mkdirat(rw, BRANCH_WORK, 0755) < 0 && errno != EEXIST)
		rc = -errno;
	if (rc >= 0)
		rc = sync_dirs(rw, trash, -1);
	if (rc < 0)
		return rc;
	if (step(env, "fresh") < 0)
		return -ECANCELED;

	*what = "clearing the reset request";
	if (unlinkat(state, RESET_REQUEST, 0) < 0 && errno != ENOENT)
		return -errno;
	rc = sync_dirs(state, -1, -1);
	if (rc < 0)
		return rc;
	if (step(env, "cleared") < 0)
		return -ECANCELED;
	return 0;
}
