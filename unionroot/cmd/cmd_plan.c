// SPDX-License-Identifier: MIT
/* unionroot plan [CMDLINE]: which device present now would play which role
 * (superblocks read, nothing mounted), then the facts of now (board defaults
 * and CMDLINE or /proc/cmdline, the kernel's overlayfs, the mounted branch's
 * control state) through plan_build: the text the boot writes to
 * /run/unionroot/plan. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "branch/branch.h"
#include "branch/identity.h"
#include "branch/state.h"
#include "cmd/cli.h"
#include "cmd/out.h"
#include "conf/config.h"
#include "conf/spec.h"
#include "lib/lines.h"
#include "lib/record.h"
#include "lib/runstate.h"
#include "lib/sbuf.h"
#include "lib/strnum.h"
#include "lib/sys.h"
#include "media/blkdev.h"
#include "media/media.h"
#include "media/mtd.h"
#include "media/ubi.h"
#include "media/ubiblock.h"
#include "overlay/overlay.h"
#include "plan/plan.h"

static void report(const char *msg, void *ctx)
{
	out("error: %s: %s\n", (const char *)ctx, msg);
}

static struct blkdev_table devs;

/* The devices in kernel name order: the order every choice rule uses. */
static unsigned sorted(unsigned *idx)
{
	unsigned n = 0;

	for (unsigned i = 0; i < devs.n; i++) {
		unsigned k = n++;

		while (k > 0 && strcmp(devs.d[idx[k - 1]].name, devs.d[i].name) > 0) {
			idx[k] = idx[k - 1];
			k--;
		}
		idx[k] = i;
	}
	return n;
}

static void print_dev(const struct blkdev *d)
{
	char driver[64];

	out("%s (%s%s%s%s)", d->name, d->probed == 1 ? d->info.type : "unknown",
	       d->info.label[0] ? " LABEL=" : "", d->info.label, d->removable ? ", removable" : "");
	if (blkdev_driver(d->name, driver, sizeof(driver)) == 0)
		out(" on %s", driver);
}

static void print_devices(void)
{
	unsigned idx[BLKDEV_MAX], n;
	int rc = blkdev_refresh(&devs);

	if (rc < 0) {
		out("%-16s cannot list /sys/class/block: %s\n", "devices", strerror(-rc));
		return;
	}
	n = sorted(idx);
	out("%-16s", "devices");
	for (unsigned i = 0; i < n; i++) {
		out("%s", i ? ", " : " ");
		print_dev(&devs.d[idx[i]]);
	}
	out("%s\n", n ? "" : " none present now");
}

/* The value of key in this boot's status record, as stored (escaped); ""
 * when it has none or unionroot did not boot it. */
static const char *status_value(const char *key, char *val, size_t cap)
{
	static char text[RECORD_MAX + RECORD_TAIL_MAX];
	const char *p = text;
	struct record_line l;

	val[0] = '\0';
	if (sys_read_file(RUN_STATUS, text, sizeof(text)) < 0)
		return val;
	while (record_next(&p, &l))
		if (l.key_len == strlen(key) && memcmp(l.key, key, l.key_len) == 0 && l.val_len < cap) {
			memcpy(val, l.val, l.val_len);
			val[l.val_len] = '\0';
		}
	return val;
}

/* The drivers this boot left to the real init (union.drivers=boot), from
 * its status record: hardware present that no medium was found on. */
static void print_left(void)
{
	static char left[512];

	status_value("drivers_left", left, sizeof(left));

	if (left[0])
		out("%-16s %s (this boot)\n", "drivers left", left);
}

/* mtd:NAME is /dev/mtdblockN, ubi:VOLUME a UBI volume (its ubiblock device
 * when it holds a squashfs), found as the boot finds them; an mtdblock without a superblock is erased flash or jffs2,
 * which the boot mounts as jffs2. 1 found (dev DEVNODE_MAX, type FSTYPE_MAX
 * bytes), else 0. */
