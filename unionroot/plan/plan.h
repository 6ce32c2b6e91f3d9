/* SPDX-License-Identifier: MIT */
/* One decided boot plan: facts (the configuration, the writable device found,
 * what the kernel offers, the branch's control state) in, decisions out,
 * pure. PID 1 carries the plan out and `unionroot plan` prints the same one. */
#ifndef UNIONROOT_PLAN_H
#define UNIONROOT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "branch/state.h"
#include "conf/config.h"
#include "conf/spec.h"
#include "conf/verity_arg.h"
#include "lib/defs.h"
#include "plan/decide.h"

#define PLAN_WHY_MAX 200
#define PLAN_FAIL_MAX 320 /* a failed step's reason, as the boot says it */
#define PLAN_TEXT_MAX 4096

enum upper_kind { UPPER_DEVICE, UPPER_TMPFS, UPPER_NONE };
enum plan_backend { PLAN_OVERLAY, PLAN_COPYUP, PLAN_READONLY, PLAN_STOP };
/* A read-only layer refused by verity: the boot stops there, with a reboot,
 * or as union.onfail says (halt; shell: a rescue shell, only when asked). */
enum plan_verity_fail { VFAIL_RESCUE, VFAIL_REBOOT, VFAIL_HALT };
enum plan_presence { PRESENT_UNKNOWN = -1, PRESENT_NO = 0, PRESENT_YES = 1 };
/* A device the boot waits for before it mounts anything. */
enum plan_wait_kind { WAIT_LOWER, WAIT_UPPER, WAIT_HASH };
#define PLAN_WAIT_MAX (2 * SPEC_LIST_MAX + 1)
struct plan_wait {
	int kind;                      /* enum plan_wait_kind */
	unsigned layer;                /* 1-based, the layer served; 0 for the writable branch */
	int no_flash;                  /* its SPEC needs raw flash, which the build leaves out */
};
/* The boot's step that failed on the writable branch: a fact like any other,
 * so the plan is decided again and its fallback is what the boot does. */
enum plan_step {
	STEP_NONE, STEP_FIND, STEP_FSCK, STEP_MOUNT, STEP_LAYOUT, STEP_COPYUP, STEP_OVERLAY,
	STEP_TMPFS, STEP_UNLOCK
};
/* What a failed step leads to: union.onfail's four for a device (the same
 * values, so config_onfail_name() names them), a root without a writable
 * branch when the tmpfs itself failed. */
enum plan_fallback {
	FALLBACK_TMPFS = ONFAIL_TMPFS, FALLBACK_SHELL = ONFAIL_SHELL, FALLBACK_REBOOT = ONFAIL_REBOOT,
	FALLBACK_HALT = ONFAIL_HALT, FALLBACK_READONLY
};

/* make COPYUP=0 leaves the copy-up backend out of the build */
#ifdef UNIONROOT_NO_COPYUP
#define PLAN_NO_COPYUP 1
#else
#define PLAN_NO_COPYUP 0
#endif
/* make VERITY=0 leaves dm-verity out, make FLASH=0 the raw-flash stack */
#ifdef UNIONROOT_NO_VERITY
#define PLAN_NO_VERITY 1
#else
#define PLAN_NO_VERITY 0
#endif
#ifdef UNIONROOT_NO_FLASH
#define PLAN_NO_FLASH 1
#else
#define PLAN_NO_FLASH 0
#endif
/* make NET=0 leaves the network medium out (nbd:, http://, nfs:) */
#ifdef UNIONROOT_NO_NET
#define PLAN_NO_NET 1
#else
#define PLAN_NO_NET 0
#endif
/* Whether the facts' build leaves dm-verity or raw flash out: the unit tests
 * plan for every build; a shipped build is one, known when it is compiled,
 * so the words and branches for what it has are not in it. */
#ifdef UNIONROOT_TEST
#define PLAN_WITHOUT_VERITY(f) ((f)->no_verity)
#define PLAN_WITHOUT_FLASH(f) ((f)->no_flash)
#define PLAN_WITHOUT_NET(f) ((f)->no_net)
#else
#define PLAN_WITHOUT_VERITY(f) ((void)(f), PLAN_NO_VERITY)
#define PLAN_WITHOUT_FLASH(f) ((void)(f), PLAN_NO_FLASH)
#define PLAN_WITHOUT_NET(f) ((void)(f), PLAN_NO_NET)
#endif

