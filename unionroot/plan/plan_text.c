// SPDX-License-Identifier: MIT
/* The plan as text, one decision a line: `unionroot plan` prints it and PID 1
 * writes it to /run/unionroot/plan, so the two can be compared line by line. */
#include <string.h>

#include "branch/reset.h"
#include "conf/spec.h"
#include "lib/sbuf.h"
#include "plan/plan.h"

#define KEY "%-16s "

static void upper_line(struct sbuf *sb, const struct plan *p, const char *spec)
{
	const struct plan_facts *f = p->facts;
	const struct config *c = f->cfg;
	const char *dev = f->upper_dev && f->upper_dev[0] ? f->upper_dev : NULL;

	sbuf_addf(sb, KEY, "writable");
	if (p->upper_failed) {
		sbuf_addf(sb, "%s; union.onfail=%s%s\n", p->fallback_why, config_onfail_name(c->onfail),
			  p->upper_kind == UPPER_TMPFS ? ": tmpfs (volatile)" : "");
	} else if (p->decided.failsafe) {
		sbuf_addf(sb, "tmpfs (volatile): failsafe; %s stays read-only at /run/unionroot/saved\n",
			  spec);
	} else if (p->upper_kind == UPPER_DEVICE && dev) {
		sbuf_addf(sb, "%s on %s (%s), persistent\n", spec, dev, plan_upper_fs(p));
	} else if (p->upper_kind == UPPER_DEVICE) {
		sbuf_addf(sb, "%s, persistent (the device is looked for at boot)\n", spec);
	} else if (f->tmpfs_errno) {
		sbuf_add(sb, "tmpfs (volatile) failed; none: a read-only root\n");
	} else if (p->upper_kind == UPPER_NONE) {
		sbuf_add(sb, "none (union.upper=none): a read-only root\n");
	} else {
		sbuf_addf(sb, "tmpfs (volatile)%s%s\n", c->size[0] ? ", size " : "", c->size);
	}
}

static void persist_line(struct sbuf *sb, const struct plan *p)
{
	const struct config *c = p->facts->cfg;

	if (p->persist_part)
		sbuf_addf(sb, KEY "partition %s, after the last on the read-only layer's disk: ",
			  "persistence", p->persist_part);
	else
		sbuf_addf(sb, KEY "%s: ", "persistence", p->persist_path);
	if (!p->persist_bytes)
		sbuf_add(sb, "a missing file is not made (union.persist.size= would make it)\n");
	else
		sbuf_addf(sb, "%s, %s as %s (union.persist.size)\n",
			  p->persist_make ? "missing: made now" : "made at boot when missing",
			  c->persist_size, p->persist_fs);
}

/* mkfs, fsck and cryptsetup: plan_tool_choose's order, and what ran (a fact). */
static void tools_line(struct sbuf *sb, const struct plan *p)
{
	const char *ran = p->facts->tools_ran;

	if (!(ran && ran[0]) && !p->persist_bytes && !p->unlock)
		return;
	sbuf_addf(sb, KEY "%s%s%s\n", "tools",
		  p->unlock ? "mkfs, fsck and cryptsetup" : "mkfs and fsck",
		  " from the initramfs, else the read-only image's own; ran: ", ran && ran[0] ? ran : "none");
}

/* A LUKS branch: how it is opened, and from which container once it is. */
static void unlock_line(struct sbuf *sb, const struct plan *p)
{
	const struct config *c = p->facts->cfg;
	const char *from = p->facts->unlocked_from;
	char key[PLAN_SPEC_TEXT_MAX];

	if (!p->unlock)
		return;
	sbuf_addf(sb, KEY "LUKS container%s%s, ", "unlock", from && from[0] ? " " : "", from ? from : "");
	if (c->upper_keyed && spec_format(&c->upper_key, key, sizeof(key)) == 0)
		sbuf_addf(sb, "with the key file %s\n", key);
	else
		sbuf_add(sb, "with a passphrase asked on the consoles (3 tries)\n");
}

static void backend_line(struct sbuf *sb, const struct plan *p)
{
	static const char names[][21] = { "overlay", "copy-up", "read-only", "none, the boot stops" };

	sbuf_addf(sb, KEY "%s: %s\n", "backend", names[p->backend], p->backend_why);
}

