// SPDX-License-Identifier: MIT
/* The boot plan, golden: a table of fact sets (board defaults, a command
 * line, the writable device found, the kernel's overlayfs, the branch's
 * control state) and the exact text `unionroot plan` prints and the boot
 * writes to /run/unionroot/plan for them. */
#include <errno.h>

#include "branch/reset.h"
#include "conf/config.h"
#include "plan/plan.h"
#include "unit.h"

#define BOARD "union.lower=/dev/vda union.upper=LABEL=data"
#define ID_A "size=1,mkfs=2,hash=0000000000000001"
#define ID_B "size=1,mkfs=3,hash=0000000000000002"

struct golden {
	const char *name;
	const char *cmdline;
	int present;            /* enum plan_presence */
	const char *type;       /* of /dev/vdb */
	int no_overlay;         /* neither the kernel nor the image has it */
	int state_unknown;      /* the branch's control state could not be read */
	unsigned boots;         /* saved boot counter */
	const char *saved_id, *now_id; /* layer 1's identity, NULL unknown */
	int reset_request;
	const char *failed;     /* the boot's reason the branch failed */
	const char *expected;
};

#define DRIVERS_BOOT_LINE \
	"drivers          until every medium is found; the rest are left to the real init (union.drivers=all loads them)\n"

/* A fact set with a step that failed while the boot carried it out. */
struct failure {
	int step;               /* enum plan_step */
	int tmpfs_errno;        /* the volatile branch failed too */
	struct golden g;
};

/* A persistent branch's unchanged tail, with union.onfail's word */
#define TAIL_ONFAIL(onfail) \
	"failsafe         no (union.maxfails=0: boots are not counted)\n" \
	"reset            no\n" \
	"upgrade          no: unchanged since the last boot\n" \
	"session          no\n" \
	"on failure       " onfail "\n" \
	DRIVERS_BOOT_LINE
#define NORMAL_TAIL TAIL_ONFAIL("tmpfs")

