// SPDX-License-Identifier: MIT
/* unionroot plan [CMDLINE]: the configuration a boot would use (board
 * defaults, then CMDLINE or /proc/cmdline), with every rejected value named,
 * and which block device present now would play which role. It reads
 * superblocks but mounts nothing: image paths inside media are named, not
 * opened. */
#include <stdio.h>
#include <string.h>

#include "blkdev.h"
#include "cli.h"
#include "config.h"
#include "media.h"
#include "overlay.h"
#include "sbuf.h"
#include "spec.h"
#include "sys.h"

static void report(const char *msg, void *ctx)
{
	printf("error: %s: %s\n", (const char *)ctx, msg);
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

	printf("%s (%s%s%s%s)", d->name, d->probed == 1 ? d->info.type : "unknown",
	       d->info.label[0] ? " LABEL=" : "", d->info.label, d->removable ? ", removable" : "");
	if (blkdev_driver(d->name, driver, sizeof(driver)) == 0)
		printf(" on %s", driver);
}

static void print_devices(void)
{
	unsigned idx[BLKDEV_MAX], n;
	int rc = blkdev_refresh(&devs);

	if (rc < 0) {
		printf("%-16s cannot list /sys/class/block: %s\n", "devices", strerror(-rc));
		return;
	}
	n = sorted(idx);
	printf("%-16s", "devices");
	for (unsigned i = 0; i < n; i++) {
		printf("%s", i ? ", " : " ");
		print_dev(&devs.d[idx[i]]);
	}
	printf("%s\n", n ? "" : " none present now");
}

/* What the boot would do with s on the devices present now. */
static void print_resolution(const struct spec *s, const struct config *c, int upper)
{
	const struct blkdev *d;
	unsigned count, idx[BLKDEV_MAX], n;
	int wait = s->deadline >= 0 ? s->deadline : config_wait(c);

	if (s->kind == SPEC_AUTO) {
		n = sorted(idx);
		printf("%-16s scans for %s, in this order:", "", c->image);
		count = 0;
		for (unsigned i = 0; i < n; i++) {
			if (!media_scan_candidate(&devs.d[idx[i]], c->scan))
				continue;
			printf("%s", count++ ? ", " : " ");
			print_dev(&devs.d[idx[i]]);
		}
		printf("%s\n", count ? "; the first that holds it wins" : " no candidate present now");
	} else {
		d = blkdev_find(&devs, s, &count);
		if (!d) {
			if (wait == CFG_WAIT_FOREVER)
				printf("%-16s not present now; the boot waits for it (rootwait)\n", "");
			else
				printf("%-16s not present now; the boot waits up to %d s, then %s\n", "", wait,
				       upper ? "union.onfail" : "stops");
			return;
		}
		printf("%-16s %s%s (%s%s%s)\n", "", count > 1 ? "several match; " : "", d->path,
		       d->probed == 1 ? d->info.type : "unknown type", d->info.label[0] ? ", LABEL=" : "",
		       d->info.label);
		if (upper)
			return;
		for (unsigned i = 0; i < s->npaths; i++)
			printf("%-16s then image %s inside it, on a read-only loop device\n", "", s->paths[i]);
		if (!s->npaths && d->probed == 1 && media_holds_images(d->info.type))
			printf("%-16s then image %s inside it (union.image), on a read-only loop device\n", "",
			       c->image);
	}
	if (c->toram && !upper)
		printf("%-16s copied to RAM first (union.toram); the medium can then be removed\n", "");
}

static void print_spec(const char *role, const char *text, const struct config *c, int upper)
{
	struct spec s;
	char why[CFG_ERR_MAX], canon[SPEC_VALUE_MAX + SPEC_PATHS_MAX * SPEC_PATH_MAX];

	if (spec_parse(text, &s, why, sizeof(why)) < 0) {
		printf("%-16s %s: %s\n", role, text, why);
		return;
	}
	if (spec_format(&s, canon, sizeof(canon)) < 0)
		IGNORE(strcopy(canon, sizeof(canon), "(too long to show)"));
	printf("%-16s %s (by %s", role, canon, spec_kind_name(s.kind));
	for (unsigned i = 0; i < s.npaths; i++)
		printf(", image %s", s.paths[i]);
	if (s.deadline >= 0)
		printf(", wait %d s", s.deadline);
	printf(")\n");
	print_resolution(&s, c, upper);
}