/* The boot as a program: an ordered list of typed rows, each a step PID 1
 * carries out (init/run.c, the one loop), with its argument and why. A row
 * is done when the fact its step writes is known (plan_facts.done); the
 * loop always runs the first row not done, records what came of it as a
 * fact, and builds the plan again. Each kind has its fault case in
 * tests/unit/init_run_cases.c (unit-init fails without one). */
enum run_kind {
	RUN_MODULES,        /* the modules of step 3, in dependency order */
	RUN_WAIT_MEDIA,     /* every device of plan.wait, under its deadline */
	RUN_FORMAT,         /* a writable device holding no file system: union.format */
	RUN_FALLBACK,       /* union.onfail's answer to a writable branch that failed */
	RUN_VERIFY,         /* dm-verity over the layers union.verity names */
	RUN_MOUNT_LOWER,    /* read-only layer arg (1-based) */
	RUN_MAKE_PERSIST,   /* the missing persistence file, made: the layers' mkfs may serve */
	RUN_MAKE_PART,      /* the missing persistence partition, made on the live medium's disk */
	RUN_UNLOCK,         /* a LUKS container's branch opened: key file or passphrase */
	RUN_PROBE_OVERLAY,  /* what overlayfs the kernel offers: a fact */
	RUN_NO_COPYUP,      /* copy-up is needed, and the build has none: said */
	RUN_MOUNT_BRANCH,   /* check, mount and open the writable device */
	RUN_READ_STATE,     /* its control state and the layers' identities: facts */
	RUN_FAILSAFE,       /* the branch is kept read-only at saved/ */
	RUN_TAKE_RESET,     /* copy-up: a pending reset becomes its marker */
	RUN_LAYOUT,         /* upper/ work/ .unionroot/, with the plan's reset */
	RUN_SYSUPGRADE,     /* OpenWrt's sysupgrade.tgz where the plan puts it */
	RUN_SAVE_STATE,     /* the next control state */
	RUN_SESSION_COPY,   /* kiosk under copy-up: the saved branch is merged first */
	RUN_SESSION,        /* kiosk: the branch is kept read-only at saved/ */
	RUN_TMPFS,          /* a volatile branch, laid out */
	RUN_OVERLAY,        /* the overlay at /newroot */
	RUN_FRESH_WORK,     /* the overlay refused: work/ afresh, then the overlay again */
	RUN_COPYUP,         /* copy, merge or restore into upper/, bound at /newroot */
	RUN_READONLY,       /* the layers without a writable branch */
	RUN_HANDOFF,        /* steps 6 and 7: the switch and the real init */
	RUN_MOUNT_AT,       /* mount-root: the union left at --at DIR, for the host's switch */
	RUN_NET,            /* a read-only layer is on the network: NIC driver, link, address */
	RUN_NBD,            /* read-only layer arg's nbd: export on an nbd device */
	RUN_HTTP,           /* read-only layer arg's http:// image fetched to RAM, on a loop */
	RUN_REFUSE,         /* read-only layer arg is refused (its why): union.onfail stops */
	RUN_NFS,            /* read-only layer arg's nfs: export mounted (a tree, or an image on a loop) */
	RUN_NBD_UPPER,      /* the writable branch's nbd: export on an nbd device, before the
			     * wait finds it as any writable device; failing: union.onfail */
	RUN_KINDS
};
/* What a row's failure leads to: the boot stops (rescue shell, else reboot),
 * verity's stop, a fact for the writable branch (the plan falls to
 * union.onfail), or a root without a writable branch. */
enum run_onfail { RUNFAIL_STOP, RUNFAIL_VERITY, RUNFAIL_BRANCH, RUNFAIL_UNION, RUNFAIL_NONE,
		  RUNFAIL_LAYER /* a layer that never came: union.onfail's shell, reboot or halt */ };
#define PLAN_RUN_MAX (2 * SPEC_LIST_MAX + 16)
struct plan_row {
	int kind;                      /* enum run_kind */
	unsigned arg;                  /* the layer for RUN_MOUNT_LOWER, else 0 */
	int onfail;                    /* enum run_onfail */
	const char *why;               /* why the plan has it */
};