static const struct golden table[] = {
	{ "normal", "", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          overlay: overlayfs is available\n" NORMAL_TAIL },
	/* audit 7: union.mode=copyup printed "backend overlay" */
	{ "copyup", "union.mode=copyup", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          copy-up: union.mode=copyup\n" NORMAL_TAIL },
	/* audit 7: without overlayfs the plan said "read-only bind" */
	{ "no-overlayfs", "", PRESENT_YES, "ext4", 1, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          copy-up: no overlayfs in this kernel, the initramfs or the image\n" NORMAL_TAIL },
	{ "vfat-branch", "", PRESENT_YES, "vfat", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         LABEL=data on /dev/vdb (vfat), persistent\n"
	  "backend          copy-up: the writable file system cannot host an overlay upper\n" NORMAL_TAIL },
	/* audit 7: mtd: was always "not present" */
	{ "mtd", "union.upper=mtd:rootfs_data", PRESENT_YES, "jffs2", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         mtd:rootfs_data on /dev/vdb (jffs2), persistent\n"
	  "backend          overlay: overlayfs is available\n" NORMAL_TAIL },
	/* audit 7: a pending reset was ignored */
	{ "reset-pending", "", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 1, NULL,
	  "layers           /dev/vda\n"
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          overlay: overlayfs is available\n"
	  "failsafe         no (union.maxfails=0: boots are not counted)\n"
	  "reset            factory: requested by 'unionroot reset'\n"
	  "upgrade          no: unchanged since the last boot\n"
	  "session          no\n"
	  "on failure       tmpfs\n"
	  DRIVERS_BOOT_LINE },
	{ "reset-keep", "union.reset=keep", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          overlay: overlayfs is available\n"
	  "failsafe         no (union.maxfails=0: boots are not counted)\n"
	  "reset            factory keeping the keep list: union.reset=keep\n"
	  "upgrade          no: unchanged since the last boot\n"
	  "session          no\n"
	  "on failure       tmpfs\n"
	  DRIVERS_BOOT_LINE },
	/* audit 7: failsafe was ignored */
	{ "failsafe", "union.maxfails=1", PRESENT_YES, "ext4", 0, 0, 2, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         tmpfs (volatile): failsafe; LABEL=data stays read-only at /run/unionroot/saved\n"
	  "backend          overlay: overlayfs is available\n"
	  "failsafe         yes: 2 boots without 'unionroot boot-ok' (union.maxfails=1)\n"
	  "reset            no: failsafe leaves the branch untouched\n"
	  "upgrade          not looked at in failsafe\n"
	  "session          no\n"
	  "on failure       tmpfs\n"
	  DRIVERS_BOOT_LINE },
	{ "counting", "union.maxfails=3", PRESENT_YES, "ext4", 0, 0, 1, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          overlay: overlayfs is available\n"
	  "failsafe         no: boot 2 of union.maxfails=3\n"
	  "reset            no\n"
	  "upgrade          no: unchanged since the last boot\n"
	  "session          no\n"
	  "on failure       tmpfs\n"
	  DRIVERS_BOOT_LINE },
	/* audit 7: an upgrade was ignored */
	{ "upgrade-reset", "union.upgrade=reset", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_B, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          overlay: overlayfs is available\n"
	  "failsafe         no (union.maxfails=0: boots are not counted)\n"
	  "reset            factory: the read-only layer changed and union.upgrade=reset\n"
	  "upgrade          read-only layer changed; union.upgrade=reset\n"
	  "session          no\n"
	  "on failure       tmpfs\n"
	  DRIVERS_BOOT_LINE },
	{ "kiosk", "union.session=volatile", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          overlay: overlayfs is available\n"
	  "failsafe         no (union.maxfails=0: boots are not counted)\n"
	  "reset            no\n"
	  "upgrade          no: unchanged since the last boot\n"
	  "session          volatile (union.session=volatile): the saved branch is the top read-only layer, a tmpfs takes this boot's changes\n"
	  "on failure       tmpfs\n"
	  DRIVERS_BOOT_LINE },
	{ "missing", "union.upper=LABEL=nothere@1", PRESENT_NO, "", 0, 1, 0, NULL, NULL, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         writable device LABEL=nothere@1 not found; union.onfail=tmpfs: tmpfs (volatile)\n"
	  "backend          overlay: overlayfs is available\n"
	  "session          no\n"
	  "on failure       tmpfs\n"
	  DRIVERS_BOOT_LINE },
	{ "failed-reboot", "union.onfail=reboot", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0,
	  "mounting writable branch /dev/vdb (ext4) failed: Input/output error",
	  "layers           /dev/vda\n"
	  "writable         mounting writable branch /dev/vdb (ext4) failed: Input/output error; union.onfail=reboot\n"
	  "backend          none, the boot stops: union.onfail=reboot\n"
	  "session          no\n"
	  "on failure       reboot\n"
	  DRIVERS_BOOT_LINE },
	{ "no-filesystem", "", PRESENT_YES, "", 0, 1, 0, NULL, NULL, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         writable branch /dev/vdb holds no known file system; union.onfail=tmpfs: tmpfs (volatile)\n"
	  "backend          overlay: overlayfs is available\n"
	  "session          no\n"
	  "on failure       tmpfs\n"
	  DRIVERS_BOOT_LINE },
	{ "state-unknown", "", PRESENT_YES, "ext4", 0, 1, 0, NULL, NULL, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          overlay: overlayfs is available\n"
	  "failsafe         unknown: the control state is read at boot\n"
	  "reset            no\n"
	  "upgrade          unknown: the layers' identities are compared at boot\n"
	  "session          no\n"
	  "on failure       tmpfs\n"
	  DRIVERS_BOOT_LINE },
	{ "tmpfs", "union.upper=tmpfs union.size=50% union.session=volatile", PRESENT_UNKNOWN, "", 0, 1, 0, NULL, NULL, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         tmpfs (volatile), size 50%\n"
	  "backend          overlay: overlayfs is available\n"
	  "session          no: union.session=volatile needs a persistent branch under overlayfs\n"
	  "on failure       tmpfs\n"
	  DRIVERS_BOOT_LINE },
	{ "persist-file-kept", "union.upper=LABEL=STICK:/persistence.img", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         LABEL=STICK:/persistence.img on /dev/vdb (ext4), persistent\n"
	  "persistence      /persistence.img: a missing file is not made (union.persist.size= would make it)\n"
	  "backend          overlay: overlayfs is available\n" NORMAL_TAIL },
	{ "persist-file-made-when-missing", "union.upper=LABEL=STICK:/persistence.img union.persist.size=512M",
	  PRESENT_UNKNOWN, "", 0, 1, 0, NULL, NULL, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         LABEL=STICK:/persistence.img, persistent (the device is looked for at boot)\n"
	  "persistence      /persistence.img: made at boot when missing, 512M as ext4 (union.persist.size)\n"
	  "tools            mkfs and fsck from the initramfs, else the read-only image's own; ran: none\n"
	  "backend          overlay: overlayfs is available\n"
	  "failsafe         unknown: the control state is read at boot\n"
	  "reset            no\n"
	  "upgrade          unknown: the layers' identities are compared at boot\n"
	  "session          no\n"
	  "on failure       tmpfs\n"
	  DRIVERS_BOOT_LINE },
	/* a board or command line that wants every driver the hardware asks
	 * for, not only those of the media */
	{ "drivers-all", "union.drivers=all", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          overlay: overlayfs is available\n"
	  "failsafe         no (union.maxfails=0: boots are not counted)\n"
	  "reset            no\n"
	  "upgrade          no: unchanged since the last boot\n"
	  "session          no\n"
	  "on failure       tmpfs\n"
	  "drivers          all the hardware present asks for (union.drivers=all)\n" },
	{ "read-only", "union.upper=none", PRESENT_UNKNOWN, "", 1, 1, 0, NULL, NULL, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         none (union.upper=none): a read-only root\n"
	  "backend          read-only: no writable branch (union.upper=none)\n"
	  "session          no\n"
	  "on failure       tmpfs\n"
	  DRIVERS_BOOT_LINE },
};

static void no_err(const char *msg, void *ctx)
{
	(void)ctx;
	unit_failf(__FILE__, __LINE__, "unexpected config error: %s", msg);
}

static void id(struct ur_state *st, const char *text)
{
	state_clear(st);
	if (!text)
		return;
	st->nlower = 1;
	snprintf(st->lower[0], sizeof(st->lower[0]), "%s", text);
}

/* What a build leaves out (make COPYUP=0 VERITY=0 FLASH=0), as facts. */
enum { WITH_ALL = 0, NO_COPYUP = 1, NO_VERITY = 2, NO_FLASH = 4 };

/* g's facts (with step failed, and the tmpfs when tmpfs_errno) in a build
 * without what left_out names, as the boot gathers them. */
static void golden_facts(const struct golden *g, unsigned left_out, int step, int tmpfs_errno,
			 struct config *cfg, struct plan_facts *facts)
{
	char buf[1024];

	config_defaults(cfg);
	snprintf(buf, sizeof(buf), "%s", BOARD);
	config_apply_text(cfg, buf, 1, no_err, NULL);
	snprintf(buf, sizeof(buf), "%s", g->cmdline);
	config_apply_text(cfg, buf, 0, no_err, NULL);
	memset(facts, 0, sizeof(*facts));
	facts->cfg = cfg;
	facts->done = PLAN_GATHERED;
	facts->upper_present = g->present;
	facts->upper_dev = g->present == PRESENT_YES ? "/dev/vdb" : "";
	facts->upper_type = g->type;
	facts->have_overlay = !g->no_overlay;
	facts->state_known = !g->state_unknown;
	id(&facts->saved, g->saved_id);
	facts->saved.boots = g->boots;
	id(&facts->now, g->now_id);
	facts->reset_request = g->reset_request;
	facts->no_copyup = !!(left_out & NO_COPYUP);
	facts->no_verity = !!(left_out & NO_VERITY);
	facts->no_flash = !!(left_out & NO_FLASH);
	snprintf(facts->upper_failed, sizeof(facts->upper_failed), "%s", g->failed ? g->failed : "");
	facts->failed_step = step;
	facts->tmpfs_errno = tmpfs_errno;
}

/* 0 when the plan of golden_facts is g's golden text; the difference is
 * reported. */
static int check_one(const struct golden *g, unsigned left_out, int step, int tmpfs_errno)
{
	static struct config c;
	static struct plan_facts f;
	static struct plan p;
	char text[PLAN_TEXT_MAX];

	golden_facts(g, left_out, step, tmpfs_errno, &c, &f);
	plan_build(&f, &p);
	if (plan_format_decisions(&p, text, sizeof(text)) < 0)
		snprintf(text, sizeof(text), "(longer than %d bytes)\n", PLAN_TEXT_MAX);
	if (strcmp(text, g->expected) == 0)
		return 0;
	unit_failf(__FILE__, __LINE__, "plan %s:\n%s--- want:\n%s", g->name, text, g->expected);
	return -1;
}

static void check_table(const struct golden *t, size_t n, unsigned left_out)
{
	for (size_t i = 0; i < n; i++)
		if (check_one(&t[i], left_out, t[i].failed ? STEP_MOUNT : STEP_NONE, 0) < 0)
			return;
}

static void every_fact_set_gives_its_golden_plan(void)
{
	check_table(table, sizeof(table) / sizeof(table[0]), WITH_ALL);
}

/* The steps each story's plan runs, golden: what follows the decisions in
 * `unionroot plan` and /run/unionroot/plan (tests/qemu/plan.sh holds the
 * boot's to the command's). */
/* The steps every story with a device takes first */
#define STEPS_TO_OVERLAYFS \
	"steps             1 load modules\n" \
	"                  2 wait for the media (failing: the boot stops)\n" \
	"                  3 mount read-only layer 1 (failing: the boot stops)\n" \
	"                  4 look for overlayfs\n"
#define STEPS_TO_STATE STEPS_TO_OVERLAYFS \
	"                  5 mount the writable branch (failing: union.onfail)\n" \
	"                  6 read its control state\n"

static const struct golden steps_table[] = {
	{ "normal", "", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  STEPS_TO_STATE
	  "                  7 lay it out (failing: union.onfail)\n"
	  "                  8 save its control state\n"
	  "                  9 mount the overlay: overlayfs is available (failing: union.onfail)\n"
	  "                 10 switch to the real init (failing: the boot stops)\n" },
	{ "copyup", "union.mode=copyup", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  STEPS_TO_STATE
	  "                  7 take the reset over (copy-up)\n"
	  "                  8 lay it out (failing: union.onfail)\n"
	  "                  9 save its control state\n"
	  "                 10 copy up: union.mode=copyup (failing: no writable branch)\n"
	  "                 11 switch to the real init (failing: the boot stops)\n" },
	{ "reset-pending", "", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 1, NULL,
	  STEPS_TO_STATE
	  "                  7 lay it out: requested by 'unionroot reset' (failing: union.onfail)\n"
	  "                  8 save its control state\n"
	  "                  9 mount the overlay: overlayfs is available (failing: union.onfail)\n"
	  "                 10 switch to the real init (failing: the boot stops)\n" },
	{ "failsafe", "union.maxfails=1", PRESENT_YES, "ext4", 0, 0, 2, ID_A, ID_A, 0, NULL,
	  STEPS_TO_STATE
	  "                  7 keep it read-only (failsafe)\n"
	  "                  8 mount a volatile branch (failing: union.onfail)\n"
	  "                  9 mount the overlay: overlayfs is available (failing: no writable branch)\n"
	  "                 10 switch to the real init (failing: the boot stops)\n" },
	{ "kiosk", "union.session=volatile", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  STEPS_TO_STATE
	  "                  7 lay it out (failing: union.onfail)\n"
	  "                  8 save its control state\n"
	  "                  9 keep it read-only (kiosk session)\n"
	  "                 10 mount a volatile branch (failing: union.onfail)\n"
	  "                 11 mount the overlay: overlayfs is available (failing: no writable branch)\n"
	  "                 12 switch to the real init (failing: the boot stops)\n" },
	{ "volatile", "union.upper=tmpfs", PRESENT_NO, "", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  STEPS_TO_OVERLAYFS
	  "                  5 mount a volatile branch: union.upper=tmpfs (failing: union.onfail)\n"
	  "                  6 mount the overlay: overlayfs is available (failing: no writable branch)\n"
	  "                  7 switch to the real init (failing: the boot stops)\n" },
	{ "mount-failed", "", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, "Invalid argument",
	  STEPS_TO_OVERLAYFS
	  "                  5 union.onfail: Invalid argument\n"
	  "                  6 mount a volatile branch: union.onfail=tmpfs (failing: union.onfail)\n"
	  "                  7 mount the overlay: overlayfs is available (failing: no writable branch)\n"
	  "                  8 switch to the real init (failing: the boot stops)\n" },
};

static void each_story_runs_its_golden_steps(void)
{
	static struct config c;
	static struct plan_facts f;
	static struct plan p;
	char all[PLAN_TEXT_MAX], decisions[PLAN_TEXT_MAX];

	for (size_t i = 0; i < sizeof(steps_table) / sizeof(steps_table[0]); i++) {
		const struct golden *g = &steps_table[i];
		size_t n;

		golden_facts(g, WITH_ALL, g->failed ? STEP_MOUNT : STEP_NONE, 0, &c, &f);
		plan_build(&f, &p);
		CHECK(plan_format(&p, all, sizeof(all)) >= 0);
		CHECK(plan_format_decisions(&p, decisions, sizeof(decisions)) >= 0);
		n = strlen(decisions);
		CHECK(strncmp(all, decisions, n) == 0);
		if (strcmp(all + n, g->expected) != 0) {
			unit_failf(__FILE__, __LINE__, "steps %s:\n%s--- want:\n%s", g->name, all + n, g->expected);
			return;
		}
	}
}

/* make COPYUP=0: a branch that needs copy-up cannot serve and falls to
 * union.onfail; without overlayfs the root is the read-only layer alone;
 * what never needed copy-up is unchanged. */
static const struct golden no_copyup_table[] = {
	{ "vfat-branch", "", PRESENT_YES, "vfat", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         writable branch /dev/vdb needs the copy-up backend (the writable file system cannot host an overlay upper), which this build leaves out; union.onfail=tmpfs: tmpfs (volatile)\n"
	  "backend          overlay: overlayfs is available\n"
	  "session          no\n"
	  "on failure       tmpfs\n"
	  DRIVERS_BOOT_LINE },
	{ "no-overlayfs", "", PRESENT_YES, "ext4", 1, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         writable branch /dev/vdb needs the copy-up backend (no overlayfs in this kernel, the initramfs or the image), which this build leaves out; union.onfail=tmpfs: tmpfs (volatile)\n"
	  "backend          read-only: copy-up is needed, and this build has no copy-up backend (COPYUP=0)\n"
	  "session          no\n"
	  "on failure       tmpfs\n"
	  DRIVERS_BOOT_LINE },
	{ "normal", "", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          overlay: overlayfs is available\n" NORMAL_TAIL },
};

static void without_copyup_a_branch_that_needs_it_takes_onfail(void)
{
	check_table(no_copyup_table, sizeof(no_copyup_table) / sizeof(no_copyup_table[0]), NO_COPYUP);
}

/* make VERITY=0: a layer to verify is refused as a verity setup that fails
 * (the boot stops as union.onfail says), before any mount; no hash tree is
 * waited for; a layer union.verity= names and the boot does not have
 * refuses every layer: the value cannot be honoured. */
static const struct golden no_verity_table[] = {
	{ "verified", "union.verity=abcd:hash=/dev/vdc", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "verity           layer 1: root hash abcd, but this build has no dm-verity (VERITY=0)\n"
	  "                 refused as a verity setup that fails: reboot\n"
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          none, the boot stops: a read-only layer is to be verified, and this build has no dm-verity (VERITY=0)\n"
	  NORMAL_TAIL },
	{ "verified-shell", "union.verity=abcd union.onfail=shell", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "verity           layer 1: root hash abcd, but this build has no dm-verity (VERITY=0)\n"
	  "                 refused as a verity setup that fails: rescue shell (union.onfail=shell), else reboot\n"
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          none, the boot stops: a read-only layer is to be verified, and this build has no dm-verity (VERITY=0)\n"
	  TAIL_ONFAIL("shell") },
	{ "verified-reboot", "union.verity=ef01 union.onfail=reboot", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "verity           layer 1: root hash ef01, but this build has no dm-verity (VERITY=0)\n"
	  "                 refused as a verity setup that fails: reboot\n"
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          none, the boot stops: a read-only layer is to be verified, and this build has no dm-verity (VERITY=0)\n"
	  TAIL_ONFAIL("reboot") },
	{ "no-such-layer", "union.verity=2:abcd", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "verity           union.verity names read-only layer 2, and the boot has 1: every read-only layer is refused, never booted unverified: reboot\n"
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          none, the boot stops: the read-only layers are refused: union.verity cannot be honoured\n" NORMAL_TAIL },
	{ "normal", "", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          overlay: overlayfs is available\n" NORMAL_TAIL },
};

static void without_verity_a_layer_to_verify_is_refused(void)
{
	check_table(no_verity_table, sizeof(no_verity_table) / sizeof(no_verity_table[0]), NO_VERITY);
}

/* make FLASH=0: an mtd: or ubi: medium is never found: a writable branch on
 * it takes union.onfail, a read-only layer on it stops the boot;
 * union.ubi= is ignored; block devices are planned as ever. */
#define NO_FLASH_LINE \
	"raw flash        not in this build (FLASH=0): mtd: and ubi: media are never found, union.ubi= is ignored\n"

static const struct golden no_flash_table[] = {
	{ "ubi-branch", "union.upper=ubi:data union.ubi=mtd:ubi", PRESENT_UNKNOWN, "", 0, 1, 0, NULL, NULL, 0, NULL,
	  "layers           /dev/vda\n"
	  NO_FLASH_LINE
	  "writable         writable branch ubi:data needs raw flash (mtd:, ubi:), which this build leaves out (FLASH=0); union.onfail=tmpfs: tmpfs (volatile)\n"
	  "backend          overlay: overlayfs is available\n"
	  "session          no\n"
	  "on failure       tmpfs\n"
	  DRIVERS_BOOT_LINE },
	{ "mtd-branch-halt", "union.upper=mtd:data union.onfail=halt", PRESENT_UNKNOWN, "", 0, 1, 0, NULL, NULL, 0, NULL,
	  "layers           /dev/vda\n"
	  NO_FLASH_LINE
	  "writable         writable branch mtd:data needs raw flash (mtd:, ubi:), which this build leaves out (FLASH=0); union.onfail=halt\n"
	  "backend          none, the boot stops: union.onfail=halt\n"
	  "session          no\n"
	  "on failure       halt\n"
	  DRIVERS_BOOT_LINE },
	{ "ubi-layer", "union.lower=ubi:rootfs union.upper=tmpfs", PRESENT_UNKNOWN, "", 0, 1, 0, NULL, NULL, 0, NULL,
	  "layers           ubi:rootfs\n"
	  NO_FLASH_LINE
	  "writable         tmpfs (volatile)\n"
	  "backend          none, the boot stops: a read-only layer needs raw flash, which this build leaves out (FLASH=0): rescue shell, else reboot\n"
	  "session          no\n"
	  "on failure       tmpfs\n"
	  DRIVERS_BOOT_LINE },
	{ "ubi-attach-only", "union.ubi=mtd:ubi", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  NO_FLASH_LINE
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          overlay: overlayfs is available\n" NORMAL_TAIL },
	{ "normal", "", PRESENT_YES, "ext4", 0, 0, 0, ID_A, ID_A, 0, NULL,
	  "layers           /dev/vda\n"
	  "writable         LABEL=data on /dev/vdb (ext4), persistent\n"
	  "backend          overlay: overlayfs is available\n" NORMAL_TAIL },
};

static void without_flash_its_media_are_never_found(void)
{
	check_table(no_flash_table, sizeof(no_flash_table) / sizeof(no_flash_table[0]), NO_FLASH);
}

/* The facts of a boot whose writable device DEV holds TYPE, on the board
 * with EXTRA on the command line, on a kernel with overlayfs. */
static void device_facts(struct config *c, struct plan_facts *f, const char *extra, const char *dev,
			 const char *type)
{
	char buf[256];

	config_defaults(c);
	snprintf(buf, sizeof(buf), "%s %s", BOARD, extra);
	config_apply_text(c, buf, 0, no_err, NULL);
	memset(f, 0, sizeof(*f));
	f->cfg = c;
	f->upper_present = PRESENT_YES;
	f->upper_dev = dev;
	f->upper_type = type;
	f->have_overlay = 1;
}

static int has_row(const struct plan *p, int kind)
{
	for (unsigned i = 0; i < p->nrow; i++)
		if (p->row[i].kind == kind)
			return 1;
	return 0;
}

/* Raw flash bearing OpenWrt's end-of-image marker is erased before it
 * mounts, even when union.upperfs= names its type (jffs2 would scan the
 * leftovers behind the marker), and a failed erase is a failed branch. */
static void openwrt_marker_is_erased_first_even_under_a_forced_type(void)
{
	static struct config c;
	static struct plan_facts f;
	static struct plan p;

	device_facts(&c, &f, "union.upper=mtd:rootfs_data union.upperfs=jffs2", "/dev/mtdblock1", "");
	plan_build(&f, &p);
	CHECK_INT(has_row(&p, RUN_FORMAT), 0); /* a forced type on unmarked flash: mounted as it is */
	CHECK_INT(p.upper_failed, 0);
	f.upper_marked = 1;
	plan_build(&f, &p);
	CHECK_INT(has_row(&p, RUN_FORMAT), 1);
	CHECK_INT(p.upper_failed, 0);
	f.done |= 1u << RUN_FORMAT; /* the erase failed: no type */
	plan_build(&f, &p);
	CHECK_INT(p.upper_failed, 1);
	f.upper_type = "jffs2"; /* the erase done */
	plan_build(&f, &p);
	CHECK_INT(p.upper_failed, 0);
	CHECK_INT(p.upper_kind, UPPER_DEVICE);
}

/* The boot's own decisions come from the same plan: a failsafe boot's
 * writable branch is a tmpfs, and the backend is chosen for that tmpfs. */
static void failsafe_on_vfat_takes_an_overlay_over_tmpfs(void)
{
	static struct config c;
	static struct plan_facts f;
	static struct plan p;

	device_facts(&c, &f, "union.maxfails=1", "/dev/sda1", "vfat");
	plan_build(&f, &p);
	CHECK_INT(p.upper_kind, UPPER_DEVICE);
	CHECK_INT(p.backend, PLAN_COPYUP);
	f.state_known = 1;
	f.saved.boots = 1;
	plan_build(&f, &p);
	CHECK_INT(p.upper_kind, UPPER_TMPFS);
	CHECK_INT(p.decided.failsafe, 1);
	CHECK_INT(p.backend, PLAN_OVERLAY);
}

/* The boot found the stick but not the file: with union.persist.size the
 * plan makes it (as union.format's f2fs), without it the branch fails. */
static void a_missing_persistence_file_is_made_only_with_a_size(void)
{
	static struct config c;
	static struct plan_facts f;
	static struct plan p;
	char buf[256], text[PLAN_TEXT_MAX];

	config_defaults(&c);
	snprintf(buf, sizeof(buf), "union.lower=/dev/vda union.upper=LABEL=STICK:/p.img union.persist.size=1g union.format=f2fs");
	config_apply_text(&c, buf, 0, no_err, NULL);
	memset(&f, 0, sizeof(f));
	f.cfg = &c;
	f.upper_present = PRESENT_UNKNOWN;
	plan_build(&f, &p);
	CHECK_INT(p.persist_make, 0);
	CHECK_INT(p.persist_bytes, 1ull << 30);
	f.upper_file_missing = 1;
	plan_build(&f, &p);
	CHECK_INT(p.persist_make, 1);
	CHECK_STR(p.persist_fs, "f2fs");
	CHECK_STR(p.persist_path, "/p.img");
	CHECK_INT(plan_format(&p, text, sizeof(text)), 0);
	CHECK(strstr(text, "persistence      /p.img: missing: made now, 1g as f2fs (union.persist.size)\n"));
	/* made after the layer is mounted, whose mkfs may be the one that runs */
	CHECK(strstr(text, " 3 mount read-only layer 1 (failing: the boot stops)\n"
			   "                  4 make the persistence file: union.persist.size (failing: union.onfail)\n"));
	CHECK(strstr(text, "tools            mkfs and fsck from the initramfs, else the read-only image's own; ran: none\n"));
	f.tools_ran = "/sbin/mkfs.f2fs (read-only layer 1)";
	plan_build(&f, &p);
	CHECK_INT(plan_format(&p, text, sizeof(text)), 0);
	CHECK(strstr(text, "; ran: /sbin/mkfs.f2fs (read-only layer 1)\n"));
	f.tools_ran = NULL;
	config_defaults(&c);
	snprintf(buf, sizeof(buf), "union.lower=/dev/vda union.upper=LABEL=STICK:/p.img");
	config_apply_text(&c, buf, 0, no_err, NULL);
	plan_build(&f, &p);
	CHECK_INT(p.persist_make, 0);
	CHECK_INT(p.persist_bytes, 0);
}

/* No device has the label at the deadline: with union.persist.size the
 * plan makes the partition after the layers are mounted (no fallback yet);
 * a SPEC by device path, no size, or the making failed: union.onfail. */
static void a_missing_persistence_partition_is_made_only_for_a_label(void)
{
	static struct config c;
	static struct plan_facts f;
	static struct plan p;
	static const char *const falls[] = {
		"union.lower=auto union.upper=LABEL=persistence",
		"union.lower=auto union.upper=/dev/sdb2 union.persist.size=64M",
		"union.lower=auto union.upper=UUID=0f0e union.persist.size=64M",
	};
	char text[PLAN_TEXT_MAX];

	device_facts(&c, &f, "union.lower=auto union.upper=LABEL=persistence@5 union.persist.size=64M", NULL, NULL);
	f.upper_present = PRESENT_UNKNOWN;
	plan_build(&f, &p);
	CHECK_INT(p.persist_make, 0);
	CHECK_STR(p.persist_part, "persistence");
	CHECK_INT(plan_format(&p, text, sizeof(text)), 0);
	CHECK(strstr(text, "persistence      partition persistence, after the last on the read-only layer's disk: "
			   "made at boot when missing, 64M as ext4 (union.persist.size)\n"));
	f.upper_present = PRESENT_NO;
	plan_build(&f, &p);
	CHECK_INT(p.persist_make, 1);
	CHECK_INT(p.upper_failed, 0);
	CHECK_INT(p.upper_kind, UPPER_DEVICE);
	CHECK_INT(plan_format(&p, text, sizeof(text)), 0);
	CHECK(strstr(text, ": missing: made now, 64M as ext4 (union.persist.size)\n"));
	CHECK(strstr(text, " 3 mount read-only layer 1 (failing: the boot stops)\n"
			   "                  4 make the persistence partition: union.persist.size (failing: union.onfail)\n"
			   "                  5 look for overlayfs\n"
			   "                  6 mount the writable branch (failing: union.onfail)\n"));
	CHECK(!strstr(text, "union.onfail:"));
	/* made: the boot's plan still says so */
	f.done |= 1u << RUN_MAKE_PART;
	f.upper_present = PRESENT_YES;
	f.upper_dev = "/dev/sda2";
	f.upper_type = "ext4";
	plan_build(&f, &p);
	CHECK_INT(p.persist_make, 1);
	CHECK_INT(p.upper_failed, 0);
	/* the making failed: the branch is not found, union.onfail */
	f.done &= ~(1u << RUN_MAKE_PART);
	f.upper_present = PRESENT_NO;
	f.failed_step = STEP_FIND;
	plan_build(&f, &p);
	CHECK_INT(p.persist_make, 0);
	CHECK_INT(p.upper_failed, 1);
	CHECK_INT(p.upper_kind, UPPER_TMPFS);
	for (size_t i = 0; i < sizeof(falls) / sizeof(falls[0]); i++) {
		device_facts(&c, &f, falls[i], NULL, NULL);
		f.upper_present = PRESENT_NO;
		plan_build(&f, &p);
		CHECK_INT(p.persist_make, 0);
		CHECK_INT(p.upper_failed, 1);
	}
}

/* A LUKS container as the branch: opened after the layers are mounted (the
 * image's cryptsetup may serve), its file system unknown until then; a key
 * file from union.upper's key=; failing, union.onfail. */
/* mount-root: the same rows, the last one leaving the union at --at DIR
 * for the host instead of the switch, whichever way the branch went. */
static void mount_root_leaves_the_union_for_the_host(void)
{
	static struct config c;
	static struct plan_facts f;
	static struct plan p;
	char text[PLAN_TEXT_MAX];
	unsigned pid1_rows;

	device_facts(&c, &f, "union.upper=LABEL=data", "/dev/vdb", "ext4");
	plan_build(&f, &p);
	pid1_rows = p.nrow;
	CHECK_INT(p.row[p.nrow - 1].kind, RUN_HANDOFF);
	f.mount_at = "/root";
	plan_build(&f, &p);
	CHECK_INT(p.nrow, pid1_rows);
	CHECK_INT(p.row[p.nrow - 1].kind, RUN_MOUNT_AT);
	CHECK_INT(plan_format(&p, text, sizeof(text)), 0);
	CHECK(strstr(text, "leave it for the host to switch: /root (failing: the boot stops)\n"));
	CHECK(!strstr(text, "switch to the real init"));
	/* a branch gone to union.onfail, and a boot that stops, end the same way */
	f.failed_step = STEP_MOUNT;
	snprintf(f.upper_failed, sizeof(f.upper_failed), "mounting it failed");
	plan_build(&f, &p);
	CHECK_INT(p.row[p.nrow - 1].kind, RUN_MOUNT_AT);
	f.mount_at = "";
	plan_build(&f, &p);
	CHECK_INT(p.row[p.nrow - 1].kind, RUN_HANDOFF);
}

static void a_luks_branch_is_unlocked_first(void)
{
	static struct config c;
	static struct plan_facts f;
	static struct plan p;
	char text[PLAN_TEXT_MAX];

	device_facts(&c, &f, "union.upper=LABEL=persistence", "/dev/sda2", "crypto_LUKS");
	plan_build(&f, &p);
	CHECK_INT(p.unlock, 1);
	CHECK_INT(p.backend, PLAN_OVERLAY);
	CHECK_STR(plan_upper_fs(&p), "");
	CHECK_INT(plan_format(&p, text, sizeof(text)), 0);
	CHECK(strstr(text, "unlock           LUKS container, with a passphrase asked on the consoles (3 tries)\n"));
	CHECK(strstr(text, "tools            mkfs, fsck and cryptsetup from the initramfs, else the read-only image's own; ran: none\n"));
	CHECK(strstr(text, " 3 mount read-only layer 1 (failing: the boot stops)\n"
			   "                  4 unlock the LUKS container: a passphrase (failing: union.onfail)\n"
			   "                  5 look for overlayfs\n"
			   "                  6 mount the writable branch (failing: union.onfail)\n"));
	/* opened: the container is named, the file system is the opened one's */
	f.done |= 1u << RUN_UNLOCK;
	f.upper_dev = "/dev/dm-0";
	f.upper_type = "vfat";
	f.unlocked_from = "/dev/sda2";
	plan_build(&f, &p);
	CHECK_INT(p.unlock, 1);
	CHECK_INT(p.backend, PLAN_COPYUP);
	CHECK_INT(plan_format(&p, text, sizeof(text)), 0);
	CHECK(strstr(text, "unlock           LUKS container /dev/sda2, with a passphrase"));
	/* a key file */
	device_facts(&c, &f, "union.upper=LABEL=persistence:key=LABEL=KEYS:/keys/stick.key", "/dev/sda2",
		     "crypto_LUKS");
	CHECK_INT(c.upper_keyed, 1);
	CHECK_STR(c.upper_spec.value, "persistence");
	CHECK_STR(c.upper_key.value, "KEYS");
	CHECK_STR(c.upper_key.paths[0], "/keys/stick.key");
	plan_build(&f, &p);
	CHECK_INT(plan_format(&p, text, sizeof(text)), 0);
	CHECK(strstr(text, "unlock           LUKS container, with the key file LABEL=KEYS:/keys/stick.key\n"));
	CHECK(strstr(text, "unlock the LUKS container: its key file (failing: union.onfail)"));
	/* it failed: union.onfail, and nothing is unlocked */
	f.failed_step = STEP_UNLOCK;
	plan_build(&f, &p);
	CHECK_INT(p.unlock, 0);
	CHECK_INT(p.upper_failed, 1);
	CHECK_INT(p.upper_kind, UPPER_TMPFS);
	/* not a LUKS container: nothing to open */
	device_facts(&c, &f, "union.upper=LABEL=persistence", "/dev/sda2", "ext4");
	plan_build(&f, &p);
	CHECK_INT(p.unlock, 0);
}

/* A tool runs from the initramfs when it is there, else from the top-most
 * layer holding one; found nowhere, none runs. */
static void a_tool_is_the_initramfs_then_the_top_most_layer(void)
{
	static const struct {
		unsigned found[3];
		int index;
		unsigned place;
	} rows[] = {
		{ { 0, 0, 0 }, -1, 0 },
		{ { 1 << 2, 1, 0 }, 1, TOOL_INITRAMFS },   /* the initramfs' second path beats layer 2's first */
		{ { 1 << 3, 1 << 1, 0 }, 1, 1 },           /* layer 1 before layer 3 */
		{ { 0, 1 << 2, 1 << 2 }, 1, 2 },           /* within a layer, the table's order */
		{ { 0, 0, 1 | 1 << 1 }, 2, TOOL_INITRAMFS },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		unsigned place = 77;

		CHECK_INT(plan_tool_choose(rows[i].found, 3, &place), rows[i].index);
		if (rows[i].index >= 0)
			CHECK_INT(place, rows[i].place);
	}
}

/* The devices the boot waits for: each layer, the writable device, and a
 * hash tree on a device of its own (which may appear after the data), not
 * one for a layer that does not exist. */
static void the_wait_list_holds_the_layers_the_branch_and_the_hash_devices(void)
{
	static const struct {
		const char *cmdline;
		unsigned n;
		struct {
			int kind;
			unsigned layer;
		} want[5];
	} cases[] = {
		{ "union.lower=/dev/vda,LABEL=two union.verity=2:abcd:hash=/dev/sda,1:abcd", 4,
		  { { WAIT_LOWER, 1 }, { WAIT_LOWER, 2 }, { WAIT_UPPER, 0 }, { WAIT_HASH, 2 } } },
		{ "union.upper=tmpfs union.verity=abcd:hash=/dev/sdb", 2,
		  { { WAIT_LOWER, 1 }, { WAIT_HASH, 1 } } },
		{ "union.upper=none union.verity=abcd", 1, { { WAIT_LOWER, 1 } } },
		{ "union.verity=3:abcd:hash=/dev/sdb", 2, { { WAIT_LOWER, 1 }, { WAIT_UPPER, 0 } } },
		{ "root=/dev/vdc union.verity=abcd:hash=/dev/vdd", 3,
		  { { WAIT_LOWER, 1 }, { WAIT_UPPER, 0 }, { WAIT_HASH, 1 } } },
	};
	static struct config c;
	static struct plan_facts f;
	static struct plan p;
	char buf[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		config_defaults(&c);
		snprintf(buf, sizeof(buf), "%s", BOARD);
		config_apply_text(&c, buf, 1, no_err, NULL);
		snprintf(buf, sizeof(buf), "%s", cases[i].cmdline);
		config_apply_text(&c, buf, 0, no_err, NULL);
		memset(&f, 0, sizeof(f));
		f.cfg = &c;
		f.upper_present = PRESENT_UNKNOWN;
		f.have_overlay = 1;
		plan_build(&f, &p);
		CHECK_INT(p.nwait, cases[i].n);
		for (unsigned j = 0; j < p.nwait; j++) {
			CHECK_INT(p.wait[j].kind, cases[i].want[j].kind);
			CHECK_INT(p.wait[j].layer, cases[i].want[j].layer);
		}
	}
}

/* A failure while the boot carries the plan out is one more fact: the plan
 * built anew names the fallback (union.onfail), for each step that can
 * fail; a tmpfs that fails leaves no writable branch at all. */
#define FAILED(step_, tmpfs_errno_, onfail_, why_, backend_)                                 \
	{ (step_), (tmpfs_errno_),                                                               \
	  { .name = #step_ " " onfail_, .cmdline = "union.onfail=" onfail_,                    \
	    .present = PRESENT_YES, .type = "ext4", .saved_id = ID_A, .now_id = ID_A,          \
	    .failed = why_,                                                                    \
	    .expected = "layers           /dev/vda\n"                                          \
			"writable         " why_ "; union.onfail=" onfail_ backend_            \
			"session          no\n"                                                \
			"on failure       " onfail_ "\n" DRIVERS_BOOT_LINE } }
#define TO_TMPFS ": tmpfs (volatile)\nbackend          overlay: overlayfs is available\n"
#define STOPS(onfail_) "\nbackend          none, the boot stops: union.onfail=" onfail_ "\n"

static const struct failure failure_table[] = {
	FAILED(STEP_FSCK, 0, "tmpfs", "writable branch /dev/vdb (ext4): errors fsck could not repair",
	       TO_TMPFS),
	FAILED(STEP_MOUNT, 0, "shell", "mounting writable branch /dev/vdb (ext4) failed: Input/output error",
	       TO_TMPFS),
	FAILED(STEP_LAYOUT, 0, "halt", "writable branch /dev/vdb: reset failed: No space left on device",
	       STOPS("halt")),
	FAILED(STEP_COPYUP, 0, "reboot", "writable branch /dev/vdb (vfat) cannot hold symbolic links",
	       STOPS("reboot")),
	FAILED(STEP_OVERLAY, 0, "tmpfs",
	       "overlay over writable branch /dev/vdb came up read-only: no room for work/ (100% full)",
	       TO_TMPFS),
	/* the fallback's tmpfs failed in turn: no writable branch, no stop */
	FAILED(STEP_MOUNT, -ENOMEM, "tmpfs", "mounting writable branch /dev/vdb (ext4) failed: Input/output error",
	       "\nbackend          read-only: the volatile writable branch failed\n"),
	{ STEP_NONE, -ENOMEM,
	  { .name = "tmpfs failed", .cmdline = "union.upper=tmpfs", .present = PRESENT_UNKNOWN, .type = "",
	    .state_unknown = 1,
	    .expected = "layers           /dev/vda\n"
			"writable         tmpfs (volatile) failed; none: a read-only root\n"
			"backend          read-only: the volatile writable branch failed\n"
			"session          no\n"
			"on failure       tmpfs\n" DRIVERS_BOOT_LINE } },
};

static void each_failure_gives_the_fallback_union_onfail_names(void)
{
	for (size_t i = 0; i < sizeof(failure_table) / sizeof(failure_table[0]); i++) {
		const struct failure *t = &failure_table[i];

		if (check_one(&t->g, WITH_ALL, t->step, t->tmpfs_errno) < 0)
			return;
	}
}

/* The fields the executor carries out (onfail, writable_branch), for each
 * union.onfail: the branch that replaces the device and what is run. */
static void the_fallback_is_decided_by_the_plan_alone(void)
{
	static const struct {
		const char *onfail;
		int fallback, kind, backend;
	} want[] = {
		{ "tmpfs", FALLBACK_TMPFS, UPPER_TMPFS, PLAN_OVERLAY },
		{ "shell", FALLBACK_SHELL, UPPER_TMPFS, PLAN_OVERLAY },
		{ "reboot", FALLBACK_REBOOT, UPPER_NONE, PLAN_STOP },
		{ "halt", FALLBACK_HALT, UPPER_NONE, PLAN_STOP },
	};
	static struct config c;
	static struct plan_facts f;
	static struct plan p;
	char buf[256];

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		config_defaults(&c);
		snprintf(buf, sizeof(buf), "%s union.mode=copyup union.onfail=%s", BOARD, want[i].onfail);
		config_apply_text(&c, buf, 0, no_err, NULL);
		memset(&f, 0, sizeof(f));
		f.cfg = &c;
		f.upper_present = PRESENT_YES;
		f.upper_dev = "/dev/vdb";
		f.upper_type = "ext4";
		f.have_overlay = 1;
		plan_build(&f, &p);
		CHECK_INT(p.upper_kind, UPPER_DEVICE);
		CHECK_INT(p.upper_failed, 0);
		CHECK_INT(p.backend, PLAN_COPYUP);
		f.failed_step = STEP_COPYUP;
		f.failed_errno = -EOPNOTSUPP;
		plan_build(&f, &p);
		CHECK_INT(p.upper_failed, 1);
		CHECK_INT(p.fallback, want[i].fallback);
		CHECK_INT(p.upper_kind, want[i].kind);
		/* union.mode=copyup holds for the fallback's tmpfs too */
		CHECK_INT(p.backend, want[i].backend == PLAN_OVERLAY ? PLAN_COPYUP : want[i].backend);
		CHECK_INT(p.reset_mode, RESET_NONE);
		f.tmpfs_errno = -ENOMEM;
		plan_build(&f, &p);
		CHECK_INT(p.upper_kind, UPPER_NONE);
		CHECK_INT(p.backend, want[i].backend == PLAN_OVERLAY ? PLAN_READONLY : PLAN_STOP);
	}
}

/* A kiosk session is the plan's, and only on a persistent branch it keeps:
 * failsafe and a failed branch boot volatile without one. */
static void a_kiosk_session_needs_the_persistent_branch(void)
{
	static struct config c;
	static struct plan_facts f;
	static struct plan p;

	device_facts(&c, &f, "union.session=volatile union.maxfails=2", "/dev/vdb", "vfat");
	plan_build(&f, &p);
	CHECK_INT(p.kiosk, 1);
	CHECK_INT(p.backend, PLAN_COPYUP);
	f.state_known = 1;
	f.saved.boots = 2;
	plan_build(&f, &p);
	CHECK_INT(p.kiosk, 0);
	CHECK_INT(p.decided.failsafe, 1);
	f.saved.boots = 0;
	f.failed_step = STEP_LAYOUT;
	plan_build(&f, &p);
	CHECK_INT(p.kiosk, 0);
	CHECK_INT(p.upper_kind, UPPER_TMPFS);
}

/* What a build leaves out is never waited for: no hash tree without
 * dm-verity; a layer on raw flash without it is marked for devwait to fail
 * at once, a writable branch there is not waited for at all. */
static void what_the_build_leaves_out_is_never_waited_for(void)
{
	static struct config c;
	static struct plan_facts f;
	static struct plan p;

	device_facts(&c, &f, "union.verity=abcd:hash=/dev/vdc", "/dev/vdb", "ext4");
	plan_build(&f, &p);
	CHECK_INT(p.nwait, 3);
	f.no_verity = 1;
	plan_build(&f, &p);
	CHECK_INT(p.nwait, 2);
	CHECK_INT(p.wait[1].kind, WAIT_UPPER);
	CHECK_INT(p.verity_left_out, 1);

	device_facts(&c, &f, "union.lower=/dev/vda,mtd:rootfs union.upper=ubi:data", "", "");
	f.upper_present = PRESENT_UNKNOWN;
	plan_build(&f, &p);
	CHECK_INT(p.nwait, 3);
	CHECK_INT(p.wait[1].no_flash, 0);
	f.no_flash = 1;
	plan_build(&f, &p);
	CHECK_INT(p.nwait, 2);
	CHECK_INT(p.wait[0].no_flash, 0);
	CHECK_INT(p.wait[1].kind, WAIT_LOWER);
	CHECK_INT(p.wait[1].no_flash, 1);
	CHECK_INT(p.upper_kind, UPPER_TMPFS);
	CHECK_INT(p.backend, PLAN_STOP);
}

/* OpenWrt's sysupgrade.tgz: placed after the layout and before the state
 * is saved (a cut before the save leaves it for the next boot), said in
 * the plan's text, and never in failsafe or on a branch with a state. */
static void sysupgrade_is_placed_between_layout_and_state(void)
{
	static struct config c;
	static struct plan_facts f;
	static struct plan p;
	static char text[PLAN_TEXT_MAX];
	int layout = -1, place = -1, save = -1;

	device_facts(&c, &f, "union.upper=mtd:rootfs_data union.upgrade=reset", "/dev/mtdblock1", "jffs2");
	f.state_known = 1;
	plan_build(&f, &p);
	CHECK_INT(has_row(&p, RUN_SYSUPGRADE), 0); /* no archive */
	f.sysupgrade_archive = 1;
	plan_build(&f, &p);
	CHECK_INT(p.sysupgrade, SYSUPGRADE_TRASH);
	for (unsigned i = 0; i < p.nrow; i++) {
		layout = p.row[i].kind == RUN_LAYOUT ? (int)i : layout;
		place = p.row[i].kind == RUN_SYSUPGRADE ? (int)i : place;
		save = p.row[i].kind == RUN_SAVE_STATE ? (int)i : save;
	}
	CHECK(layout >= 0 && layout < place && place < save);
	CHECK_INT(plan_format(&p, text, sizeof(text)), 0);
	CHECK(strstr(text, "sysupgrade       sysupgrade.tgz set aside: the firmware was upgraded and union.upgrade=reset\n") != NULL);
	CHECK(strstr(text, "place OpenWrt's sysupgrade.tgz") != NULL);
	f.state_saved = 1; /* a branch of ours: the archive is left alone */
	plan_build(&f, &p);
	CHECK_INT(has_row(&p, RUN_SYSUPGRADE), 0);
	CHECK_INT(plan_format(&p, text, sizeof(text)), 0);
	CHECK(strstr(text, "sysupgrade.tgz left alone: the branch has a control state") != NULL);
	f.state_saved = 0;
	f.saved.boots = 9; /* failsafe */
	c.maxfails = 3;
	plan_build(&f, &p);
	CHECK_INT(p.decided.failsafe, 1);
	CHECK_INT(has_row(&p, RUN_SYSUPGRADE), 0);
}

/* A writable branch on an nbd: export: the network (even with every layer
 * local) and the export's connection before the wait, which then finds
 * its device as any writable one; failing, each is a disk not found:
 * union.onfail before anything is mounted, and no second wait for it. A
 * build without the network takes union.onfail and says why. */
static void an_nbd_branch_is_connected_before_the_wait(void)
{
	static struct config c;
	static struct plan_facts f;
	static struct plan p;
	static char text[PLAN_TEXT_MAX];

	device_facts(&c, &f, "union.upper=nbd:10.0.2.100:10809/clients-${mac}", "", "");
	f.upper_present = PRESENT_UNKNOWN;
	plan_build(&f, &p);
	CHECK_INT(p.upper_net, 1);
	CHECK_INT(p.upper_kind, UPPER_DEVICE);
	CHECK_INT(p.row[1].kind, RUN_NET);
	CHECK_INT(p.row[1].onfail, RUNFAIL_BRANCH);
	CHECK_INT(p.row[2].kind, RUN_NBD_UPPER);
	CHECK_INT(p.row[2].onfail, RUNFAIL_BRANCH);
	CHECK_INT(p.row[3].kind, RUN_WAIT_MEDIA);
	CHECK_INT(p.wait[p.nwait - 1].kind, WAIT_UPPER);
	CHECK_INT(plan_format(&p, text, sizeof(text)), 0);
	CHECK(strstr(text, "connect the branch's nbd export (failing: union.onfail)") != NULL);
	CHECK_INT(plan_row_done(&p, &p.row[2]), 0);
	/* connected: the wait finds it, and the device's rows follow */
	f.done = 1u << RUN_MODULES | 1u << RUN_NET | 1u << RUN_WAIT_MEDIA;
	f.nbd_upper_done = 1;
	f.upper_present = PRESENT_YES;
	f.upper_dev = "/dev/nbd0";
	f.upper_type = "ext4";
	plan_build(&f, &p);
	CHECK_INT(plan_row_done(&p, &p.row[2]), 1);
	CHECK_INT(has_row(&p, RUN_MOUNT_BRANCH), 1);
	CHECK_INT(has_row(&p, RUN_FALLBACK), 0);
	/* the export not had: union.onfail right after the wait, which
	 * waits for the layers alone */
	f.done = 1u << RUN_MODULES | 1u << RUN_NET;
	f.nbd_upper_done = 0;
	f.upper_present = PRESENT_UNKNOWN;
	f.failed_step = STEP_FIND;
	strcpy(f.upper_failed, "writable branch: nbd:10.0.2.100:10809/clients-52-54-00-12-34-56: no such export");
	plan_build(&f, &p);
	CHECK_INT(p.upper_failed, 1);
	CHECK_INT(p.upper_kind, UPPER_TMPFS);
	CHECK_INT(has_row(&p, RUN_NBD_UPPER), 0);
	CHECK_INT(p.row[2].kind, RUN_WAIT_MEDIA);
	CHECK_INT(p.row[3].kind, RUN_FALLBACK);
	for (unsigned i = 0; i < p.nwait; i++)
		CHECK(p.wait[i].kind != WAIT_UPPER);
	/* with a layer on the network too, the network's failure stops the boot */
	device_facts(&c, &f, "union.lower=nbd:10.0.2.100:10809/root union.upper=nbd:10.0.2.100:10809/${hostname}",
		     "", "");
	f.done = 0;
	plan_build(&f, &p);
	CHECK_INT(p.row[1].kind, RUN_NET);
	CHECK_INT(p.row[1].onfail, RUNFAIL_LAYER);
	CHECK_INT(p.row[2].kind, RUN_NBD);
	CHECK_INT(p.row[3].kind, RUN_NBD_UPPER);
	CHECK_INT(p.row[4].kind, RUN_WAIT_MEDIA);
	/* without the network in the build: union.onfail, and why */
	device_facts(&c, &f, "union.upper=nbd:10.0.2.100:10809/clients-${mac}", "", "");
	f.no_net = 1;
	plan_build(&f, &p);
	CHECK_INT(p.upper_failed, 1);
	CHECK_INT(has_row(&p, RUN_NET), 0);
	CHECK_STR(p.fallback_why,
		  "writable branch nbd:10.0.2.100:10809/clients-${mac} is on the network (nbd:), which this build leaves out (NET=0)");
}

/* A layer on the network: the network's row, then its export's, before
 * the wait, each failing to union.onfail's stop; the export's row is done
 * by its fact. A build without the network stops the boot, and says so. */
static void an_nbd_layer_brings_the_network_up_first(void)
{
	static struct config c;
	static struct plan_facts f;
	static struct plan p;

	device_facts(&c, &f, "union.lower=/dev/vda,nbd:10.0.2.100:10809/root union.upper=tmpfs", "", "");
	f.done = 0;
	plan_build(&f, &p);
	CHECK_INT(p.lower_net, 2);
	CHECK_INT(p.row[1].kind, RUN_NET);
	CHECK_INT(p.row[1].onfail, RUNFAIL_LAYER);
	CHECK_INT(p.row[2].kind, RUN_NBD);
	CHECK_INT(p.row[2].arg, 2);
	CHECK_INT(p.row[3].kind, RUN_WAIT_MEDIA);
	CHECK_INT(plan_row_done(&p, &p.row[2]), 0);
	f.nbd_done = 2;
	CHECK_INT(plan_row_done(&p, &p.row[2]), 1);
	CHECK(p.backend != PLAN_STOP);
	f.no_net = 1;
	plan_build(&f, &p);
	CHECK_INT(p.backend, PLAN_STOP);
	CHECK_STR(p.backend_why, PLAN_NEEDS_NET);
	CHECK(p.row[1].kind != RUN_NET);
}

UNIT_SUITE(plan,
	   { "an nbd: layer brings the network up first", an_nbd_layer_brings_the_network_up_first },
	   { "every fact set gives its golden plan", every_fact_set_gives_its_golden_plan },
	   { "each story runs its golden steps", each_story_runs_its_golden_steps },
	   { "without copy-up a branch that needs it takes union.onfail",
	     without_copyup_a_branch_that_needs_it_takes_onfail },
	   { "without dm-verity a layer to verify is refused", without_verity_a_layer_to_verify_is_refused },
	   { "without raw flash its media are never found", without_flash_its_media_are_never_found },
	   { "failsafe on vfat takes an overlay over tmpfs", failsafe_on_vfat_takes_an_overlay_over_tmpfs },
	   { "OpenWrt's marker on raw flash is erased first, even under union.upperfs=",
	     openwrt_marker_is_erased_first_even_under_a_forced_type },
	   { "a missing persistence file is made only with union.persist.size", a_missing_persistence_file_is_made_only_with_a_size },
	   { "a missing persistence partition is made only for a label", a_missing_persistence_partition_is_made_only_for_a_label },
	   { "a LUKS branch is unlocked first", a_luks_branch_is_unlocked_first },
	   { "mount-root leaves the union for the host", mount_root_leaves_the_union_for_the_host },
	   { "a tool is the initramfs', then the top-most layer's", a_tool_is_the_initramfs_then_the_top_most_layer },
	   { "the wait list holds the layers, the branch and the hash devices",
	     the_wait_list_holds_the_layers_the_branch_and_the_hash_devices },
	   { "each failure gives the fallback union.onfail names", each_failure_gives_the_fallback_union_onfail_names },
	   { "the fallback is decided by the plan alone", the_fallback_is_decided_by_the_plan_alone },
	   { "a kiosk session needs the persistent branch", a_kiosk_session_needs_the_persistent_branch },
	   { "what the build leaves out is never waited for", what_the_build_leaves_out_is_never_waited_for },
	   { "OpenWrt's sysupgrade.tgz is placed between the layout and the state's save",
	     sysupgrade_is_placed_between_layout_and_state },
	   { "an nbd: branch is connected before the wait", an_nbd_branch_is_connected_before_the_wait });