static void branch_lines(struct sbuf *sb, const struct plan *p)
{
	static const char policy[][9] = { "keep", "reset", "keeplist" };
	const struct plan_facts *f = p->facts;
	const struct config *c = f->cfg;
	const struct boot_decision *d = &p->decided;

	sbuf_addf(sb, KEY, "failsafe");
	if (!f->state_known)
		sbuf_add(sb, "unknown: the control state is read at boot\n");
	else if (d->failsafe)
		sbuf_addf(sb, "yes: %u boots without 'unionroot boot-ok' (union.maxfails=%d)\n",
			  f->saved.boots, c->maxfails);
	else if (c->maxfails)
		sbuf_addf(sb, "no: boot %u of union.maxfails=%d\n", d->next.boots, c->maxfails);
	else
		sbuf_add(sb, "no (union.maxfails=0: boots are not counted)\n");
	sbuf_addf(sb, KEY, "reset");
	if (p->reset_mode == RESET_NONE)
		sbuf_add(sb, d->failsafe ? "no: failsafe leaves the branch untouched\n" : "no\n");
	else
		sbuf_addf(sb, "%s: %s\n",
			  p->reset_mode == RESET_FACTORY_KEEPLIST ? "factory keeping the keep list" :
								    "factory",
			  p->reset_why);
	sbuf_addf(sb, KEY, "upgrade");
	if (d->failsafe)
		sbuf_add(sb, "not looked at in failsafe\n");
	else if (!f->state_known || !f->now.nlower)
		sbuf_add(sb, "unknown: the layers' identities are compared at boot\n");
	else if (d->upgraded)
		sbuf_addf(sb, "read-only layer changed; union.upgrade=%s\n", policy[c->upgrade]);
	else
		sbuf_add(sb, "no: unchanged since the last boot\n");
	/* only when OpenWrt's sysupgrade left one: the golden plans stay */
	if (p->sysupgrade_why)
		sbuf_addf(sb, KEY "sysupgrade.tgz %s\n", "sysupgrade", p->sysupgrade_why);
}

static void verity_lines(struct sbuf *sb, const struct plan *p)
{
	static const char fail[][47] = { "rescue shell (union.onfail=shell), else reboot",
					    "reboot", "power off (union.onfail=halt)" };

	if (p->verity_refused[0]) {
		sbuf_addf(sb, KEY "%s: every read-only layer is refused, never booted unverified: %s\n",
			  "verity", p->verity_refused, fail[p->verity_fail]);
		return;
	}
	if (!p->nverity)
		return; /* the golden plans without verity stay as they were */
	for (unsigned i = 0; i < p->nverity; i++) {
		const struct verity_arg *a = &p->verity[i];

		sbuf_addf(sb, KEY "layer %u: root hash %s, ", "verity", a->layer, a->root);
		if (PLAN_WITHOUT_VERITY(p->facts))
			sbuf_add(sb, "but this build has no dm-verity (VERITY=0)\n");
		else if (a->hashdev[0])
			sbuf_addf(sb, "hash tree on %s (waited for as a layer's device)", a->hashdev);
		else
			sbuf_add(sb, "hash tree appended to the image");
		if (PLAN_WITHOUT_VERITY(p->facts))
			continue;
		if (a->offset != VERITY_OFFSET_AUTO)
			sbuf_addf(sb, " at byte %llu", (unsigned long long)a->offset);
		else if (!a->hashdev[0])
			sbuf_add(sb, " after the file system's end");
		sbuf_add(sb, a->nosb ? ", geometry from the command line\n" : ", geometry from its superblock\n");
	}
	if (PLAN_WITHOUT_VERITY(p->facts) && p->verity_left_out) {
		sbuf_addf(sb, KEY "refused as a verity setup that fails: %s\n", "", fail[p->verity_fail]);
		return;
	}
	sbuf_addf(sb, KEY "verity mismatch at setup: %s; a bad block at read time: %s\n", "",
		  fail[p->verity_fail], p->facts->cfg->verity_onerror == VERITY_EIO ? "I/O error to the reader" :
		  p->facts->cfg->verity_onerror == VERITY_RESTART ? "restart (union.verity.onerror=restart)" :
		  "kernel panic (union.verity.onerror=panic)");
}

