// SPDX-License-Identifier: MIT
/* The plan's steps, in the order PID 1 carries them out: pure, from the
 * decisions plan_build made and the facts that say which steps are done.
 * A failure is never control flow here: it is a fact, and the rows of the
 * plan built from it are the fallback. */
#include "plan/plan.h"

#include <string.h>

static void add(struct plan *p, int kind, unsigned arg, int onfail, const char *why)
{
	if (p->nrow < PLAN_RUN_MAX)
		p->row[p->nrow++] = (struct plan_row){ kind, arg, onfail, why };
}

/* The writable device was not found: its fallback comes before any mount. */
static int not_found(const struct plan_facts *f)
{
	return f->failed_step == STEP_FIND || (f->failed_step == STEP_NONE && f->upper_present == PRESENT_NO);
}

/* The kinds after RUN_REFUSE have facts of their own (nfs_done,
 * nbd_upper_done): plan_facts.done has a bit for each kind up to it. */
_Static_assert(RUN_REFUSE < 32, "a row kind's done bit is past plan_facts.done");

static int done(const struct plan_facts *f, int kind)
{
	return kind <= RUN_REFUSE && (f->done >> kind & 1);
}

/* The persistent branch: mounted, its control state read, then what the
 * state decided (failsafe, or reset, layout and the state saved, and a
 * kiosk session on top). */
static void device_rows(struct plan *p)
{
	add(p, RUN_MOUNT_BRANCH, 0, RUNFAIL_BRANCH, NULL);
	add(p, RUN_READ_STATE, 0, RUNFAIL_NONE, NULL);
	if (p->decided.failsafe) {
		add(p, RUN_FAILSAFE, 0, RUNFAIL_NONE, NULL);
		add(p, RUN_TMPFS, 0, RUNFAIL_BRANCH, NULL);
		return;
	}
	if (p->backend == PLAN_COPYUP)
		add(p, RUN_TAKE_RESET, 0, RUNFAIL_NONE, NULL);
	add(p, RUN_LAYOUT, 0, RUNFAIL_BRANCH, p->reset_why);
	/* before the state is saved: until then the archive at the top is
	 * the next boot's to place, whatever a power cut interrupted */
	if (p->sysupgrade != SYSUPGRADE_NONE)
		add(p, RUN_SYSUPGRADE, 0, RUNFAIL_NONE, p->sysupgrade_why);
	add(p, RUN_SAVE_STATE, 0, RUNFAIL_NONE, NULL);
	if (!p->kiosk)
		return;
	if (p->backend == PLAN_COPYUP)
		add(p, RUN_SESSION_COPY, 0, RUNFAIL_NONE, NULL);
	add(p, RUN_SESSION, 0, RUNFAIL_NONE, NULL);
	add(p, RUN_TMPFS, 0, RUNFAIL_BRANCH, NULL);
}

/* The union at /newroot over the branch the rows before it made. */
static void union_rows(struct plan *p)
{
	const struct plan_facts *f = p->facts;

	if (p->backend == PLAN_OVERLAY) {
		if (f->fresh_work_tried && p->upper_kind == UPPER_DEVICE && !p->kiosk)
			add(p, RUN_FRESH_WORK, 0, RUNFAIL_BRANCH, NULL);
		add(p, RUN_OVERLAY, 0, p->upper_kind == UPPER_DEVICE && !p->kiosk ? RUNFAIL_BRANCH :
										   RUNFAIL_UNION,
		    p->backend_why);
	} else if (p->backend == PLAN_COPYUP) {
		add(p, RUN_COPYUP, 0, RUNFAIL_UNION, p->backend_why);
	}
}

/* PID 1 switches to the real init; mount-root leaves the union at its
 * directory and returns, for the host's initramfs to switch. */
static void last_row(struct plan *p)
{
	const char *at = p->facts->mount_at;

	if (at && at[0])
		add(p, RUN_MOUNT_AT, 0, RUNFAIL_STOP, at);
	else
		add(p, RUN_HANDOFF, 0, RUNFAIL_STOP, NULL);
}

