// SPDX-License-Identifier: MIT
/* Configuration: defaults, board file then command line, and every bad
 * value named and replaced by its default. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "conf/config.h"
#include "config_boot.h"
#include "unit.h"

struct errs {
	unsigned n;
	char last[CFG_ERR_MAX];
};

static void on_err(const char *msg, void *ctx)
{
	struct errs *e = ctx;

	e->n++;
	snprintf(e->last, sizeof(e->last), "%s", msg);
}

static void apply(struct config *c, const char *text, struct errs *e)
{
	char buf[8192];

	snprintf(buf, sizeof(buf), "%s", text);
	config_apply_text(c, buf, 1, on_err, e);
}

static void defaults_are_documented_ones(void)
{
	struct config c;

	config_defaults(&c);
	CHECK_INT(c.wait, 10);
	CHECK_INT(c.mode, MODE_AUTO);
	CHECK_INT(c.onfail, ONFAIL_TMPFS);
	CHECK_INT(c.fsck, 1);
	CHECK_INT(c.warnfull, 90);
	CHECK_STR(c.upper, "");
	CHECK_INT(config_wait(&c), 10);
}

static void the_command_line_wins_over_the_board(void)
{
	struct config c;
	struct errs e = { 0 };

	config_defaults(&c);
	apply(&c, "# board\nunion.upper=LABEL=data\nunion.wait=3\n", &e);
	apply(&c, "union.wait=7 union.upper=tmpfs", &e);
	CHECK_INT(e.n, 0);
	CHECK_INT(c.wait, 7);
	CHECK_STR(c.upper, "tmpfs");
}

static void every_parameter_of_the_spec_is_accepted(void)
{
	static const char *const good[] = {
		"union.lower=/dev/vda,LABEL=base", "union.image=/live/filesystem.squashfs",
		"union.upper=LABEL=data@30", "union.upper=none", "union.upperfs=ext4",
		"union.upperflags=commit=30,data=ordered", "union.mode=copyup", "union.wait=0",
		"union.reset", "union.reset=keep", "union.onfail=halt", "union.break=modules,switch",
		"union.toram", "union.upgrade=keeplist", "union.maxfails=3", "union.session=volatile",
		"union.size=50%", "union.size=256M", "union.scan=removable", "union.format=f2fs",
		"union.drivers=all", "union.drivers=boot",
		"union.removable=nodev", "union.removable=none", "union.removable=nodev,nosuid",
		"union.ubi=mtd:ubi", "union.fsck=0", "union.warnfull=80", "union.init=/bin/sh",
		"union.debug", "root=PARTUUID=0a1b2c3d-01", "rootfstype=squashfs", "rootflags=noatime",
		"rootwait", "rootdelay=5", "init=/sbin/init", "ro", "rw", "quiet",
		"union.test.stall=26", "union.insecure=1",
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct config c;
		struct errs e = { 0 };

		config_defaults(&c);
		apply(&c, good[i], &e);
		if (e.n) {
			unit_failf(__FILE__, __LINE__, "%s rejected: %s", good[i], e.last);
			return;
		}
	}
}

static void bad_values_are_named_and_defaults_kept(void)
{
	static const struct {
		const char *text;
		const char *needle;
	} bad[] = {
		{ "union.wait=abc", "union.wait" },   { "union.wait=-1", "union.wait" },
		{ "union.wait=99999", "out of range" }, { "union.mode=fast", "union.mode" },
		{ "union.upper=", "union.upper" },     { "union.upper=LABEL=", "names no device" },
		{ "union.lower=foo", "not a SPEC" },    { "union.onfail=panic", "union.onfail" },
		{ "union.size=lots", "union.size" },   { "union.format=ntfs", "union.format" },
		{ "union.ubi=LABEL=x", "mtd:NAME" },    { "union.init=sbin/init", "absolute" },
		{ "union.nosuch=1", "unknown parameter" }, { "union.upperfs=Ext4!", "type" },
		{ "union.break=later", "union.break" }, { "union.maxfails=1001", "out of range" },
		{ "union.drivers=some", "union.drivers" },
		{ "union.upper=UUID=zz-top", "hex" },   { "union.lower=/dev/../etc/x", "leaves /dev" },
		{ "union.lower=LABEL=x:/a/../../b", ".." },
		{ "union.removable=nosuid", "union.removable" },
		{ "union.test.stall=601", "out of range" },
		{ "union.persist.size=15M", "at least 16M" },
		{ "union.persist.size=1P", "like 512M" }, { "union.persist.size=50%", "like 512M" },
		{ "union.persist.size=99999999999999999999", "like 512M" },
		{ "union.persist.size=M", "like 512M" }, { "union.persist.size=17T", "like 512M" },
		{ "union.upper=LABEL=p:key=LABEL=KEYS", "key= names no file" },
		{ "union.upper=LABEL=p:key=", "empty SPEC" },
		{ "union.upper=LABEL=p:key=LABEL=K:/../k", ".." },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct config c, d;
		struct errs e = { 0 };

		config_defaults(&c);
		config_defaults(&d);
		apply(&c, bad[i].text, &e);
		if (e.n != 1 || !strstr(e.last, bad[i].needle)) {
			unit_failf(__FILE__, __LINE__, "%s: %u errors, last \"%s\"", bad[i].text, e.n,
				   e.last);
			return;
		}
		if (memcmp(&c, &d, sizeof(c)) != 0) {
			unit_failf(__FILE__, __LINE__, "%s changed the configuration", bad[i].text);
			return;
		}
	}
}

static void an_overlong_value_is_cut_in_the_message(void)
{
	char text[5000];
	struct config c;
	struct errs e = { 0 };

	memcpy(text, "union.upper=LABEL=", 18);
	memset(text + 18, 'x', 4096);
	text[18 + 4096] = '\0';
	config_defaults(&c);
	apply(&c, text, &e);
	CHECK_INT(e.n, 1);
	CHECK(strstr(e.last, "too long") != NULL);
	CHECK(strstr(e.last, "4102 bytes") != NULL);
	CHECK(strlen(e.last) < 200);
	CHECK_STR(c.upper, "");
}

static void control_bytes_are_escaped_in_messages(void)
{
	struct config c;
	struct errs e = { 0 };

	config_defaults(&c);
	apply(&c, "union.mode=\x01\xff", &e);
	CHECK_INT(e.n, 1);
	CHECK(strstr(e.last, "\\x01\\xff") != NULL);
}

static void repeated_keys_take_the_last_value(void)
{
	struct config c;
	struct errs e = { 0 };

	config_defaults(&c);
	apply(&c, "union.wait=1 union.wait=2 union.wait=bad", &e);
	CHECK_INT(c.wait, 2);
	CHECK_INT(e.n, 1);
}

/* The kernel's meanings: rootdelay=N is a pause before the devices are
 * looked for (init/devwait.c), not a deadline; rootwait means no deadline. */
