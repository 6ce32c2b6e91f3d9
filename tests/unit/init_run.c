// SPDX-License-Identifier: MIT
/* The boot's loop (init/run.c) over the fake syscall edge: each fault a
 * step can meet, and the rows the plan then runs, one table row a case:
 * union.onfail's four answers, a branch that does not mount, an overlay
 * refused twice or missing, a volatile branch that fails, a refused
 * verity, a copy-up that fails, a layer that does not mount. */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <sys/reboot.h>
#include <sys/stat.h>

#include "../../init/boot.h"
#include "../../init/steps.h"
#include "fake_sys.h"
#include "init_log.h"
#include "unit.h"

struct fault {
	const char *call, *arg;
	unsigned nth;
	int err;
};

struct run_case {
	const char *name;
	const char *cmdline;           /* after the board's union.lower/upper */
	struct fault fault[2];
	const char *rows;              /* the steps run, in order, until the hand-off */
	int power;                     /* the reboot(2) command the boot stopped with, 0 none */
	const char *state;             /* the status's upper_state starts so, NULL: not looked at */
	const char *backend;           /* the root's backend, NULL: not looked at */
	const char *said;              /* a line of the log holds it */
};

#define LOWER "mount read-only layer,look for overlayfs,"
#define DEVICE "mount the writable branch,read its control state,"

static const struct run_case cases[] = {
	{ "a persistent branch", "", { { 0 } },
	  LOWER DEVICE "lay it out,save its control state,mount the overlay", 0,
	  "persistent on /dev/vdb (ext4)", "overlay", NULL },
	{ "a branch that does not mount takes union.onfail=tmpfs", "",
	  { { "mount", "/run/unionroot/rw", 1, -EIO } },
	  LOWER "mount the writable branch,union.onfail,mount a volatile branch,mount the overlay", 0,
	  "volatile: mounting writable branch /dev/vdb (ext4) failed: ", "overlay",
	  "booting with a volatile writable branch in RAM (union.onfail=tmpfs)" },
	{ "a device gone before its mount is a branch that does not mount", "",
	  { { "mount", "/run/unionroot/rw", 1, -ENXIO } },
	  LOWER "mount the writable branch,union.onfail,mount a volatile branch,mount the overlay", 0,
	  "volatile: mounting writable branch /dev/vdb (ext4) failed: ", NULL, NULL },
	{ "union.onfail=shell: the shell, then a volatile branch", "union.onfail=shell",
	  { { "mount", "/run/unionroot/rw", 1, -EIO } },
	  LOWER "mount the writable branch,union.onfail,mount a volatile branch,mount the overlay", 0,
	  "volatile: mounting writable branch", "overlay", "union.onfail=shell" },
	{ "union.onfail=reboot reboots", "union.onfail=reboot",
	  { { "mount", "/run/unionroot/rw", 1, -EIO } },
	  LOWER "mount the writable branch,union.onfail", RB_AUTOBOOT, NULL, NULL, "rebooting (union.onfail=reboot)" },
	{ "union.onfail=halt powers off", "union.onfail=halt",
	  { { "mount", "/run/unionroot/rw", 1, -EIO } },
	  LOWER "mount the writable branch,union.onfail", RB_POWER_OFF, NULL, NULL, "powering off (union.onfail=halt)" },
	{ "an overlay refused twice: work/ afresh, then union.onfail", "",
	  { { "mount", "/newroot", 1, -EINVAL }, { "mount", "/newroot", 1, -EINVAL } },
	  LOWER DEVICE "lay it out,save its control state,mount the overlay,renew work/,mount the overlay,"
	  "union.onfail,mount a volatile branch,mount the overlay", 0,
	  "volatile: overlay over writable branch /dev/vdb failed: ", "overlay",
	  "retrying with a fresh work/" },
	{ "no overlayfs at the mount: the read-only layer alone", "",
	  { { "mount", "/newroot", 1, -ENODEV } },
	  LOWER DEVICE "lay it out,save its control state,mount the overlay,mount the read-only root", 0,
	  "none: overlay failed: ", "bind (read-only)", "no overlayfs in this kernel" },
	{ "a volatile branch that fails: a read-only root", "union.upper=tmpfs",
	  { { "mount", "/run/unionroot/rw", 0, -ENOMEM } },
	  LOWER "mount a volatile branch,mount the read-only root", 0, NULL, "bind (read-only)",
	  "mounting a tmpfs writable branch failed: " },
	{ "a refused union.verity stops the boot before any mount", "union.verity=zz",
	  { { 0 } }, "verify the read-only layers", RB_AUTOBOOT, NULL, NULL,
	  "read-only layer 1 /dev/vda: verity refused it: union.verity cannot be honoured" },
	{ "a copy-up that fails leaves the read-only layer", "union.mode=copyup", { { 0 } },
	  LOWER DEVICE "take the reset over (copy-up),lay it out,save its control state,copy up,"
	  "mount the read-only root", 0, "persistent on /dev/vdb (ext4)", "bind (read-only)",
	  "copy-up: identity of read-only layer /dev/vda" },
	{ "a layer that does not mount stops the boot", "",
	  { { "mount", "/run/unionroot/lower/0", 1, -EINVAL } }, "mount read-only layer", RB_AUTOBOOT,
	  NULL, NULL, "mounting read-only layer 1 /dev/vda (squashfs) failed: " },
};