struct plan_facts {
	const struct config *cfg;
	unsigned done;                 /* bit (1 << enum run_kind): that row's step is done */
	unsigned lowers_mounted;       /* RUN_MOUNT_LOWER rows done */
	unsigned nbd_done;             /* bit n-1: layer n's nbd: export is on its device */
	unsigned http_done;            /* bit n-1: layer n's http:// image is in RAM, on a loop */
	unsigned nfs_done;             /* bit n-1: layer n's nfs: export is mounted */
	int nbd_upper_done;            /* the writable branch's nbd: export is on its device */
	int fresh_work_tried;          /* the overlay refused the branch once, work/ renewed */
	int union_errno;               /* the union over a volatile branch failed: -errno */
	int upper_present;             /* enum plan_presence: the writable device */
	const char *upper_dev;         /* its node, "" or NULL when not known */
	const char *upper_type;        /* its file system as probed, "" or NULL unknown */
	int upper_marked;              /* raw flash bearing OpenWrt's end-of-image marker:
					* blank from there on, erased before it mounts even
					* when union.upperfs= names its type */
	int failed_step;               /* enum plan_step: where the writable branch failed */
	int failed_errno;              /* and why, as -errno (0 when no errno says it) */
	int tmpfs_errno;               /* the volatile branch failed too: -errno, 0 not */
	char upper_failed[PLAN_FAIL_MAX]; /* that failure in words, for the plan's text */
	int upper_file_missing;        /* a persistence file was looked for and is not there */
	int have_overlay;              /* the kernel knows overlayfs (modules tried) */
	int image_overlay;             /* the image carries an overlay module for it */
	int state_known;               /* the branch's control state was read */
	int state_rc;                  /* state_load's result */
	struct ur_state saved;         /* the control state read */
	struct ur_state now;           /* the layers' identities now, nlower 0 unknown */
	int reset_request;             /* .unionroot/reset is pending */
	int state_saved;               /* .unionroot/state is there: a boot of ours saved it */
	int sysupgrade_archive;        /* sysupgrade.tgz, a regular file, at the branch's top */
	int no_copyup;                 /* this build has no copy-up backend */
	int no_verity;                 /* nor dm-verity */
	int no_flash;                  /* nor raw flash (mtd:, ubi:, union.ubi=) */
	int no_net;                    /* nor the network medium (nbd:) */
	const char *tools_ran;         /* the tools that ran and where from, "" or NULL none */
	const char *unlocked_from;     /* the LUKS container the branch was opened from, "" none */
	const char *mount_at;          /* `unionroot mount-root --at DIR`: the union is mounted
					* at DIR and left to the host's initramfs; NULL: PID 1 */
};

struct plan {
	const struct plan_facts *facts;
	const char *lowers;            /* the read-only layers' SPECs, top-most first */
	const char *lower_fstype;      /* rootfstype= for a layer from root=, else "" (probed) */
	const char *lower_flags;       /* rootflags= for a layer from root=, else "" */
	int upper_kind;                /* enum upper_kind */
	int upper_failed;              /* the configured device falls to union.onfail */
	int fallback;                  /* enum plan_fallback: what a failed step does */
	int backend;                   /* enum plan_backend */
	const char *backend_why;
	struct boot_decision decided;  /* failsafe, upgrade, the state to save */
	int reset_mode;                /* enum reset_mode */
	const char *reset_why;
	int sysupgrade;                /* enum sysupgrade_action: OpenWrt's saved configuration */
	const char *sysupgrade_why;    /* why, NULL when there is none */
	int session;                   /* kiosk: the saved branch under a tmpfs */
	int kiosk;                     /* union.session=volatile on a persistent branch: a
					* tmpfs takes the session (a copy of it in copy-up) */
	struct verity_arg verity[SPEC_LIST_MAX]; /* the layers to verify */
	unsigned nverity;
	unsigned nlayers;              /* read-only layers configured */
	int verity_fail;               /* enum plan_verity_fail */
	char verity_refused[PLAN_WHY_MAX]; /* union.verity asks for verification that cannot
					* be honoured: every layer is refused, and why; "" not */
	struct plan_wait wait[PLAN_WAIT_MAX]; /* the layers, the writable device, the trees */
	unsigned nwait;
	const char *copyup_missing;    /* why copy-up was needed, in a build without it */
	int upper_needs_copyup;        /* so the writable device falls to union.onfail */
	unsigned verity_left_out;      /* a layer to verify (1-based) in a build without
					* dm-verity: refused as a failed setup is; 0 none */
	/* in a build without raw flash: */
	int flash_asked;               /* a SPEC or union.ubi= names it */
	unsigned lower_flash;          /* bit n-1: layer n's SPEC names it */
	int upper_no_flash;            /* the writable SPEC needs raw flash the build lacks */
	unsigned lower_net;            /* bit n-1: layer n is on the network (nbd:, http://, nfs:) */
	unsigned lower_http;           /* of which fetched to RAM (http://) */
	unsigned http_insecure;        /* of which unverified, taken by union.insecure=1 */
	unsigned lower_nfs;            /* of which mounted over NFS (nfs:) */
	unsigned nfs_tree;             /* of which a directory tree, no image file */
	char net_refused[PLAN_WHY_MAX]; /* an http:// layer unverified, without
					  * union.insecure=1, or an nfs: tree to
					  * verify: why it is refused, "" none */
	unsigned net_refused_layer;   /* that layer */
	int upper_net;                 /* the writable branch is an nbd: export: the network
					* and its connection come before the wait */
	const char *persist_path;      /* the persistence file on its medium, NULL: none */
	const char *persist_part;      /* or the label of a partition union.persist.size
					* makes on the live medium's disk, NULL: none */
	uint64_t persist_bytes;        /* union.persist.size: a missing file is made, 0 never */
	const char *persist_fs;        /* and formatted as this */
	int persist_make;              /* it is missing: make it now (or made at this boot) */
	int unlock;                    /* the branch is a LUKS container, opened first */
	int drivers;                   /* enum cfg_drivers: all the hardware asks for, or
	                                * only until every medium is found */
	char fallback_why[PLAN_FAIL_MAX]; /* why the writable device falls to union.onfail */
	struct plan_row row[PLAN_RUN_MAX]; /* the steps, in order */
	unsigned nrow;
};
/* The verity entry of read-only layer n (1-based), NULL when unverified. */
const struct verity_arg *plan_verity(const struct plan *p, unsigned n);

