// SPDX-License-Identifier: MIT
/* The boot plan from its facts: which writable branch, which backend, what
 * failsafe, reset, upgrade and session do. Pure: it calls the deciders that
 * already exist (decide_boot, copyup_choose_backend) and adds their order. */
#include "plan/plan.h"

#include <errno.h>
#include <string.h>

#include "branch/reset.h"
#include "conf/spec.h"
#include "lib/sbuf.h"
#include "plan/copyup_decide.h"

/* What union.upper asks for (config parsed it); flash: a SPEC of raw flash. */
static int configured_kind(const struct config *c, int *flash)
{
	if (strcmp(c->upper, "none") == 0)
		return UPPER_NONE;
	if (!c->upper_is_spec)
		return UPPER_TMPFS;
	*flash = c->upper_spec.kind == SPEC_MTD || c->upper_spec.kind == SPEC_UBI;
	return UPPER_DEVICE;
}

/* The device cannot serve: it failed at boot, is absent (or raw flash in a
 * build without it), or holds nothing known (union.upperfs names a type
 * itself). */
static int branch_unusable(const struct plan_facts *f, const struct plan *p)
{
	const char *type = f->upper_type ? f->upper_type : "";

	/* a device without a file system may get one first (union.format);
	 * flash bearing OpenWrt's marker is erased first whatever
	 * union.upperfs= says, and mounts only once that is done */
	return f->failed_step != STEP_NONE || p->upper_no_flash || (p->upper_net && PLAN_WITHOUT_NET(f)) ||
	       (f->upper_present == PRESENT_NO && !(p->persist_part && p->persist_make)) ||
	       (f->upper_present == PRESENT_YES && !type[0] &&
		(!f->cfg->upperfs[0] || f->upper_marked) && (f->done >> RUN_FORMAT & 1));
}

const char *plan_upper_fs(const struct plan *p)
{
	const struct config *c = p->facts->cfg;

	if (p->upper_kind == UPPER_TMPFS)
		return "tmpfs";
	if (c->upperfs[0])
		return c->upperfs;
	if (p->unlock && !(p->facts->done >> RUN_UNLOCK & 1))
		return "";
	return p->facts->upper_type ? p->facts->upper_type : "";
}

/* The writable device cannot serve: union.onfail's fallback replaces it, a
 * volatile tmpfs, or (reboot, halt) no branch, for the boot stops. */
static void take_fallback(struct plan *p)
{
	p->upper_failed = 1;
	p->upper_kind = p->fallback == FALLBACK_REBOOT || p->fallback == FALLBACK_HALT ? UPPER_NONE :
											 UPPER_TMPFS;
}

static void choose_backend(const struct plan_facts *f, struct plan *p)
{
	const struct config *c = f->cfg;

	if (!p->lowers[0]) {
		p->backend = PLAN_STOP;
		p->backend_why = "no read-only layer configured (set union.lower= or root=)";
	} else if (p->upper_failed && (p->fallback == FALLBACK_REBOOT || p->fallback == FALLBACK_HALT)) {
		p->backend = PLAN_STOP;
		p->backend_why = p->fallback == FALLBACK_REBOOT ? "union.onfail=reboot" : "union.onfail=halt";
	} else if (p->upper_kind == UPPER_NONE) {
		p->backend = PLAN_READONLY;
		p->backend_why = f->tmpfs_errno ? "the volatile writable branch failed" :
								"no writable branch (union.upper=none)";
	} else if (f->union_errno) {
		p->backend = PLAN_READONLY;
		p->backend_why = "the union over the writable branch failed";
	} else {
		/* until the kernel's overlayfs is looked at, it is taken to be there */
		p->backend = copyup_choose_backend(c->mode, f->have_overlay || f->image_overlay ||
							    !(f->done >> RUN_PROBE_OVERLAY & 1),
						   plan_upper_fs(p), &p->backend_why) == BACKEND_COPYUP ?
				     PLAN_COPYUP : PLAN_OVERLAY;
	}
}

