/* SPDX-License-Identifier: MIT */
/* modules.dep and modules.softdep as data, and the load order they imply:
 * softdep "pre" modules, then dependencies (their own first), the module,
 * then "post" modules. Pure: the caller reads the files. */
#ifndef UNIONROOT_MODDEP_H
#define UNIONROOT_MODDEP_H

#include <stddef.h>

#include "lib/defs.h"

#define MODDEP_DEPTH 32

struct moddep_entry {
	const char *path;  /* relative to /lib/modules/VERSION */
	const char *name;  /* basename without .ko[.xz|.zst|.gz] (not terminated) */
	size_t name_len;
	const char *deps;  /* space-separated paths, "" when none */
};

struct softdep_entry {
	const char *name;
	const char *pre;   /* space-separated names */
	const char *post;
};

/* The tables are the caller's, sized by the texts' lines (lines_count): a
 * pool has hundreds of modules, and PID 1 reads the files once. */
struct moddep {
	struct moddep_entry *e;   /* cap entries */
	unsigned cap, n, dropped; /* dropped: modules past cap, not in e */
	struct softdep_entry *s;  /* scap entries */
	unsigned scap, ns, sdropped;
};

/* Parses both texts in place (softdep may be NULL). 0, -EINVAL for a line
 * that is not "path: deps", or -E2BIG when a table is full: the first
 * entries are kept, dropped and sdropped count the others. */
int moddep_parse(struct moddep *m, char *dep_text, char *softdep_text) WUR;
/* Index of the module called name[0..len), or -1. */
int moddep_find(const struct moddep *m, const char *name, size_t len);
/* Appends to order[] (indexes into m->e) what loading `name` takes, in load
 * order, skipping what order[] already holds: m->n entries hold them all.
 * 0, -ENOENT (unknown name), -ELOOP (dependency cycle deeper than
 * MODDEP_DEPTH), -E2BIG (order full). */
int moddep_resolve(const struct moddep *m, const char *name, unsigned *order,
		   unsigned *count, unsigned max) WUR;

/* When a module of a board's list is loaded: at the start of the boot, or
 * once the boot needs what it serves. */
enum mod_need { NEED_BOOT, NEED_MOUNT, NEED_LOOP, NEED_FLASH, NEED_DM, NEED_NET };
/* The need of the module at path (relative, as in modules.dep). */
enum mod_need moddep_need(const char *path);

#endif