static int find_flash(const struct spec *s, char *dev, char *type)
{
	static char text[4096];
	struct mtd_part part;
	char vname[DEVNODE_MAX];
	int vdev, vol;

	if (s->kind == SPEC_UBI) {
		if (ubi_find(s->value, 0, &vdev, &vol) < 0 ||
		    strfmt(vname, sizeof(vname), "ubi%d_%d", vdev, vol) < 0)
			return 0;
		IGNORE(strcopy(dev, DEVNODE_MAX, vname));  /* same size */
		IGNORE(strcopy(type, FSTYPE_MAX, "ubifs")); /* fits */
		/* a squashfs in the volume is mounted through its ubiblock */
		if (ubiblock_probe(vname, type, FSTYPE_MAX) != UBI_HOLDS_BLOCKFS ||
		    ubiblock_path(vname, dev, DEVNODE_MAX) < 0)
			IGNORE(strcopy(type, FSTYPE_MAX, "ubifs")); /* fits */
		return 1;
	}
	if (sys_read_file("/proc/mtd", text, sizeof(text)) < 0 || mtd_find(text, s->value, &part) < 0 ||
	    strfmt(dev, DEVNODE_MAX, "/dev/mtdblock%d", part.index) < 0)
		return 0;
	IGNORE(strcopy(type, FSTYPE_MAX, "jffs2")); /* fits */
	for (unsigned i = 0; i < devs.n; i++)
		if (strcmp(devs.d[i].path, dev) == 0 && devs.d[i].probed == 1)
			IGNORE(strcopy(type, FSTYPE_MAX, devs.d[i].info.type)); /* probe types are short */
	return 1;
}

/* The device s names now, by the boot's rule (media_choose): 1 with dev
 * and type filled, else 0; a removable one awaited in *waiting. */
static int find_dev(const struct spec *s, const struct config *c, int upper, char *dev, char *type,
		    unsigned *count, const struct blkdev **waiting)
{
	struct media_choice ch;
	const struct blkdev *d;

	*count = 1;
	*waiting = NULL;
	/* a build without raw flash (FLASH=0) never finds it, and links none */
	if (s->kind == SPEC_MTD || s->kind == SPEC_UBI)
		return !PLAN_NO_FLASH && find_flash(s, dev, type);
	media_choose(&devs, s, upper, media_asks_removable(c->scan, s, 0), 0, &ch);
	*count = ch.matched;
	if (ch.verdict != MEDIA_TAKE)
		*waiting = ch.d;
	d = ch.verdict == MEDIA_TAKE ? ch.d : NULL;
	if (!d)
		return 0;
	IGNORE(strcopy(dev, DEVNODE_MAX, d->path)); /* same size */
	IGNORE(strcopy(type, FSTYPE_MAX, d->probed == 1 ? d->info.type : "")); /* probe types are short */
	return 1;
}

/* 1 when the boot reads the medium at path through a loop device over the
 * whole disk (media_reach) */
static int through_loop(const char *path)
{
	const struct blkdev *use;

	for (unsigned i = 0; i < devs.n; i++)
		if (strcmp(devs.d[i].path, path) == 0)
			return media_reach(&devs, &devs.d[i], &use) == REACH_LOOP;
	return 0;
}

/* Other live systems' parameters, a line each, as the boot logs them. */
static void print_peers(const char *said)
{
	struct line l;

	for (const char *p = said; line_next(&p, &l);)
		out("%-16s %.*s\n", l.s == said ? "peer parameters" : "", (int)l.len, l.s);
}

/* The device s names now, as the boot's rule (media_choose) finds it: the
 * facts only; what the boot does with them is the plan's, printed below. */