/* A build without the copy-up backend: a writable device that needs it
 * cannot serve, so union.onfail decides; where even that needs copy-up (no
 * overlayfs at all), the read-only layer boots alone. */
static void without_copyup(const struct plan_facts *f, struct plan *p)
{
	p->copyup_missing = p->backend_why;
	if (p->upper_kind == UPPER_DEVICE) {
		p->upper_needs_copyup = 1;
		take_fallback(p);
		memset(&p->decided, 0, sizeof(p->decided));
		p->reset_mode = RESET_NONE;
		p->reset_why = NULL;
		p->sysupgrade = SYSUPGRADE_NONE;
		choose_backend(f, p);
	}
	if (p->backend == PLAN_COPYUP) {
		p->backend = PLAN_READONLY;
		p->backend_why = "copy-up is needed, and this build has no copy-up backend (COPYUP=0)";
	}
}

/* A persistent branch: failsafe, reset and upgrade from its control state;
 * a pending request resets too, and says so. */
static void decide_branch(const struct plan_facts *f, struct plan *p)
{
	const struct config *c = f->cfg;

	/* no state known reads as no state: decide_boot's zeros */
	decide_boot(&f->saved, f->state_known ? f->state_rc : -ENODATA, &f->now,
		    c->reset, f->reset_request, c->upgrade, (unsigned)c->maxfails, &p->decided);
	if (p->decided.failsafe) {
		p->upper_kind = UPPER_TMPFS;
		p->sysupgrade = decide_sysupgrade(f->sysupgrade_archive, f->state_saved, 1, c->reset,
						  f->reset_request, c->upgrade, &p->sysupgrade_why);
		return;
	}
	p->reset_mode = p->decided.reset_mode;
	p->reset_why = p->reset_mode != RESET_NONE ? p->decided.why : NULL;
	if (f->reset_request) {
		if (p->reset_mode == RESET_NONE)
			p->reset_mode = RESET_FACTORY;
		p->reset_why = "requested by 'unionroot reset'";
	}
	p->sysupgrade = decide_sysupgrade(f->sysupgrade_archive, f->state_saved, 0, c->reset,
					  f->reset_request, c->upgrade, &p->sysupgrade_why);
}

const struct verity_arg *plan_verity(const struct plan *p, unsigned n)
{
	for (unsigned i = 0; i < p->nverity; i++)
		if (p->verity[i].layer == n)
			return &p->verity[i];
	return NULL;
}

/* The read-only layers' SPECs (root= is one SPEC, as configure.c reads it);
 * in a build without raw flash, which of them name it, and whether anything
 * does. */
static void decide_layers(const struct plan_facts *f, struct plan *p)
{
	const struct spec *specs = config_layers(f->cfg, &p->nlayers);

	for (unsigned i = 0; i < p->nlayers; i++)
		if (specs[i].kind == SPEC_MTD || specs[i].kind == SPEC_UBI)
			p->lower_flash |= (unsigned)PLAN_WITHOUT_FLASH(f) << i;
		else if (specs[i].kind == SPEC_NBD || specs[i].kind == SPEC_HTTP || specs[i].kind == SPEC_NFS)
			p->lower_net |= 1u << i;
	for (unsigned i = 0; i < p->nlayers; i++) {
		p->lower_http |= (unsigned)(specs[i].kind == SPEC_HTTP) << i;
		p->lower_nfs |= (unsigned)(specs[i].kind == SPEC_NFS) << i;
		p->nfs_tree |= (unsigned)(specs[i].kind == SPEC_NFS && !specs[i].npaths) << i;
	}
	p->flash_asked = PLAN_WITHOUT_FLASH(f) && (p->lower_flash || p->upper_no_flash || f->cfg->ubi[0]);
}

/* Which layers are verified, and what a refusal does: a read-only layer has
 * no volatile stand-in, so the boot stops (a reboot, or union.onfail's halt;
 * a rescue shell only when union.onfail=shell asks for one, for a root shell
 * is what an attacker swapping the image wants). union.verity fails closed:
 * a value config refused, or an entry naming a layer the boot does not
 * have, refuses every layer; it never boots them unverified. Without
 * dm-verity in the build a layer to verify is refused as a setup that fails
 * is. */