static void rootdelay_is_a_pause_and_rootwait_no_deadline(void)
{
	struct config c;
	struct errs e = { 0 };

	config_defaults(&c);
	CHECK_INT(c.rootdelay, -1);
	apply(&c, "union.wait=5 rootdelay=30", &e);
	CHECK_INT(c.rootdelay, 30);
	CHECK_INT(config_wait(&c), 5);
	apply(&c, "rootwait", &e);
	CHECK_INT(config_wait(&c), CFG_WAIT_FOREVER);
	CHECK_INT(e.n, 0);
}

/* Board file, then command line, as init/configure.c reads them. */
static void boot_with(struct config *c, const char *board, const char *cmdline,
		      struct errs *e)
{
	config_boot(c, board, cmdline, on_err, e);
}

/* union.lower= on the command line, then root= there, then the board's
 * union.lower: the layer from root= is the one rootfstype=/rootflags= shape
 * (an empty lower means root=, for init/union.c and plan). */
static void root_on_the_command_line_beats_the_boards_lower(void)
{
	static const char board[] = "# board\nunion.lower=/dev/vda\nunion.upper=LABEL=data\n";
	struct config c;
	struct errs e = { 0 };

	boot_with(&c, board, "root=/dev/vdc rootfstype=squashfs rootflags=noatime", &e);
	CHECK_STR(c.lower, "");
	CHECK_STR(c.root, "/dev/vdc");
	CHECK_STR(c.rootfstype, "squashfs");
	CHECK_STR(c.upper, "LABEL=data");

	boot_with(&c, board, "union.lower=LABEL=top,/dev/vdb root=/dev/vdc", &e);
	CHECK_STR(c.lower, "LABEL=top,/dev/vdb");

	boot_with(&c, board, "root=/dev/vdc union.lower=/dev/vdb", &e);
	CHECK_STR(c.lower, "/dev/vdb");

	boot_with(&c, board, "quiet rootfstype=ext4", &e);
	CHECK_STR(c.lower, "/dev/vda");
	CHECK_STR(c.root, "");
	CHECK_INT(e.n, 0);

	/* a root= that is rejected names nothing: the board's layer stays */
	boot_with(&c, board, "root=LABEL=", &e);
	CHECK_INT(e.n, 1);
	CHECK_STR(c.lower, "/dev/vda");

	/* a root= of the board file is a board default like its union.lower */
	boot_with(&c, "union.lower=/dev/vda root=/dev/vdc", "", &e);
	CHECK_STR(c.lower, "/dev/vda");
}

