// SPDX-License-Identifier: MIT
/* The one loop of the boot: build the plan from the facts, take its first
 * step not done, run it, record what came of it as a fact, and again, until
 * the step that hands over to the real init. Only this file builds the plan
 * and carries out union.onfail; a step reports -errno and why, nothing more. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "lib/log.h"
#include "lib/sbuf.h"
#include "steps.h"
#include "lib/sys.h"

static void replan(struct boot *b)
{
	plan_build(&b->facts, &b->plan);
}

static const struct plan_row *next_row(const struct boot *b)
{
	for (unsigned i = 0; i < b->plan.nrow; i++)
		if (!plan_row_done(&b->plan, &b->plan.row[i]))
			return &b->plan.row[i];
	return NULL;
}

/* union.onfail=reboot or halt, said with why, then done. */
static NORETURN void reboot_or_halt(int halt, const char *why)
{
	const char *now = halt ? "powering off" : "rebooting";

	log_err("%s; %s (union.onfail=%s)", why, now, halt ? "halt" : "reboot");
	rescue_power(halt, now);
}

/* A refused read-only layer, or one on the network that never came, has
 * no stand-in: the boot stops. A rescue shell
 * only when union.onfail=shell asks for it (a root shell is what swapping
 * the image is after), else a reboot, or union.onfail=halt's power off. */
static NORETURN void verity_stop(struct boot *b, const char *why)
{
	if (b->plan.verity_fail == VFAIL_RESCUE)
		rescue_fatal(b, why);
	if (b->plan.verity_fail == VFAIL_HALT || b->cfg.onfail == ONFAIL_REBOOT)
		reboot_or_halt(b->plan.verity_fail == VFAIL_HALT, why);
	log_err("%s; rebooting in %d s (union.onfail=shell would open a rescue shell)", why,
		RESCUE_REBOOT_S);
	rescue_power(0, "rebooting");
}

/* The layers the plan verifies, or its refusal of them all (union.verity
 * that cannot be honoured, a hash tree's device not found): in the words
 * of a wrong root hash. */
static int verify(struct boot *b, struct step_out *o)
{
	if (b->plan.verity_refused[0]) {
		IGNORE(strfmt(o->why, sizeof(o->why), "read-only layer 1 %s: verity refused it: %s",
			      b->lower_dev[0], b->plan.verity_refused)); /* a cut line still names it */
		return -EPERM;
	}
	if (b->hash_missing[0]) {
		IGNORE(strcopy(o->why, sizeof(o->why), b->hash_missing)); /* same size */
		return -ENODEV;
	}
	return verity_layers(b, o->why, sizeof(o->why));
}

/* union.onfail's row: the device is let go (before a shell: the user may
 * mend the stick), then a shell, a reboot or halt, or the volatile branch. */
static void fallback(struct boot *b)
{
	const char *why = b->plan.fallback_why;

	if (b->plan.upper_kind == UPPER_NONE && b->plan.backend == PLAN_READONLY) {
		log_err("%s; booting read-only", why);
		return;
	}
	image_release_upper(b);
	switch (b->plan.fallback) {
	case FALLBACK_SHELL:
		if (boot_hosted(b)) /* the host's initramfs has a shell of its own */
			mountroot_fail(why, 1);
		if (rescue_shell(why) < 0)
			log_err("%s; no rescue shell in the initramfs (union.onfail=shell)", why);
		break;
	case FALLBACK_REBOOT:
	case FALLBACK_HALT:
		reboot_or_halt(b->plan.fallback == FALLBACK_HALT, why);
	default:
		break;
	}
	/* a build without copy-up whose branch needs it: the root is the
	 * read-only layer, not the volatile branch (the NO_COPYUP row says why) */
	log_err(b->plan.backend == PLAN_READONLY ? "%s; booting read-only (union.onfail=%s)" :
		"%s; booting with a volatile writable branch in RAM (union.onfail=%s)", why,
		config_onfail_name(b->plan.fallback));
	result_branch(b, OUTCOME_FALLBACK, why, b->facts.failed_errno);
}

/* The writable branch's step failed: a fact, and the plan built from it
 * is the fallback. A volatile branch that fails has nothing below it. */