int cmd_plan(int argc, char **argv)
{
	static char conf[4097], cmdline[4097], list[1024];
	static const char *const conf_paths[] = { RUNTIME_DIR "/unionroot.conf", "/etc/unionroot.conf" };
	struct config c;
	struct sbuf sb;

	config_defaults(&c);
	for (size_t i = 0; i < ARRAY_SIZE(conf_paths); i++) {
		if (sys_read_file(conf_paths[i], conf, sizeof(conf)) >= 0) {
			printf("board defaults   %s\n", conf_paths[i]);
			config_apply_text(&c, conf, 1, report, (void *)conf_paths[i]);
			break;
		}
	}
	if (argc > 1) {
		sbuf_init(&sb, cmdline, sizeof(cmdline));
		for (int i = 1; i < argc; i++)
			sbuf_addf(&sb, "%s%s", i > 1 ? " " : "", argv[i]);
		if (sbuf_done(&sb) < 0) {
			fprintf(stderr, "unionroot plan: the command line is longer than 4096 bytes\n");
			return 2;
		}
	} else if (sys_read_file("/proc/cmdline", cmdline, sizeof(cmdline)) < 0) {
		cmdline[0] = '\0';
	}
	config_apply_text(&c, cmdline, 0, report, (void *)"command line");
	print_devices();

	if (c.lower[0]) {
		char *p = list;

		IGNORE(strcopy(list, sizeof(list), c.lower)); /* same size as c.lower */
		for (unsigned n = 1; p; n++) {
			char *comma = strchr(p, ',');
			char role[32];

			if (comma)
				*comma = '\0';
			IGNORE(strfmt(role, sizeof(role), "read-only %u", n)); /* fits */
			print_spec(role, p, &c, 0);
			p = comma ? comma + 1 : NULL;
		}
	} else if (c.root[0]) {
		print_spec("read-only 1", c.root, &c, 0);
	} else {
		printf("%-16s none configured: the boot would stop here\n", "read-only");
	}
	if (!c.upper[0] || strcmp(c.upper, "tmpfs") == 0)
		printf("%-16s tmpfs (volatile)%s%s\n", "writable", c.size[0] ? ", size " : "", c.size);
	else if (strcmp(c.upper, "none") == 0)
		printf("%-16s none (read-only root)\n", "writable");
	else
		print_spec("writable", c.upper, &c, 1);
	printf("%-16s %s\n", "mode", config_mode_name(c.mode));
	{
		static char fs[4096];
		int have = sys_read_file("/proc/filesystems", fs, sizeof(fs)) >= 0 &&
			   strstr(fs, "\toverlay\n") != NULL;

		printf("%-16s overlay%s\n", "backend",
		       have ? " (this kernel has overlayfs now)"
			    : " (module overlay at boot; without it a read-only bind of the top layer)");
	}
	{
		char opts[512];
		const char *lowers[] = { "/run/unionroot/lower/0" };

		if (overlay_options(opts, sizeof(opts), lowers, 1, "/run/unionroot/rw/upper",
				    "/run/unionroot/rw/work") == 0)
			printf("%-16s %s\n", "overlay options", opts);
	}
	if (config_wait(&c) == CFG_WAIT_FOREVER)
		printf("%-16s forever (rootwait)\n", "device wait");
	else
		printf("%-16s %d s\n", "device wait", config_wait(&c));
	printf("%-16s %s\n", "on failure", config_onfail_name(c.onfail));
	printf("%-16s %s\n", "reset", c.reset ? "on this boot" : "no");
	printf("%-16s %s\n", "init", c.init[0] ? c.init : "/sbin/init, /etc/init, /bin/init, /bin/sh");
	return 0;
}
