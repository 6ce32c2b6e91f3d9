// SPDX-License-Identifier: MIT
/* Step 2: board defaults from /etc/unionroot.conf, then /proc/cmdline, which
 * wins; then the SPECs they name, parsed once for the later steps. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "conf/cmdline.h"
#include "branch/crashpoint.h"
#include "lib/lines.h"
#include "lib/log.h"
#include "branch/reset.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"

static void report(const char *msg, void *ctx)
{
	log_err("%s: %s", (const char *)ctx, msg);
}

static void load(struct boot *b, const char *path, char *buf, size_t cap, int comments)
{
	ssize_t n = sys_read_file(path, buf, cap);

	if (n == -ENOENT)
		return;
	if (n < 0) {
		log_err("reading %s failed: %s; using built-in defaults for it", path,
			n == -EFBIG ? "longer than 4096 bytes" : strerror((int)-n));
		buf[0] = '\0';
		return;
	}
	config_apply_text(&b->cfg, buf, comments, report, (void *)path);
}

/* /proc/cmdline into cmdline_raw; one too long for it is kept up to its
 * last whole word, said in one line, and a union.verity past that point
 * fails closed (the layers are refused, never booted unverified). */
static void read_cmdline(struct boot *b)
{
	struct cmdline_cut cut = { 0, 0, 0 };
	int fd = sys_open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	int rc = fd < 0 ? fd : cmdline_read(fd, b->cmdline_raw, sizeof(b->cmdline_raw), &cut);

	if (fd >= 0)
		sys_close(fd);
	if (rc < 0) {
		log_err("reading /proc/cmdline failed: %s; using the board's defaults", strerror(-rc));
		b->cmdline_raw[0] = '\0';
		return;
	}
	if (!cut.cut)
		return;
	log_err("the kernel command line is longer than %d bytes; reading its first %zu, up to its last whole word%s",
		CMDLINE_MAX, cut.kept, cut.verity ? "; union.verity lies past them: refusing the read-only layers" : "");
	if (cut.verity)
		IGNORE(strcopy(b->cfg.verity_bad, sizeof(b->cfg.verity_bad),
			       "it lies past the part of the kernel command line read")); /* fits */
}

void configure(struct boot *b)
{
	struct config *c = &b->cfg;
	struct line l;

	config_defaults(c);
	load(b, "/etc/unionroot.conf", b->conf, sizeof(b->conf), 1);
	read_cmdline(b);
	memcpy(b->cmdline, b->cmdline_raw, sizeof(b->cmdline));
	config_apply_text(c, b->cmdline, 0, report, (void *)"kernel command line");
	log_set_quiet(c->quiet);
	log_set_debug(c->debug);
	/* other live systems' parameters: what each means here, a line each */
	for (const char *p = c->peer_said; line_next(&p, &l);)
		log_note("%.*s", (int)l.len, l.s);

	/* the layers' SPECs as config parsed them (noinitramfs may put the
	 * running root in their place) */
	{
		const struct spec *layers = config_layers(c, &b->nlower);

		memcpy(b->lower, layers, b->nlower * sizeof(*layers));
	}
	/* the facts the plan starts from */
	b->facts.cfg = c;
	b->facts.upper_present = PRESENT_UNKNOWN;
	b->facts.no_copyup = PLAN_NO_COPYUP;
	b->facts.no_verity = PLAN_NO_VERITY;
	b->facts.no_flash = PLAN_NO_FLASH;
	b->facts.no_net = PLAN_NO_NET;
	if (c->crashafter[0]) {
		int rc = crashpoint_arm(c->crashafter, 1);

		if (rc == -EPERM)
			log_err("ignoring union.test.crashafter=\"%s\": only test builds honour it; booting normally",
				c->crashafter);
		else if (rc < 0)
			log_err("ignoring union.test.crashafter=\"%s\": not one of \"%s\"; booting normally",
				c->crashafter, CRASH_STEPS);
	}
	if (c->stall && crashpoint_stall_arm((unsigned)c->stall) < 0)
		log_err("ignoring union.test.stall=%d: only test builds honour it; booting normally",
			c->stall);
	log_info("configured: %u read-only layer(s), writable branch %s, deadline %ds",
		 b->nlower, c->upper[0] ? c->upper : "tmpfs", config_wait(c));
}
