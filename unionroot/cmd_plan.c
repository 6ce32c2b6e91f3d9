// SPDX-License-Identifier: MIT
/* unionroot plan [CMDLINE]: the configuration a boot would use (board
 * defaults, then CMDLINE or /proc/cmdline), with every rejected value named. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "overlay.h"
#include "sbuf.h"
#include "spec.h"
#include "sys.h"

static void report(const char *msg, void *ctx)
{
	printf("error: %s: %s\n", (const char *)ctx, msg);
}

static void print_spec(const char *role, const char *text)
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

	if (c.lower[0]) {
		char *p = list;

		IGNORE(strcopy(list, sizeof(list), c.lower)); /* same size as c.lower */
		for (unsigned n = 1; p; n++) {
			char *comma = strchr(p, ',');
			char role[32];

			if (comma)
				*comma = '\0';
			IGNORE(strfmt(role, sizeof(role), "read-only %u", n)); /* fits */
			print_spec(role, p);
			p = comma ? comma + 1 : NULL;
		}
	} else if (c.root[0]) {
		print_spec("read-only 1", c.root);
	} else {
		printf("%-16s none configured: the boot would stop here\n", "read-only");
	}
	if (!c.upper[0] || strcmp(c.upper, "tmpfs") == 0)
		printf("%-16s tmpfs (volatile)%s%s\n", "writable", c.size[0] ? ", size " : "", c.size);
	else if (strcmp(c.upper, "none") == 0)
		printf("%-16s none (read-only root)\n", "writable");
	else
		print_spec("writable", c.upper);
	printf("%-16s %s\n", "mode", config_mode_name(c.mode));
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
