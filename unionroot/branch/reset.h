/* SPDX-License-Identifier: MIT */
/* The factory reset as PID 1 applies it before the union exists: a durable
 * request, a fresh upper built aside with the kept paths, one rename to put
 * it in place, the old tree to the trash. Every step is named, and a hook
 * after each lets tests stop (or crash) exactly there. */
#ifndef UNIONROOT_RESET_H
#define UNIONROOT_RESET_H

#include <stddef.h>

#include "branch/keep.h"
#include "lib/defs.h"

#define RESET_REQUEST "reset"   /* in .unionroot: the pending request */
#define RESET_STAGING "staging" /* in .unionroot: the new upper being built */
#define RESET_READY "ready"     /* in .unionroot: the new upper, complete and synced */
#define RESET_REQUEST_MAX 20480

/* The named steps, in order ("trash" runs after the hand-off). */
#define RESET_STEPS "request keep aside fresh cleared trash"

struct reset_req {
	int keeplist;           /* honour /etc/unionroot/keep */
	struct keep_list keep;  /* --keep paths */
};

enum reset_mode { RESET_NONE, RESET_FACTORY, RESET_FACTORY_KEEPLIST };

struct reset_env {
	int mode;                       /* enum reset_mode, from the command line or upgrade policy */
	const char *const *lowers;      /* mounted read-only layers, top-most first */
	unsigned nlower;
	/* called after each named step; a result < 0 stops the reset there as a
	 * power cut would (tests); may be NULL */
	int (*step)(const char *name, void *ctx);
	/* one message: level as log.h, text without the "unionroot: " prefix */
	void (*say)(int level, const char *msg, void *ctx);
	void *ctx;
};

struct reset_result {
	int recovered;      /* an interrupted reset was finished */
	int applied;        /* the upper is fresh */
	int from_request;   /* ... because of .unionroot/reset */
	int request_bad;    /* the request was damaged: keep list only */
	unsigned kept, refused;
};

/* Pure: the request file's text. 0 or -ENAMETOOLONG. */
int reset_request_format(const struct reset_req *req, char *buf, size_t cap) WUR;
/* Pure: 0, or -EINVAL for a damaged request (req then asks for the keep
 * list only: the reset still happens, nothing the request named is kept). */
int reset_request_parse(const char *text, struct reset_req *req) WUR;
/* Writes .unionroot/reset durably (state: fd of .unionroot). 0 or -errno. */
int reset_request_write(int state, const struct reset_req *req) WUR;

/* Before anything else at boot: finishes a swap a power cut interrupted
 * (ready/ without upper/ becomes upper/) and moves a half-built staging/
 * to the trash. 0 or -errno. */
int reset_recover(int rw, int state, int trash, struct reset_result *res) WUR;
/* Applies a pending request or env->mode. 0 (nothing to do or done),
 * -ECANCELED when env->step stopped it, other -errno; *what names the step. */
int reset_apply(int rw, int state, int trash, const struct reset_env *env,
		struct reset_result *res, const char **what) WUR;
/* Moves name (in rw) into the trash under a fresh name; 1 moved, 0 absent. */
int reset_to_trash(int from, int trash, const char *name) WUR;

#endif