static void branch_failed(struct boot *b, const struct step_out *o, int rc)
{
	struct plan_facts *f = &b->facts;
	struct sbuf sb;

	if (o->step == STEP_TMPFS) {
		f->tmpfs_errno = rc;
		replan(b);
		if (b->plan.upper_kind == UPPER_NONE && b->plan.backend == PLAN_READONLY)
			log_err("%s; booting read-only", o->why);
		return;
	}
	if (o->step == STEP_OVERLAY) { /* the overlay's branch is let go */
		step_close_branch(b);
		union_detach(RWDIR);
	}
	f->failed_step = o->step;
	f->failed_errno = rc;
	sbuf_init(&sb, f->upper_failed, sizeof(f->upper_failed));
	sbuf_add(&sb, o->why); /* for the plan; a cut reason still says the branch failed */
}

/* The union over a volatile branch, or the copy-up root, failed: the root
 * is the read-only layer without a writable branch. */
static void union_failed(struct boot *b, const struct plan_row *r, int rc)
{
	step_close_branch(b);
	if (r->kind == RUN_OVERLAY) { /* its branch is let go: the root takes no writes */
		union_detach(RWDIR);
		unlock_close(b);
		log_err("overlay mount failed: %s%s; booting the read-only layer without a writable branch",
			strerror(-rc), rc == -ENODEV ? " (no overlayfs in this kernel)" : "");
		result_branch(b, OUTCOME_LOST, "overlay", rc);
	}
	b->facts.union_errno = rc;
}

/* The rows whose step cannot fail: it records what it found on the boot.
 * 1 when kind is one of them, done. */
static int run_plain(struct boot *b, int kind)
{
	switch (kind) {
	case RUN_WAIT_MEDIA:
		devices_wait(b);
		return 1;
	case RUN_FALLBACK:
		fallback(b);
		return 1;
	case RUN_PROBE_OVERLAY:
		step_probe_overlay(b);
		return 1;
	case RUN_NO_COPYUP:
		step_no_copyup(b);
		return 1;
	case RUN_READ_STATE:
		step_read_state(b);
		return 1;
	case RUN_FAILSAFE:
		step_failsafe(b);
		return 1;
	case RUN_TAKE_RESET:
		step_take_reset(b);
		return 1;
	case RUN_SYSUPGRADE:
		step_sysupgrade(b);
		return 1;
	case RUN_SAVE_STATE:
		step_save_state(b);
		return 1;
	case RUN_SESSION_COPY:
		step_session_copy(b);
		return 1;
	case RUN_SESSION:
		step_session(b);
		return 1;
	default:
		return 0;
	}
}

static int run_row(struct boot *b, const struct plan_row *r, struct step_out *o)
{
	if (run_plain(b, r->kind))
		return 0;
	switch (r->kind) {
	case RUN_MODULES:
		rescue_break(b, BREAK_MODULES, "modules");
		watchdog_phase(WD_PHASE_S, "loading modules");
		modules_load(b);
		return 0;
	case RUN_FORMAT:
		watchdog_phase(WD_PHASE_S, "preparing a blank writable medium");
		firstboot(b);
		return 0;
	case RUN_VERIFY:
		return verify(b, o);
	case RUN_MOUNT_LOWER:
		return step_mount_lower(b, r->arg, o);
	case RUN_MAKE_PERSIST:
		return step_make_persist(b, o);
	case RUN_MAKE_PART:
		return step_make_part(b, o);
	case RUN_UNLOCK:
		return step_unlock(b, o);
	case RUN_MOUNT_BRANCH:
		return step_mount_branch(b, o);
	case RUN_LAYOUT:
		return step_layout(b, o);
	case RUN_TMPFS:
		return step_tmpfs(b, o);
	case RUN_OVERLAY:
		return step_overlay(b, r->onfail == RUNFAIL_BRANCH, o);
	case RUN_FRESH_WORK:
		return step_fresh_work(b);
	case RUN_COPYUP:
		return step_copyup(b);
	case RUN_READONLY:
		return step_readonly(b, o);
	case RUN_NET:
		return step_net(b, o);
	case RUN_NBD:
		return step_nbd(b, r->arg, o);
	case RUN_NBD_UPPER:
		return step_nbd_upper(b, o);
	case RUN_HTTP:
		return step_http(b, r->arg, o);
	case RUN_NFS:
		return step_nfs(b, r->arg, o);
	case RUN_REFUSE: /* the plan's why: never fetched, never mounted */
		IGNORE(strcopy(o->why, sizeof(o->why), r->why)); /* PLAN_WHY_MAX fits */
		return -EPERM;
	case RUN_MOUNT_AT:
		mountroot_done(b);
	default: /* RUN_HANDOFF */
		if (b->plan.backend == PLAN_STOP)
			rescue_fatal(b, b->plan.backend_why);
		step_close_branch(b);
		b->t_mounts = sys_now_ms();
		log_info("root: %s; writable branch %s", b->backend, b->upper_state);
		rescue_break(b, BREAK_SWITCH, "switch");
		watchdog_phase(WD_PHASE_S, "handing over to the real init");
		handoff(b);
	}
}