static void print_resolution(const struct spec *s, const struct config *c, int upper)
{
	char dev[DEVNODE_MAX], type[FSTYPE_MAX];
	unsigned count, idx[BLKDEV_MAX], n;
	const struct blkdev *waiting;

	if (s->kind == SPEC_AUTO) {
		n = media_order(&devs, idx);
		/* the boot opens the SPEC's chain where it names one (open_chain) */
		out("%-16s candidates for %s, in order:", "", s->npaths ? s->paths[0] : c->image);
		count = 0;
		for (unsigned i = 0; i < n; i++) {
			const struct blkdev *d = &devs.d[idx[i]], *use;
			int how = media_reach(&devs, d, &use);

			/* a whole disk its partition at sector 0 shows: that partition's turn */
			if (!media_scan_candidate(d, c->scan) || how == REACH_PARTITION)
				continue;
			out("%s", count++ ? ", " : " ");
			print_dev(d);
			out("%s", how == REACH_LOOP ? " through a read-only loop device" : "");
		}
		out("%s\n", count ? "" : " none present now");
		return;
	}
	if (!find_dev(s, c, upper, dev, type, &count, &waiting)) {
		if (waiting)
			out("%-16s only removable %s matches now\n", "", waiting->path);
		else
			out("%-16s not present now\n", "");
		return;
	}
	out("%-16s %s (%s)%s%s\n", "", dev, type[0] ? type : "unknown type",
	    count > 1 ? ", of several that match" : "",
	    !upper && media_opens(s, type, c->toram) && through_loop(dev) ?
	    ", through a read-only loop device" : "");
	if (s->kind == SPEC_UBI && strncmp(dev, "/dev/ubiblock", 13) == 0)
		out("%-16s the %s in UBI volume ubi%s, through its ubiblock device (made at boot)\n",
		    "", type, dev + 13);
}

static void print_spec(const char *role, const struct spec *s, const struct config *c, int upper)
{
	char canon[SPEC_VALUE_MAX + SPEC_PATHS_MAX * SPEC_PATH_MAX];

	if (spec_format(s, canon, sizeof(canon)) < 0)
		IGNORE(strcopy(canon, sizeof(canon), "(too long to show)"));
	out("%-16s %s (by %s", role, canon, spec_kind_name(s->kind));
	for (unsigned i = 0; i < s->npaths; i++)
		out(", image %s", s->paths[i]);
	if (s->deadline >= 0)
		out(", wait %d s", s->deadline);
	out(")\n");
	print_resolution(s, c, upper);
}

/* The kernel's overlayfs now, or a module for it in the root (the image):
 * the boot loads either. */
static void kernel_facts(struct plan_facts *f)
{
	char path[256];
	struct stat st;

	f->have_overlay = overlay_in_kernel();
	for (unsigned i = 0; overlay_module_path(i, path, sizeof(path)) >= 0; i++)
		if (stat(path, &st) == 0)
			f->image_overlay = 1;
}

/* The branch mounted now when it is the device the plan names (at rw, or
 * read-only at saved in a failsafe or kiosk boot): its control state and
 * pending request. A UBI volume is not matched: its state stays unknown. */
static void branch_facts(struct plan_facts *f, const char *dev)
{
	static const char dirs[][sizeof(SAVEDIR)] = { SAVEDIR, RWDIR };
	struct stat d, m;

	if (stat(dev, &d) < 0 || !S_ISBLK(d.st_mode))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		int rw;

		if (stat(dirs[i], &m) < 0 || m.st_dev != d.st_rdev)
			continue;
		rw = open(dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (rw < 0)
			return;
		f->state_known = 1;
		f->state_rc = state_load(rw, &f->saved);
		f->reset_request = branch_reset_pending(rw);
		close(rw);
		return;
	}
}

/* The read-only layers' identities now, as the boot reads them; unknown
 * (nlower 0) when a layer is an image file, auto, or not present. */
static void identity_facts(struct plan_facts *f, const struct config *c)
{
	const struct blkdev *waiting;
	char dev[DEVNODE_MAX], type[FSTYPE_MAX];
	unsigned count, n;
	const struct spec *s = config_layers(c, &n);

	state_clear(&f->now);
	for (unsigned i = 0; i < n && i < STATE_LOWER_MAX; i++) {
		if (s[i].npaths || s[i].kind == SPEC_AUTO || !find_dev(&s[i], c, 0, dev, type, &count, &waiting) ||
		    identity_path(dev, f->now.lower[i], sizeof(f->now.lower[i])) < 0) {
			state_clear(&f->now);
			return;
		}
		f->now.nlower = i + 1;
	}
}