/* The steps, numbered, each with its argument, why, and what its failure does. */
static void step_lines(struct sbuf *sb, const struct plan *p)
{
	static const char onfail[][31] = { " (failing: the boot stops)", " (failing: verity's stop)",
					      " (failing: union.onfail)", " (failing: no writable branch)", "",
					      " (failing: union.onfail stops)" };

	for (unsigned i = 0; i < p->nrow; i++) {
		const struct plan_row *r = &p->row[i];

		sbuf_addf(sb, KEY "%2u %s", i ? "" : "steps", i + 1, plan_row_name(r->kind));
		if (r->kind == RUN_MOUNT_LOWER || r->kind == RUN_NBD || r->kind == RUN_HTTP || r->kind == RUN_REFUSE ||
		    r->kind == RUN_NFS)
			sbuf_addf(sb, " %u", r->arg);
		sbuf_addf(sb, "%s%s%s\n", r->why ? ": " : "", r->why ? r->why : "", onfail[r->onfail]);
	}
}

/* The network medium's lines: how the address comes, and each kind of
 * layer on it. */
static void net_lines(struct sbuf *sb, const struct plan *p)
{
	const struct config *c = p->facts->cfg;
	unsigned refused = p->net_refused[0] ? 1u << (p->net_refused_layer - 1) : 0;

	if (!p->lower_net && !p->upper_net)
		return;
	sbuf_addf(sb, KEY "%s%s\n", "network", PLAN_WITHOUT_NET(p->facts) ? "not in this build (NET=0): " : "",
		  c->ip[0] ? "ip= on the NIC it names, else the first with a link; nbd: through the kernel's nbd driver" :
			     "DHCP on the first NIC with a link; nbd: through the kernel's nbd driver");
	if (PLAN_WITHOUT_NET(p->facts))
		return;
	if (p->lower_http)
		sbuf_addf(sb, KEY "%s\n", "http", refused & p->lower_http ? p->net_refused :
			  p->http_insecure ? "fetched to RAM; a layer unverified, unauthenticated (union.insecure=1)" :
					     "fetched to RAM, verified by union.verity");
	if (p->lower_nfs)
		sbuf_addf(sb, KEY "%s\n", "nfs", refused & p->lower_nfs ? p->net_refused :
			  "the kernel's NFS client, NFSv4 over TCP (4.2, else 4.1, 4.0), read-only, hard; "
			  "a tree is the layer, an image file on it goes on a loop device");
}

/* The decisions, without the steps: the golden plans compare these. */
int plan_format_decisions(const struct plan *p, char *buf, size_t cap)
{
	const struct config *c = p->facts->cfg;
	char spec[PLAN_SPEC_TEXT_MAX];
	struct sbuf sb;

	plan_upper_text(c, spec, sizeof(spec));
	sbuf_init(&sb, buf, cap);
	sbuf_addf(&sb, KEY "%s\n", "layers", p->lowers[0] ? p->lowers : "none");
	verity_lines(&sb, p);
	if (PLAN_WITHOUT_FLASH(p->facts) && p->flash_asked)
		sbuf_addf(&sb, KEY "%s\n", "raw flash",
			  "not in this build (FLASH=0): mtd: and ubi: media are never found, union.ubi= is ignored");
	net_lines(&sb, p);
	upper_line(&sb, p, spec);
	if (p->persist_path || p->persist_part)
		persist_line(&sb, p);
	unlock_line(&sb, p);
	tools_line(&sb, p);
	backend_line(&sb, p);
	if (p->upper_kind == UPPER_DEVICE || p->decided.failsafe)
		branch_lines(&sb, p);
	sbuf_addf(&sb, KEY "%s\n", "session",
		  p->session ? "volatile (union.session=volatile): the saved branch is the top read-only layer, a tmpfs takes this boot's changes" :
		  c->session_volatile ? "no: union.session=volatile needs a persistent branch under overlayfs" :
					"no");
	sbuf_addf(&sb, KEY "%s\n", "on failure", config_onfail_name(c->onfail));
	sbuf_addf(&sb, KEY "%s\n", "drivers",
		  p->drivers == DRIVERS_ALL ?
			  "all the hardware present asks for (union.drivers=all)" :
			  "until every medium is found; the rest are left to the real init (union.drivers=all loads them)");
	return sbuf_done(&sb);
}

int plan_format(const struct plan *p, char *buf, size_t cap)
{
	struct sbuf sb;
	int rc = plan_format_decisions(p, buf, cap);
	size_t len = strlen(buf);

	if (rc < 0)
		return rc;
	sbuf_init(&sb, buf + len, cap - len);
	step_lines(&sb, p);
	return sbuf_done(&sb);
}