/* A layer on the network: the link and an address first (a NIC driver by
 * modalias, DHCP or ip=), then each nbd: export on a device of its own,
 * each http:// image in RAM on a loop, before the wait finds them as any
 * device. A layer that never comes, or an http:// one refused unverified,
 * has no stand-in: union.onfail's shell, reboot or halt. A writable
 * branch on an nbd: export is connected last; its failure, or the
 * network's when it serves the branch alone, is the branch's as a disk
 * not found: union.onfail, before anything is mounted, and the wait no
 * longer waits for it. */
static void net_rows(struct plan *p)
{
	const struct plan_facts *f = p->facts;
	int upper = p->upper_net && !p->upper_failed;

	/* a network up for a branch that then failed stays in the plan's record */
	if (!(p->lower_net || upper || done(f, RUN_NET)) || PLAN_WITHOUT_NET(f))
		return;
	if (p->net_refused[0]) {
		add(p, RUN_REFUSE, p->net_refused_layer, RUNFAIL_LAYER, p->net_refused);
		return;
	}
	add(p, RUN_NET, 0, p->lower_net ? RUNFAIL_LAYER : RUNFAIL_BRANCH, f->cfg->ip[0] ? "ip=" : "DHCP");
	for (unsigned i = 1; i <= p->nlayers; i++)
		if (p->lower_net >> (i - 1) & 1)
			add(p, p->lower_http >> (i - 1) & 1 ? RUN_HTTP : p->lower_nfs >> (i - 1) & 1 ? RUN_NFS : RUN_NBD,
			    i, RUNFAIL_LAYER,
			    p->http_insecure >> (i - 1) & 1 ? "unauthenticated (union.insecure=1)" : NULL);
	if (upper)
		add(p, RUN_NBD_UPPER, 0, RUNFAIL_BRANCH, NULL);
}

void plan_rows(struct plan *p)
{
	const struct plan_facts *f = p->facts;
	int branch;

	p->nrow = 0;
	add(p, RUN_MODULES, 0, RUNFAIL_NONE, NULL);
	net_rows(p);
	add(p, RUN_WAIT_MEDIA, 0, RUNFAIL_STOP, NULL);
	if (p->upper_failed && not_found(f))
		add(p, RUN_FALLBACK, 0, RUNFAIL_NONE, p->fallback_why);
	if (p->nverity || p->verity_refused[0] || p->verity_left_out)
		add(p, RUN_VERIFY, 0, RUNFAIL_VERITY, NULL);
	for (unsigned i = 1; i <= p->nlayers; i++)
		add(p, RUN_MOUNT_LOWER, i, RUNFAIL_STOP, NULL);
	/* after the read-only layers: an image's own mkfs can format it (a
	 * board whose initramfs carries no tools of the target's) */
	if (f->upper_present == PRESENT_YES && p->upper_kind == UPPER_DEVICE && !p->upper_failed &&
	    (f->upper_marked || (!(f->upper_type && f->upper_type[0]) && !f->cfg->upperfs[0])))
		add(p, RUN_FORMAT, 0, RUNFAIL_NONE, NULL);
	if (p->persist_make && p->upper_kind == UPPER_DEVICE && !p->upper_failed)
		add(p, p->persist_part ? RUN_MAKE_PART : RUN_MAKE_PERSIST, 0, RUNFAIL_BRANCH,
		    "union.persist.size");
	if (p->unlock)
		add(p, RUN_UNLOCK, 0, RUNFAIL_BRANCH, f->cfg->upper_keyed ? "its key file" : "a passphrase");
	if (p->upper_kind != UPPER_NONE && p->nlayers)
		add(p, RUN_PROBE_OVERLAY, 0, RUNFAIL_NONE, NULL);
	if (p->upper_failed && !not_found(f))
		add(p, RUN_FALLBACK, 0, RUNFAIL_NONE, p->fallback_why);
	if (p->backend == PLAN_STOP) {
		last_row(p);
		return;
	}
	if (p->backend == PLAN_READONLY && p->copyup_missing && p->upper_kind != UPPER_NONE)
		add(p, RUN_NO_COPYUP, 0, RUNFAIL_NONE, p->copyup_missing);
	branch = p->upper_kind != UPPER_NONE && p->backend != PLAN_READONLY;
	if (branch && (p->upper_kind == UPPER_DEVICE || p->decided.failsafe) && !p->upper_failed)
		device_rows(p);
	else if (branch)
		add(p, RUN_TMPFS, 0, RUNFAIL_BRANCH, p->upper_failed ? "union.onfail=tmpfs" : "union.upper=tmpfs");
	if (branch)
		union_rows(p);
	else
		add(p, RUN_READONLY, 0, RUNFAIL_STOP, p->backend_why);
	last_row(p);
}