static struct boot b;
static jmp_buf stopped;
static int power_how;

static void on_power(int how)
{
	power_how = how;
	longjmp(stopped, 1);
}

/* Messages hold the host libc's strerror() words, not musl's: the cases
 * look at what comes before them. */

/* A boot whose media were found: /dev/vda (squashfs), /dev/vdb (ext4). */
static void boot_of(const struct run_case *c)
{
	char text[512], path[512];
	FILE *f;

	memset(&b, 0, sizeof(b));
	fake_sys_reset(unit_tmpdir());
	console_catch();
	snprintf(path, sizeof(path), "%s/proc", unit_tmpdir());
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/filesystems", unit_tmpdir());
	f = fopen(path, "w");
	if (f) {
		fputs("nodev\ttmpfs\nnodev\toverlay\n\text4\n", f);
		fclose(f);
	}
	config_defaults(&b.cfg);
	snprintf(text, sizeof(text), "union.lower=/dev/vda union.upper=/dev/vdb %s", c->cmdline);
	config_apply_text(&b.cfg, text, 1, NULL, NULL);
	b.nlower = 1;
	b.lower[0] = b.cfg.lower_spec[0];
	snprintf(b.lower_dev[0], sizeof(b.lower_dev[0]), "/dev/vda");
	snprintf(b.lower_type[0], sizeof(b.lower_type[0]), "squashfs");
	b.facts.cfg = &b.cfg;
	b.facts.upper_present = PRESENT_UNKNOWN;
	if (b.cfg.upper_is_spec) {
		snprintf(b.upper_dev, sizeof(b.upper_dev), "/dev/vdb");
		snprintf(b.upper_type, sizeof(b.upper_type), "ext4");
		b.facts.upper_dev = b.upper_dev;
		b.facts.upper_type = b.upper_type;
		b.facts.upper_present = PRESENT_YES;
	}
	b.facts.done = 1u << RUN_MODULES | 1u << RUN_WAIT_MEDIA; /* the media are found */
	b.rw = -1;
	b.upper_kind = UPPER_NONE;
	for (unsigned i = 0; i < 2 && c->fault[i].call; i++)
		fake_sys_fail(c->fault[i].call, c->fault[i].arg, c->fault[i].nth, c->fault[i].err);
	fake_power_hook = on_power;
	power_how = 0;
}

/* The steps the loop runs until the hand-off, or until the boot stops. */
static void run_boot(char *rows, size_t cap)
{
	static size_t len;

	len = 0;
	rows[0] = '\0';
	if (setjmp(stopped))
		return;
	for (unsigned n = 0; n < 40 && boot_next(&b) != RUN_HANDOFF; n++) {
		int kind = boot_next(&b);

		len += (size_t)snprintf(rows + len, cap - len, "%s%s", len ? "," : "", plan_row_name(kind));
		if (len >= cap)
			len = cap - 1;
		IGNORE(boot_turn(&b));
	}
}

static void every_fault_gives_its_rows(void)
{
	static char rows[2048];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct run_case *c = &cases[i];
		const char *said;

		boot_of(c);
		run_boot(rows, sizeof(rows));
		said = console_said();
		if (strcmp(rows, c->rows) != 0)
			unit_failf(__FILE__, __LINE__, "%s: ran %s, want %s\n%s", c->name, rows, c->rows, said);
		if (power_how != c->power)
			unit_failf(__FILE__, __LINE__, "%s: stopped with %d, want %d", c->name, power_how, c->power);
		if (c->state && strncmp(b.upper_state, c->state, strlen(c->state)) != 0)
			unit_failf(__FILE__, __LINE__, "%s: upper_state \"%s\", want \"%s...\"", c->name,
				   b.upper_state, c->state);
		if (c->backend && (!b.backend || strcmp(b.backend, c->backend) != 0))
			unit_failf(__FILE__, __LINE__, "%s: backend %s, want %s", c->name,
				   b.backend ? b.backend : "none", c->backend);
		if (c->said && !strstr(said, c->said))
			unit_failf(__FILE__, __LINE__, "%s: the log lacks \"%s\":\n%s", c->name, c->said, said);
		if (b.rw >= 0)
			unit_failf(__FILE__, __LINE__, "%s: the branch's fd %d is left open", c->name, b.rw);
	}
}

UNIT_SUITE(init_run, { "every fault of a step gives the plan's rows", every_fault_gives_its_rows });