/* The facts of now through the boot's own decision: the same text. */
static int print_plan(const struct config *c)
{
	struct plan_facts f = { .cfg = c, .done = PLAN_GATHERED, .no_copyup = PLAN_NO_COPYUP, .no_verity = PLAN_NO_VERITY,
				.no_flash = PLAN_NO_FLASH, .no_net = PLAN_NO_NET };
	struct plan p;
	static char text[PLAN_TEXT_MAX];
	static char dev[DEVNODE_MAX], type[FSTYPE_MAX], tools[192], mode[224];
	const struct blkdev *waiting;
	unsigned count;

	kernel_facts(&f);
	f.tools_ran = status_value("tools", tools, sizeof(tools));
	/* booted by mount-root: its plan ends leaving the union to the host */
	if (strncmp(status_value("mode", mode, sizeof(mode)), "mount-root /", 12) == 0)
		f.mount_at = mode + 11;
	f.upper_dev = dev;
	f.upper_type = type;
	if (c->upper_is_spec && c->upper_spec.kind == SPEC_NBD) {
		f.upper_present = PRESENT_UNKNOWN; /* an export is connected at boot, never looked for here */
	} else if (c->upper_is_spec) {
		f.upper_present = find_dev(&c->upper_spec, c, 1, dev, type, &count, &waiting) ? PRESENT_YES :
											      PRESENT_NO;
		/* a missing UBI volume is made at boot from union.ubi='s free space */
		if (f.upper_present == PRESENT_NO && c->upper_spec.kind == SPEC_UBI && c->ubi[0])
			f.upper_present = PRESENT_UNKNOWN;
		if (f.upper_present == PRESENT_YES)
			branch_facts(&f, dev);
	}
	plan_build(&f, &p);
	if (p.upper_kind == UPPER_DEVICE && f.state_known)
		identity_facts(&f, c);
	plan_build(&f, &p);
	if (plan_format(&p, text, sizeof(text)) < 0) {
		out_err("unionroot plan: the plan is longer than %zu bytes\n", sizeof(text));
		return 1;
	}
	out("--- plan (the boot writes the same to %s)\n%s", RUN_PLAN, text);
	return 0;
}

int cmd_plan(int argc, char **argv)
{
	static char conf[4097], cmdline[4097];
	static const char conf_paths[][sizeof(RUN_CONF)] = { RUN_CONF, "/etc/unionroot.conf" };
	struct config c;
	struct sbuf sb;

	config_defaults(&c);
	for (size_t i = 0; i < ARRAY_SIZE(conf_paths); i++) {
		if (sys_read_file(conf_paths[i], conf, sizeof(conf)) >= 0) {
			out("board defaults   %s\n", conf_paths[i]);
			config_apply_text(&c, conf, 1, report, (void *)conf_paths[i]);
			break;
		}
	}
	if (argc > 1) {
		sbuf_init(&sb, cmdline, sizeof(cmdline));
		for (int i = 1; i < argc; i++)
			sbuf_addf(&sb, "%s%s", i > 1 ? " " : "", argv[i]);
		if (sbuf_done(&sb) < 0) {
			out_err("unionroot plan: the command line is longer than 4096 bytes\n");
			return 2;
		}
	} else if (sys_read_file("/proc/cmdline", cmdline, sizeof(cmdline)) < 0) {
		cmdline[0] = '\0';
	}
	config_apply_text(&c, cmdline, 0, report, (void *)"command line");
	print_peers(c.peer_said);
	print_devices();
	print_left();

	{
		unsigned n;
		const struct spec *layers = config_layers(&c, &n);

		for (unsigned i = 0; i < n; i++) {
			char role[32];

			IGNORE(strfmt(role, sizeof(role), "read-only %u", i + 1)); /* fits */
			print_spec(role, &layers[i], &c, 0);
		}
		if (!n)
			out("%-16s none configured: the boot would stop here\n", "read-only");
	}
	if (c.upper_is_spec)
		print_spec("writable", &c.upper_spec, &c, 1);
	{
		char opts[512];
		const char *lowers[] = { RUN_LOWER0 };

		if (overlay_options(opts, sizeof(opts), lowers, 1, RW_UPPER,
				    RW_WORK) == 0)
			out("%-16s %s\n", "overlay options", opts);
	}
	if (config_wait(&c) == CFG_WAIT_FOREVER)
		out("%-16s forever (rootwait)\n", "device wait");
	else
		out("%-16s %d s\n", "device wait", config_wait(&c));
	{
		char inits[64];

		IGNORE(config_inits_text(inits, sizeof(inits))); /* fits */
		out("%-16s %s\n", "init", c.init[0] ? c.init : inits);
	}
	return print_plan(&c);
}