int plan_row_done(const struct plan *p, const struct plan_row *r)
{
	if (r->kind == RUN_MOUNT_LOWER)
		return p->facts->lowers_mounted >= r->arg;
	if (r->kind == RUN_NBD)
		return p->facts->nbd_done >> (r->arg - 1) & 1;
	if (r->kind == RUN_HTTP)
		return p->facts->http_done >> (r->arg - 1) & 1;
	if (r->kind == RUN_NFS)
		return p->facts->nfs_done >> (r->arg - 1) & 1;
	if (r->kind == RUN_NBD_UPPER)
		return p->facts->nbd_upper_done;
	return done(p->facts, r->kind);
}

const char *plan_row_name(int kind)
{
	/* arrays, not pointers: static-pie relocates each pointer (32 bytes) */
	static const char names[RUN_KINDS][34] = {
		[RUN_MODULES] = "load modules",
		[RUN_WAIT_MEDIA] = "wait for the media",
		[RUN_FORMAT] = "format the writable device",
		[RUN_FALLBACK] = "union.onfail",
		[RUN_VERIFY] = "verify the read-only layers",
		[RUN_MOUNT_LOWER] = "mount read-only layer",
		[RUN_MAKE_PERSIST] = "make the persistence file",
		[RUN_MAKE_PART] = "make the persistence partition",
		[RUN_UNLOCK] = "unlock the LUKS container",
		[RUN_PROBE_OVERLAY] = "look for overlayfs",
		[RUN_NO_COPYUP] = "no copy-up in this build",
		[RUN_MOUNT_BRANCH] = "mount the writable branch",
		[RUN_READ_STATE] = "read its control state",
		[RUN_FAILSAFE] = "keep it read-only (failsafe)",
		[RUN_TAKE_RESET] = "take the reset over (copy-up)",
		[RUN_LAYOUT] = "lay it out",
		[RUN_SYSUPGRADE] = "place OpenWrt's sysupgrade.tgz",
		[RUN_SAVE_STATE] = "save its control state",
		[RUN_SESSION_COPY] = "bring the saved branch up to date",
		[RUN_SESSION] = "keep it read-only (kiosk session)",
		[RUN_TMPFS] = "mount a volatile branch",
		[RUN_OVERLAY] = "mount the overlay",
		[RUN_FRESH_WORK] = "renew work/",
		[RUN_COPYUP] = "copy up",
		[RUN_READONLY] = "mount the read-only root",
		[RUN_HANDOFF] = "switch to the real init",
		[RUN_MOUNT_AT] = "leave it for the host to switch",
		[RUN_NET] = "bring the network up",
		[RUN_NBD] = "connect the nbd export of layer",
		[RUN_HTTP] = "fetch the http image of layer",
		[RUN_REFUSE] = "refuse layer",
		[RUN_NFS] = "mount the nfs export of layer",
		[RUN_NBD_UPPER] = "connect the branch's nbd export",
	};

	return kind >= 0 && kind < RUN_KINDS && names[kind][0] ? names[kind] : "?";
}