static void decide_verity(const struct plan_facts *f, struct plan *p)
{
	const struct config *c = f->cfg;

	memcpy(p->verity, c->verity_arg, sizeof(p->verity));
	p->nverity = c->nverity_arg;
	p->verity_fail = c->onfail == ONFAIL_SHELL ? VFAIL_RESCUE :
			 c->onfail == ONFAIL_HALT  ? VFAIL_HALT :
						     VFAIL_REBOOT;
	if (c->verity_bad[0])
		IGNORE(strfmt(p->verity_refused, sizeof(p->verity_refused),
			      "union.verity cannot be honoured (%s)", c->verity_bad)); /* a cut reason still refuses */
	for (unsigned i = 0; !p->verity_refused[0] && i < p->nverity; i++)
		if (p->verity[i].layer > p->nlayers)
			IGNORE(strfmt(p->verity_refused, sizeof(p->verity_refused),
				      "union.verity names read-only layer %u, and the boot has %u",
				      p->verity[i].layer, p->nlayers)); /* fits */
	if (p->verity_refused[0]) {
		p->nverity = 0;
		return;
	}
	for (unsigned i = 0; PLAN_WITHOUT_VERITY(f) && i < p->nverity; i++)
		if (!p->verity_left_out || p->verity[i].layer < p->verity_left_out)
			p->verity_left_out = p->verity[i].layer;
}

/* Plain HTTP has no authentication of its own: an http:// layer is taken
 * when union.verity verifies it (a tampered image is then refused as any
 * layer), or when union.insecure=1 says to take it as it comes (which every
 * boot says); otherwise it is refused before anything is fetched. */
static void decide_http(const struct plan_facts *f, struct plan *p)
{
	const struct spec *specs = config_layers(f->cfg, &p->nlayers);

	if (PLAN_WITHOUT_NET(f)) /* the build's own stop comes first */
		return;
	for (unsigned i = 1; i <= p->nlayers; i++) {
		if (!(p->lower_http >> (i - 1) & 1) || plan_verity(p, i))
			continue;
		if (f->cfg->insecure) {
			p->http_insecure |= 1u << (i - 1);
		} else if (!p->net_refused[0]) {
			IGNORE(strfmt(p->net_refused, sizeof(p->net_refused),
				      "read-only layer %u: http://%s is an unauthenticated image: give union.verity or union.insecure=1",
				      i, specs[i - 1].value)); /* a cut line still names the layer */
			p->net_refused_layer = i;
		}
	}
}

/* An nfs: layer that is a directory tree has no device for dm-verity to
 * check: union.verity naming it refuses it (fail closed), as an
 * unverified http:// layer is; an image file on the export is verified
 * through its loop device as any image. */
static void decide_nfs(const struct plan_facts *f, struct plan *p)
{
	const struct spec *specs = config_layers(f->cfg, &p->nlayers);

	if (PLAN_WITHOUT_NET(f) || p->net_refused[0])
		return;
	for (unsigned i = 1; i <= p->nlayers && !p->net_refused[0]; i++) {
		if (!(p->nfs_tree >> (i - 1) & 1) || !plan_verity(p, i))
			continue;
		IGNORE(strfmt(p->net_refused, sizeof(p->net_refused),
			      "read-only layer %u: nfs:%s is a directory tree, which union.verity cannot verify: name an image file on the export",
			      i, specs[i - 1].value)); /* a cut line still names the layer */
		p->net_refused_layer = i;
	}
}

/* A persistence file (a SPEC with one path) that is missing is made when
 * union.persist.size names its size, with union.format's file system when
 * that can be an upper, else ext4; so is a partition named by its label
 * (LABEL= or PARTLABEL=, no path) that no device has at the deadline: after
 * the last one on the disk the read-only layer was found on. */