/* Why a writable branch fails in a build without copy-up: its device or
 * SPEC, then the reason copy-up was chosen. */
#define PLAN_NEEDS_COPYUP "writable branch %s needs the copy-up backend (%s), which this build leaves out"
/* A SPEC (the role, then the SPEC) in a build without raw flash. */
#define PLAN_NEEDS_FLASH "%s %s needs raw flash (mtd:, ubi:), which this build leaves out (FLASH=0)"
/* A layer to verify (its number) in a build without dm-verity. */
/* The type a LUKS container probes as (blkid's). */
#define PLAN_LUKS "crypto_LUKS"
/* A layer on the network in a build without it. */
#define PLAN_NEEDS_NET "a read-only layer is on the network (nbd:, http://, nfs:), which this build leaves out (NET=0)"
/* The writable branch on the network (its SPEC) in a build without it. */
#define PLAN_NEEDS_NET_UPPER "writable branch %s is on the network (nbd:), which this build leaves out (NET=0)"
#define PLAN_NEEDS_VERITY "read-only layer %u: union.verity= asks for dm-verity, which this build leaves out (VERITY=0)"

void plan_build(const struct plan_facts *f, struct plan *p);
/* Where a tool (mkfs, fsck) runs from, by where each of its n candidates is
 * found (found[i]: bit 0 the initramfs, bit N read-only layer N): the
 * initramfs first, whose tools the board chose for this kernel, then the
 * top-most layer's own; never the writable branch, which is no place here.
 * The candidate's index with *place, or -1 when none is anywhere. */
#define TOOL_INITRAMFS 0
int plan_tool_choose(const unsigned *found, unsigned n, unsigned *place);
/* union.upper as the plan's text says it: its SPEC written out, else as given. */
#define PLAN_SPEC_TEXT_MAX (SPEC_VALUE_MAX + SPEC_PATHS_MAX * SPEC_PATH_MAX)
void plan_upper_text(const struct config *c, char *buf, size_t cap);
/* The writable branch's file system as the plan uses it ("tmpfs", "" unknown:
 * a LUKS container's, until it is opened). */
const char *plan_upper_fs(const struct plan *p);
/* The facts a command gathers at once, where the boot runs a step for each:
 * the modules, the media, a blank device's format, the kernel's overlayfs. */
#define PLAN_GATHERED (1u << RUN_MODULES | 1u << RUN_WAIT_MEDIA | 1u << RUN_FORMAT | \
		       1u << RUN_PROBE_OVERLAY)
/* The rows of the plan (plan_build calls it last). */
void plan_rows(struct plan *p);
/* Whether row r of the plan is done, by the facts. */
int plan_row_done(const struct plan *p, const struct plan_row *r);
/* A row's step in words ("mount read-only layer 1"). */
const char *plan_row_name(int kind);
/* The plan as text, one decision a line, then its steps; 0 or -ENAMETOOLONG. */
int plan_format(const struct plan *p, char *buf, size_t cap) WUR;
/* The decisions alone, without the steps. */
int plan_format_decisions(const struct plan *p, char *buf, size_t cap) WUR;

#endif
