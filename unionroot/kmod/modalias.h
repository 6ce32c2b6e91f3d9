/* SPDX-License-Identifier: MIT */
/* modules.alias as data, and which module a device's modalias asks for:
 * the kernel's glob patterns (fnmatch without flags, as kmod matches them),
 * a uevent's MODALIAS=, and CPU-feature aliases. Pure: the caller reads. */
#ifndef UNIONROOT_MODALIAS_H
#define UNIONROOT_MODALIAS_H

#include <stddef.h>

#include "lib/defs.h"

struct modalias_entry {
	const char *pattern; /* "pci:v00008086d*sv*sd*bc01sc06i01*" */
	const char *module;  /* "ahci" */
};

/* The table is the caller's, sized by the text's lines (lines_count): a
 * pool has thousands of aliases, and PID 1 reads the file once. */
struct modalias {
	struct modalias_entry *e; /* cap entries */
	unsigned cap;
	unsigned n;
	unsigned dropped;         /* alias lines past cap, not in the table */
};

/* Parses "alias PATTERN MODULE" lines in place into a->e; comments and
 * other lines are skipped. 0, or -E2BIG when more than a->cap lines are
 * aliases: the first cap are kept, a->dropped counts the others. */
int modalias_parse(struct modalias *a, char *text) WUR;
/* The index of the first entry from index `from` on whose pattern matches
 * the device's modalias, or -1. */
int modalias_next(const struct modalias *a, const char *modalias, unsigned from);
/* 1 when module is a CPU-feature module (it has "cpu:" aliases) and none of
 * them matches cpu, the CPU's own modalias: loading it would fail with
 * ENODEV. 0 otherwise. */
int modalias_cpu_lacks(const struct modalias *a, const char *module, size_t len,
		       const char *cpu);
/* The MODALIAS= value of a kernel uevent ("ACTION@DEVPATH\0KEY=VALUE\0..."),
 * only for ACTION=add; NULL otherwise. *devpath gets DEVPATH= when present. */
const char *modalias_of_uevent(const char *msg, size_t len, const char **devpath);

#endif