static void other_parameters_are_not_ours(void)
{
	struct config c;

	config_defaults(&c);
	CHECK_INT(config_apply(&c, "console", "ttyS0", NULL, NULL), 0);
	CHECK_INT(config_apply(&c, "ext4.debug", "1", NULL, NULL), 0);
	CHECK_INT(config_apply(&c, "union.wait", "4", NULL, NULL), 1);
	CHECK_INT(c.wait, 4);
}

static void random_garbage_never_crashes(void)
{
	char buf[512];
	struct config c;
	struct errs e = { 0 };

	srand(1);
	for (int round = 0; round < 2000; round++) {
		size_t n = (size_t)(rand() % (int)(sizeof(buf) - 1));
		static const char alphabet[] = "union.lowerpTAB=\",:/@ \t\n#\x01\xff"
					       "LABEL=UUID=auto0123456789tmpfsnone-";

		for (size_t i = 0; i < n; i++)
			buf[i] = alphabet[rand() % (int)(sizeof(alphabet) - 1)];
		buf[n] = '\0';
		config_defaults(&c);
		config_apply_text(&c, buf, round & 1, on_err, &e);
		CHECK(c.wait >= 0 && c.wait <= 3600);
	}
}

static void persist_sizes_are_binary_units(void)
{
	uint64_t n = 0;
	struct config c;
	struct errs e = { 0 };

	CHECK_INT(config_bytes("512M", &n), 0);
	CHECK_INT(n, 512ull << 20);
	CHECK_INT(config_bytes("4g", &n), 0);
	CHECK_INT(n, 4ull << 30);
	CHECK_INT(config_bytes("16777216", &n), 0);
	CHECK_INT(n, 16ull << 20);
	CHECK_INT(config_bytes("2T", &n), 0);
	CHECK_INT(n, 2ull << 40);
	CHECK_INT(config_bytes("16777216T", &n), -ERANGE);
	CHECK_INT(config_bytes("1MB", &n), -EINVAL);
	CHECK_INT(config_bytes("", &n), -EINVAL);
	config_defaults(&c);
	apply(&c, "union.persist.size=1G", &e);
	CHECK_STR(c.persist_size, "1G");
}

static void the_init_candidates_are_one_list(void)
{
	char buf[64], tiny[12];

	CHECK_INT(config_inits_text(buf, sizeof(buf)), 0);
	CHECK_STR(buf, "/sbin/init, /etc/init, /bin/init, /bin/sh");
	CHECK_STR(config_inits[0], "/sbin/init");
	CHECK_STR(config_inits[CFG_INITS - 1], "/bin/sh");
	CHECK_INT(config_inits_text(tiny, sizeof(tiny)), -ENAMETOOLONG);
}

/* The enums' names sit in one string of lists: each name maps to its own
 * index, the last one included, and a bad value lists exactly its names. */
