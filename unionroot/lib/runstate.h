/* SPDX-License-Identifier: MIT */
/* The contract between PID 1 and the admin commands: the paths under
 * /run/unionroot, and the status record (/run/unionroot/status) as a struct
 * with its writer and its parser. PID 1 fills a struct runstate and writes
 * it; `unionroot status` parses the file back into one. */
#ifndef UNIONROOT_RUNSTATE_H
#define UNIONROOT_RUNSTATE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/defs.h"
#include "lib/record.h"
#include "lib/sbuf.h"

/* What PID 1 leaves in the new root (SPEC "Runtime commands"). */
#define RUNDIR "/run/unionroot"
#define RWDIR RUNDIR "/rw"                  /* the writable branch */
#define SAVEDIR RUNDIR "/saved"             /* the persistent branch, read-only, in failsafe */
#define RW_UPPER RWDIR "/upper"             /* branch.h's BRANCH_UPPER under RWDIR */
#define RW_WORK RWDIR "/work"               /* branch.h's BRANCH_WORK under RWDIR */
#define RUN_LOWER_FMT RUNDIR "/lower/%u"    /* read-only layer N, from 0 */
#define RUN_LOWER0 RUNDIR "/lower/0"
#define RUN_MEDIA RUNDIR "/media"           /* media that hold a layer's image */
#define RUN_TORAM RUNDIR "/toram"           /* union.toram's copies */
#define RUN_OLDROOT RUNDIR "/oldroot"       /* the kernel's root, booted without initramfs */
#define RUN_BIN_DIR RUNDIR "/bin"
#define RUN_BIN RUN_BIN_DIR "/unionroot"    /* PID 1's own copy, for the admin commands */
#define RUN_CONF RUNDIR "/unionroot.conf"   /* the board defaults PID 1 read */
#define RUN_STATUS_NAME "status"            /* in RUNDIR */
#define RUN_STATUS RUNDIR "/" RUN_STATUS_NAME
#define RUN_PLAN_NAME "plan"                /* in RUNDIR: the plan's text form */
#define RUN_PLAN RUNDIR "/" RUN_PLAN_NAME
/* systemd-shutdown's way back (dracut's too): when RUN_SHUTDOWN is
 * executable it switches root into RUN_INITRAMFS, the old root at
 * /oldroot, and runs /shutdown there as PID 1 */
#define RUN_INITRAMFS "/run/initramfs"
#define RUN_SHUTDOWN RUN_INITRAMFS "/shutdown"
#define RUN_VERITY_DM_FMT "unionroot-verity-%u" /* layer N's dm-verity device, from 1 */
#define RUN_CRYPT_DM "unionroot-crypt"          /* the writable branch's opened LUKS container */

/* The capacities of the record: as many layers as a SPEC list holds
 * (spec.h's SPEC_LIST_MAX), as many messages as the log keeps (LOG_KEEP). */
#define RUNSTATE_LOWER_MAX 8
#define RUNSTATE_MESSAGES_MAX 16

enum runstate_upper {
	RUNSTATE_UPPER_NONE,   /* upper=none: the boot is read-only */
	RUNSTATE_UPPER_TMPFS,  /* upper=tmpfs - tmpfs RWDIR */
	RUNSTATE_UPPER_DEVICE, /* upper=SPEC DEV TYPE RWDIR */
};

/* A read-only layer: lowerN=SPEC DEV TYPE RUNDIR/lower/N-1, and lowerN_*.
 * DEV and TYPE are one word each, not empty; SPEC is the rest. */
struct runstate_lower {
	const char *spec, *dev, *type;
	const char *image;  /* lowerN_image, "" when the medium is the layer */
	const char *verity; /* lowerN_verity, always written */
	const char *driver; /* lowerN_driver, "" when unknown */
};

/* The status record. Every string is the value as shown, never NULL once
 * parsed ("" when its optional line is absent; the writer takes NULL as "").
 * The lines come in this order; a key that only a later version writes is
 * skipped by the parser, so an older reader still reads a newer record. */
struct runstate {
	const char *backend;
	const char *mode;   /* "initramfs", "no initramfs", "mount-root DIR"; "" absent */
	struct runstate_lower lower[RUNSTATE_LOWER_MAX];
	unsigned nlower;
	int upper_kind; /* enum runstate_upper */
	const char *upper_spec, *upper_dev, *upper_type; /* RUNSTATE_UPPER_DEVICE */
	const char *upper_image, *upper_driver;          /* "" when absent */
	const char *upper_luks;        /* the LUKS container upper_dev was opened from, "" none */
	const char *upper_state;
	const char *drivers_left;
	const char *root_flags; /* "" when the root has none */
	int warnfull;
	const char *overlay_options;
	int reset_applied; /* reset=applied, then the three below; else reset=none */
	const char *reset_why;
	unsigned reset_kept, reset_refused;
	const char *failsafe;
	int saved; /* saved=SAVEDIR: the persistent branch is kept there */
	int maxfails;
	unsigned boots_at_boot;
	const char *lower_id[RUNSTATE_LOWER_MAX];
	unsigned nlower_id;
	int lower_changed;
	const char *upgrade;  /* "" when the layers did not change */
	uint64_t pid1_ms, modules_ms, devices_ms, mounts_ms;
	uint64_t fsck_ms;     /* 0: no fsck_ms line */
	const char *tools;    /* the mkfs and fsck that ran and where from, "" none */
	const char *message[RUNSTATE_MESSAGES_MAX];
	unsigned nmessage;
	int handoff;          /* the hand-off's line, appended later, is there */
	uint64_t handoff_ms, rss_kib, memfree_before_kib;
	/* the parser's decoded values: an input of RECORD_MAX +
	 * RECORD_TAIL_MAX bytes decodes into as many */
	char text[RECORD_MAX + RECORD_TAIL_MAX];
};

/* rs's record, every line but the hand-off's, into sb: 0, or
 * -ENAMETOOLONG when it does not fit (sb then holds the lines that did). */
int runstate_write(const struct runstate *rs, struct sbuf *sb) WUR;
/* The hand-off's line (with its '\n') into sb: 0 or -ENAMETOOLONG. */
int runstate_write_handoff(const struct runstate *rs, struct sbuf *sb) WUR;
/* text (a whole record, NUL-terminated) into *rs: 0, or -EINVAL with why
 * (why_cap bytes) saying which line is malformed and how. Keys it does not
 * know are skipped. */
int runstate_parse(const char *text, struct runstate *rs, char *why, size_t why_cap) WUR;

#endif