/* The overlay's first refusal of the device, which stands when work/
 * cannot be renewed. */
static struct step_out refusal;
static int refusal_rc;

/* What came of row r: a fact the next plan is built from. */
static void record(struct boot *b, const struct plan_row *r, int rc, const struct step_out *o)
{
	if (r->kind == RUN_FRESH_WORK && rc < 0) {
		branch_failed(b, &refusal, refusal_rc);
		return;
	}
	if (rc == 0 || r->onfail == RUNFAIL_NONE) {
		if (r->kind == RUN_MOUNT_LOWER)
			b->facts.lowers_mounted = r->arg;
		else if (r->kind == RUN_NBD)
			b->facts.nbd_done |= 1u << (r->arg - 1);
		else if (r->kind == RUN_HTTP)
			b->facts.http_done |= 1u << (r->arg - 1);
		else if (r->kind == RUN_NFS)
			b->facts.nfs_done |= 1u << (r->arg - 1);
		else if (r->kind == RUN_NBD_UPPER)
			b->facts.nbd_upper_done = 1;
		else if (r->kind <= RUN_REFUSE) /* the done bits' last kind (plan_rows.c) */
			b->facts.done |= 1u << r->kind;
		return;
	}
	switch (r->onfail) {
	case RUNFAIL_BRANCH:
		if (r->kind == RUN_OVERLAY && rc != -ENODEV && !b->facts.fresh_work_tried) {
			/* stale or incompatible work/ (another kernel, a crash): it
			 * holds nothing of the user's, so start it afresh once */
			log_warn("overlay mount refused (%s); retrying with a fresh work/", strerror(-rc));
			b->facts.fresh_work_tried = 1;
			refusal = *o;
			refusal_rc = rc;
		} else if (r->kind == RUN_OVERLAY && rc == -ENODEV) {
			union_failed(b, r, rc);
		} else {
			branch_failed(b, o, rc);
		}
		break;
	case RUNFAIL_UNION:
		union_failed(b, r, rc);
		break;
	case RUNFAIL_VERITY:
	case RUNFAIL_LAYER: /* a layer that never came stops as a refused one */
		verity_stop(b, o->why);
	default: /* RUNFAIL_STOP: the step names what stopped the boot */
		rescue_fatal(b, o->why);
	}
}

int boot_next(struct boot *b)
{
	const struct plan_row *r;

	replan(b);
	r = next_row(b);
	return r ? r->kind : -1;
}

int boot_turn(struct boot *b)
{
	const struct plan_row *r;
	struct step_out o = { "", STEP_NONE };
	int rc;

	replan(b);
	r = next_row(b);
	if (!r) /* the last row hands over and never returns */
		rescue_fatal(b, "the plan has no step left");
	if (!b->mount_broken && r->kind != RUN_MODULES && r->kind != RUN_WAIT_MEDIA &&
	    r->kind != RUN_NET && r->kind != RUN_NBD && r->kind != RUN_HTTP && r->kind != RUN_REFUSE &&
	    r->kind != RUN_NFS &&
	    r->kind != RUN_NBD_UPPER &&
	    r->kind != RUN_FORMAT && !(r->kind == RUN_FALLBACK && b->facts.lowers_mounted == 0)) {
		rescue_break(b, BREAK_MOUNT, "mount");
		watchdog_phase(WD_PHASE_S, "building the union");
		b->mount_broken = 1;
	}
	rc = run_row(b, r, &o);
	record(b, r, rc, &o);
	return r->kind;
}

void boot_run(struct boot *b)
{
	b->rw = -1;
	step_branch_none(b);
	replan(b);
	if (b->cfg.session_volatile && b->plan.upper_kind != UPPER_DEVICE)
		log_warn("union.session=volatile needs a persistent writable branch to layer; this boot is volatile anyway");
	for (;;)
		IGNORE(boot_turn(b));
}