static void every_enum_name_maps_to_its_index(void)
{
	static const struct {
		const char *text;
		size_t off;
		int want;
	} rows[] = {
		{ "union.mode=auto", offsetof(struct config, mode), MODE_AUTO },
		{ "union.mode=copyup", offsetof(struct config, mode), MODE_COPYUP },
		{ "union.onfail=tmpfs", offsetof(struct config, onfail), ONFAIL_TMPFS },
		{ "union.onfail=halt", offsetof(struct config, onfail), ONFAIL_HALT },
		{ "union.reset=0", offsetof(struct config, reset), RESET_OFF },
		{ "union.reset=keep", offsetof(struct config, reset), RESET_KEEP },
		{ "union.reset", offsetof(struct config, reset), RESET_ON },
		{ "union.upgrade=keeplist", offsetof(struct config, upgrade), UPGRADE_KEEPLIST },
		{ "union.scan=removable", offsetof(struct config, scan), SCAN_REMOVABLE },
		{ "union.drivers=all", offsetof(struct config, drivers), DRIVERS_ALL },
		{ "union.removable=none", offsetof(struct config, removable), REMOVABLE_NONE },
		{ "union.removable=nodev,nosuid", offsetof(struct config, removable), REMOVABLE_NODEV_NOSUID },
		{ "union.session=volatile", offsetof(struct config, session_volatile), 1 },
		{ "union.verity.onerror=panic", offsetof(struct config, verity_onerror), 2 },
		{ "union.break=switch", offsetof(struct config, brk), BREAK_SWITCH },
		{ "union.break", offsetof(struct config, brk), BREAK_MOUNT },
	};
	struct config c;
	struct errs e = { 0 };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		config_defaults(&c);
		apply(&c, rows[i].text, &e);
		CHECK_INT(*(int *)(void *)((char *)&c + rows[i].off), rows[i].want);
	}
	CHECK_INT(e.n, 0);
	config_defaults(&c);
	apply(&c, "union.format=jffs2", &e);
	CHECK_STR(c.format, "jffs2");
	CHECK_INT(e.n, 0);
	apply(&c, "union.onfail=panic", &e);
	CHECK_INT(e.n, 1);
	CHECK(strstr(e.last, ": want tmpfs|shell|reboot|halt; keeping") != NULL);
	apply(&c, "union.verity.onerror=x", &e);
	CHECK(strstr(e.last, ": want eio|restart|panic; keeping") != NULL);
	apply(&c, "union.mode=", &e);
	CHECK(strstr(e.last, ": want auto|overlay|copyup; keeping") != NULL);
	CHECK_STR(config_mode_name(MODE_COPYUP), "copyup");
	CHECK_STR(config_mode_name(3), "?");
	CHECK_STR(config_onfail_name(ONFAIL_HALT), "halt");
	CHECK_STR(config_onfail_name(-1), "?");
}

/* keys are fixed arrays: the longest must keep its NUL to match */
static void the_longest_keys_match_whole(void)
{
	struct config c;
	struct errs e = { 0 };

	config_defaults(&c);
	apply(&c, "union.test.crashafter=rename union.verity.onerror=restart", &e);
	CHECK_STR(c.crashafter, "rename");
	CHECK_INT(c.verity_onerror, 1);
	CHECK_INT(e.n, 0);
	apply(&c, "union.test.crashafterx=1", &e);
	CHECK_STR(c.crashafter, "rename");
}

UNIT_SUITE(config,
	   { "defaults are the documented ones", defaults_are_documented_ones },
	   { "the command line wins over the board", the_command_line_wins_over_the_board },
	   { "every parameter of the SPEC is accepted", every_parameter_of_the_spec_is_accepted },
	   { "bad values are named and defaults kept", bad_values_are_named_and_defaults_kept },
	   { "a 4 KB value is cut in the message", an_overlong_value_is_cut_in_the_message },
	   { "control bytes are escaped in messages", control_bytes_are_escaped_in_messages },
	   { "repeated keys take the last good value", repeated_keys_take_the_last_value },
	   { "rootdelay is a pause, rootwait no deadline", rootdelay_is_a_pause_and_rootwait_no_deadline },
	   { "root= on the command line beats the board's union.lower",
	     root_on_the_command_line_beats_the_boards_lower },
	   { "other parameters are not ours", other_parameters_are_not_ours },
	   { "random garbage never crashes", random_garbage_never_crashes },
	   { "union.persist.size takes binary units K, M, G, T", persist_sizes_are_binary_units },
	   { "the init candidates are one list", the_init_candidates_are_one_list },
	   { "every enum name maps to its index", every_enum_name_maps_to_its_index },
	   { "the longest keys match whole", the_longest_keys_match_whole });
