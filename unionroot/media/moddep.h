/* SPDX-License-Identifier: MIT */
/* modules.dep and modules.softdep as data, and the load order they imply:
 * softdep "pre" modules, then dependencies (their own first), the module,
 * then "post" modules. Pure: the caller reads the files. */
#ifndef UNIONROOT_MODDEP_H
#define UNIONROOT_MODDEP_H

#include <stddef.h>

#include "defs.h"

#define MODDEP_MAX 512
#define SOFTDEP_MAX 64
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

struct moddep {
	struct moddep_entry e[MODDEP_MAX];
	unsigned n;
	struct softdep_entry s[SOFTDEP_MAX];
	unsigned ns;
};

/* Parses both texts in place (softdep may be NULL). 0, or -E2BIG when a
 * table is full, or -EINVAL for a line that is not "path: deps". */
int moddep_parse(struct moddep *m, char *dep_text, char *softdep_text) WUR;
/* Index of the module called name[0..len), or -1. */
int moddep_find(const struct moddep *m, const char *name, size_t len);
/* Appends to order[] (indexes into m->e) what loading `name` takes, in load
 * order, skipping what order[] already holds. 0, -ENOENT (unknown name),
 * -ELOOP (dependency cycle deeper than MODDEP_DEPTH), -E2BIG (order full). */
int moddep_resolve(const struct moddep *m, const char *name, unsigned *order,
		   unsigned *count, unsigned max) WUR;

/* When a module of a board's list is loaded: at the start of the boot, or
 * once the boot needs what it serves. */
enum mod_need { NEED_BOOT, NEED_MOUNT, NEED_LOOP, NEED_FLASH, NEED_DM };
/* The need of the module at path (relative, as in modules.dep). */
enum mod_need moddep_need(const char *path);

#endif