static void decide_persist(const struct plan_facts *f, struct plan *p)
{
	const struct config *c = f->cfg;
	const struct spec *s = &c->upper_spec;
	int label = s->kind == SPEC_LABEL || s->kind == SPEC_PARTLABEL;

	if (p->upper_kind != UPPER_DEVICE || s->npaths > 1 || (!s->npaths && !label))
		return;
	if (s->npaths)
		p->persist_path = s->paths[0];
	if (!c->persist_size[0] || config_bytes(c->persist_size, &p->persist_bytes) < 0)
		return;
	p->persist_fs = strcmp(c->format, "f2fs") == 0 ? "f2fs" : "ext4";
	if (s->npaths) {
		p->persist_make = f->upper_file_missing;
		return;
	}
	p->persist_part = s->value;
	p->persist_make = (f->done >> RUN_MAKE_PART & 1) ||
			  (f->upper_present == PRESENT_NO && f->failed_step == STEP_NONE);
}

/* The devices the boot waits for, each under union.wait (or its SPEC's own
 * deadline): every layer's medium, the writable device, and a hash tree on
 * a device of its own, which may well appear after the data (a USB stick
 * enumerates after the disks); a layer verified by a tree not there yet
 * would be refused. An http:// layer is no device to wait for: its fetch
 * gives the loop device it is on. */
static void decide_waits(struct plan *p)
{
	const struct plan_facts *f = p->facts;

	for (unsigned i = 1; i <= p->nlayers; i++)
		if (PLAN_WITHOUT_NET(f) || !((p->lower_http | p->lower_nfs) >> (i - 1) & 1)) /* its step gives its device */
			p->wait[p->nwait++] = (struct plan_wait){ WAIT_LOWER, i,
								  PLAN_WITHOUT_FLASH(f) && (p->lower_flash >> (i - 1) & 1) };
	if (p->upper_kind == UPPER_DEVICE)
		p->wait[p->nwait++] = (struct plan_wait){ WAIT_UPPER, 0, 0 };
	for (unsigned i = 0; i < p->nverity && !PLAN_WITHOUT_VERITY(f); i++)
		if (p->verity[i].hashdev[0] && p->verity[i].layer <= p->nlayers)
			p->wait[p->nwait++] = (struct plan_wait){ WAIT_HASH, p->verity[i].layer, 0 };
}

/* What the build leaves out stops the boot where a layer needs it: a layer
 * on raw flash is never found, a layer to verify is refused; so does a
 * union.verity that cannot be honoured. */
static void left_out_stops(const struct plan_facts *f, struct plan *p)
{
	if (PLAN_WITHOUT_FLASH(f) && p->lower_flash) {
		p->backend = PLAN_STOP;
		p->backend_why = "a read-only layer needs raw flash, which this build leaves out (FLASH=0): rescue shell, else reboot";
	} else if (PLAN_WITHOUT_NET(f) && p->lower_net) {
		p->backend = PLAN_STOP;
		p->backend_why = PLAN_NEEDS_NET;
	} else if (p->verity_refused[0] && p->nlayers) {
		p->backend = PLAN_STOP;
		p->backend_why = "the read-only layers are refused: union.verity cannot be honoured";
	} else if (PLAN_WITHOUT_VERITY(f) && p->verity_left_out) {
		p->backend = PLAN_STOP;
		p->backend_why = "a read-only layer is to be verified, and this build has no dm-verity (VERITY=0)";
	}
}

void plan_upper_text(const struct config *c, char *buf, size_t cap)
{
	if (!c->upper_is_spec || spec_format(&c->upper_spec, buf, cap) < 0)
		IGNORE(strcopy(buf, cap, c->upper)); /* cap is PLAN_SPEC_TEXT_MAX, more than c->upper */
}

/* Why the writable device falls to union.onfail: what the boot said of the
 * step that failed, else the plan's own reason. */
