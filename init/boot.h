/* SPDX-License-Identifier: MIT */
/* The one static boot context of PID 1, with fixed capacities, and the steps
 * of SPEC.md's sequence that main() calls in order. */
#ifndef INIT_BOOT_H
#define INIT_BOOT_H

#include <stdint.h>

#include "blkdev.h"
#include "config.h"
#include "defs.h"
#include "spec.h"

#define CMDLINE_MAX 4096
#define CONF_MAX 4096
#define NEWROOT "/newroot"
#define RUNDIR "/run/unionroot"
#define RWDIR RUNDIR "/rw"

enum upper_kind { UPPER_DEVICE, UPPER_TMPFS, UPPER_NONE };

struct boot {
	struct config cfg;
	char cmdline[CMDLINE_MAX + 1];     /* /proc/cmdline, split in place */
	char cmdline_raw[CMDLINE_MAX + 1]; /* untouched, for module parameters */
	char conf[CONF_MAX + 1];           /* /etc/unionroot.conf */

	struct spec lower[SPEC_LIST_MAX];
	unsigned nlower;
	struct spec upper;
	int upper_kind;                    /* enum upper_kind */

	struct blkdev_table devs;
	char lower_dev[SPEC_LIST_MAX][48];
	char lower_type[SPEC_LIST_MAX][16];
	char upper_dev[48];
	char upper_type[16];

	char upper_state[160];             /* "persistent", "volatile: <why>" */
	const char *backend;               /* "overlay", "bind (read-only)" */
	char overlay_opts[1024];
	int reset_applied;
	int copyup;                        /* the copy-up backend builds the root */
	int copyup_reset;                  /* 1 union.reset or a cut restore, 2 requested */

	uint64_t t_start, t_modules, t_devices, t_mounts;
	char **argv;
	char **envp;
};

/* init/early.c */
void early_setup(struct boot *b);
/* Gives the kernel back its module helper and kmsg rate limit. */
void early_restore(void);
/* init/configure.c */
void configure(struct boot *b);
/* init/modules.c */
void modules_load(struct boot *b);
/* Loads what a mount of this file system type needs, if not loaded yet. */
void modules_for_fs(struct boot *b, const char *type);
/* init/devwait.c: resolves every SPEC to a device; the read-only layers are
 * fatal when missing, the writable branch falls back to union.onfail. */
void devices_wait(struct boot *b);
/* init/union.c */
void union_build(struct boot *b);
/* init/copyup.c: chooses the backend (after the lowers are mounted) */
void copyup_choose(struct boot *b);
/* Takes a pending reset over for the copy-up backend; returns the reset flag
 * for branch_prepare (0 when copy-up restores instead). */
int copyup_take_reset(struct boot *b, int rw, int reset);
/* Copies, merges or restores into upper/, binds it to /newroot. */
int copyup_root(struct boot *b, int rw);
/* init/handoff.c: never returns. */
NORETURN void handoff(struct boot *b);
/* init/rescue.c: the writable branch cannot be used; applies union.onfail
 * (tmpfs returns with a volatile upper, the others do not return). */
void onfail(struct boot *b, const char *why);
/* init/rescue.c */
void rescue_break(struct boot *b, int phase, const char *name);
NORETURN void rescue_fatal(struct boot *b, const char *why);
int rescue_have_shell(void);
/* Runs the rescue shell and waits for it; 0 when it ran. */
int rescue_shell(const char *why);
/* init/status.c */
void status_write(struct boot *b);

#endif