static void fallback_why(const struct plan_facts *f, struct plan *p)
{
	const struct config *c = f->cfg;
	const char *dev = f->upper_dev && f->upper_dev[0] ? f->upper_dev : NULL;
	char spec[PLAN_SPEC_TEXT_MAX];
	struct sbuf sb;

	plan_upper_text(c, spec, sizeof(spec));
	sbuf_init(&sb, p->fallback_why, sizeof(p->fallback_why));
	if (f->upper_failed[0])
		sbuf_add(&sb, f->upper_failed);
	else if (p->upper_needs_copyup)
		sbuf_addf(&sb, PLAN_NEEDS_COPYUP, dev ? dev : c->upper, p->copyup_missing);
	else if (PLAN_WITHOUT_FLASH(f) && p->upper_no_flash)
		sbuf_addf(&sb, PLAN_NEEDS_FLASH, "writable branch", spec);
	else if (PLAN_WITHOUT_NET(f) && p->upper_net)
		sbuf_addf(&sb, PLAN_NEEDS_NET_UPPER, spec);
	else if (f->upper_present == PRESENT_NO)
		sbuf_addf(&sb, "writable device %s not found", spec);
	else
		sbuf_addf(&sb, "writable branch %s holds no known file system", dev ? dev : spec);
	IGNORE(sbuf_done(&sb)); /* a cut reason still says the branch failed */
}

int plan_tool_choose(const unsigned *found, unsigned n, unsigned *place)
{
	for (unsigned at = 0; at <= SPEC_LIST_MAX; at++)
		for (unsigned i = 0; i < n; i++)
			if (found[i] >> at & 1) {
				*place = at;
				return (int)i;
			}
	return -1;
}

void plan_build(const struct plan_facts *f, struct plan *p)
{
	const struct config *c = f->cfg;

	memset(p, 0, sizeof(*p));
	p->facts = f;
	/* configure.c's rule: the config does not record where union.lower
	 * came from (board or command line), so root= cannot be ranked yet */
	p->lowers = c->lower[0] ? c->lower : c->root;
	/* the kernel's own words for its root apply to a layer from root= */
	p->lower_fstype = c->lower[0] ? "" : c->rootfstype;
	p->lower_flags = c->lower[0] ? "" : c->rootflags;
	p->upper_kind = configured_kind(c, &p->upper_no_flash);
	p->upper_no_flash &= PLAN_WITHOUT_FLASH(f);
	/* an nbd: branch is connected first, then found as any writable device */
	p->upper_net = p->upper_kind == UPPER_DEVICE && c->upper_spec.kind == SPEC_NBD;
	decide_layers(f, p);
	decide_verity(f, p);
	decide_http(f, p);
	decide_nfs(f, p);
	decide_persist(f, p);
	p->fallback = p->upper_kind == UPPER_DEVICE ? c->onfail : FALLBACK_READONLY;
	if (p->upper_kind == UPPER_DEVICE && branch_unusable(f, p))
		take_fallback(p);
	p->unlock = p->upper_kind == UPPER_DEVICE && !p->upper_failed &&
		    ((f->done >> RUN_UNLOCK & 1) || (f->upper_type && strcmp(f->upper_type, PLAN_LUKS) == 0));
	if (p->upper_kind == UPPER_DEVICE)
		decide_branch(f, p);
	if (p->upper_kind == UPPER_TMPFS && f->tmpfs_errno)
		p->upper_kind = UPPER_NONE; /* a tmpfs that failed has nothing below it */
	choose_backend(f, p);
	if (p->backend == PLAN_COPYUP && f->no_copyup)
		without_copyup(f, p);
	left_out_stops(f, p);
	p->kiosk = c->session_volatile && p->upper_kind == UPPER_DEVICE;
	/* the boot layers the saved branch only under overlayfs, and not in failsafe */
	p->session = c->session_volatile && p->upper_kind == UPPER_DEVICE &&
		     p->backend == PLAN_OVERLAY;
	/* the drivers of hardware no medium is on cost the boot their load
	 * time (ata_piix for QEMU's empty CD drive: a tenth of PID 1); the
	 * real init's udev loads them from the root's own modules */
	p->drivers = c->drivers;
	decide_waits(p);
	if (p->upper_failed)
		fallback_why(f, p);
	plan_rows(p);
}
