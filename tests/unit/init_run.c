// SPDX-License-Identifier: MIT
/* The boot's loop (init/run.c) over the fake syscall edge: a fault in each
 * kind of row of the plan, one table row a case, and what the boot then
 * does: the rows it runs, how it stops, what it says, which system calls
 * it makes in which order (the branch let go before the fallback's). A
 * test fails when a kind of row has no case. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdio.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../init/boot.h"
#include "../../init/steps.h"
#include "fake_sys.h"
#include "init_log.h"
#include "init_run.h"
#include "init_tool.h"
#include "unit.h"

static struct boot b;
static char root[512];
static jmp_buf stopped;
static int power_how;

static void on_power(int how)
{
	power_how = how;
	longjmp(stopped, 1);
}

static void on_exit_status(int status)
{
	on_power(RUN_EXITED(status));
}

/* path (beneath the case's root) with text in it, its directories made. */
static void put_file(const char *path, const char *text, size_t len)
{
	char full[1024];
	int fd;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	for (char *p = full + strlen(root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(full, 0755);
		*p = '/';
	}
	fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		unit_failf(__FILE__, __LINE__, "cannot write %s", full);
	if (fd >= 0)
		close(fd);
}

void run_put(const char *path, const char *text)
{
	put_file(path, text, strlen(text));
}

struct boot *run_boot_state(void)
{
	return &b;
}

/* A squashfs 4 superblock: the probe's fields and nothing else. */
void run_put_squashfs(const char *path)
{
	unsigned char sb[96] = "hsqs";

	sb[14] = 2;  /* s_block_size 131072, little-endian */
	sb[22] = 17; /* s_block_log */
	sb[28] = 4;  /* s_major */
	put_file(path, (const char *)sb, sizeof(sb));
}

/* Messages hold the host libc's strerror() words, not musl's: the cases
 * look at what comes before them. */

/* A boot whose media were found: /dev/vda (squashfs), /dev/vdb (ext4). */
static void boot_of(const struct run_case *c, unsigned n)
{
	static char *argv[] = { "/init", NULL }, *envp[] = { "HOME=/", NULL };
	char text[512];

	memset(&b, 0, sizeof(b));
	snprintf(root, sizeof(root), "%s/case%u", unit_tmpdir(), n);
	mkdir(root, 0755);
	fake_sys_reset(root);
	console_catch();
	tool_forget(0);
	run_put("proc/filesystems", "nodev\ttmpfs\nnodev\toverlay\n\text4\n");
	config_defaults(&b.cfg);
	snprintf(text, sizeof(text), "union.lower=/dev/vda union.upper=/dev/vdb %s",
		 c->cmdline ? c->cmdline : "");
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
	b.argv = argv; /* as the kernel started PID 1, for a hand-off that gets so far */
	b.envp = envp;
	if (c->prepare)
		c->prepare();
	for (unsigned i = 0; i < 2 && c->fault[i].call; i++)
		fake_sys_fail(c->fault[i].call, c->fault[i].arg, c->fault[i].nth, c->fault[i].err);
	/* the reboot countdown's lines: on the runner's stderr they ran into
	 * the next PASS line, which tests/run then did not count */
	fake_sys_fail("write", "2", 0, -EIO);
	fake_power_hook = on_power;
	fake_exit_hook = on_exit_status;
	fake_exit_pid = getpid();
	b.facts.mount_at = c->at;
	power_how = 0;
}

/* The rows the loop runs until the hand-off (through it when the case
 * breaks it), or until the boot stops. */
static void run_boot(const struct run_case *c, char *rows, size_t cap)
{
	static size_t len;
	static unsigned n;

	len = 0;
	rows[0] = '\0';
	if (setjmp(stopped))
		return;
	for (n = 0; n < 40; n++) {
		int kind = boot_next(&b);

		if (kind < 0 || (kind == RUN_HANDOFF && c->kind != RUN_HANDOFF))
			break;
		len += (size_t)snprintf(rows + len, cap - len, "%s%s", len ? "," : "", plan_row_name(kind));
		if (len >= cap)
			len = cap - 1;
		IGNORE(boot_turn(&b));
	}
}

/* The first line of calls ("|" between them) not made after the one
 * before it, NULL when all were made in that order. */
static const char *missing_call(const char *calls, char *line, size_t cap)
{
	const char *log = fake_sys_log();

	while (calls && *calls) {
		const char *bar = strchr(calls, '|');
		size_t len = bar ? (size_t)(bar - calls) : strlen(calls);
		const char *at = log;

		snprintf(line, cap, "%.*s", (int)len, calls);
		while (at && !(strncmp(at, line, len) == 0 && at[len] == '\n'))
			at = strchr(at, '\n') ? strchr(at, '\n') + 1 : NULL;
		if (!at || !*at)
			return line;
		log = strchr(at, '\n') + 1;
		calls = bar ? bar + 1 : NULL;
	}
	return NULL;
}

static void check_case(const struct run_case *c, const char *rows)
{
	const char *said = console_said(), *wrong;
	char line[128];

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
	if (c->unsaid && strstr(said, c->unsaid))
		unit_failf(__FILE__, __LINE__, "%s: the log says \"%s\":\n%s", c->name, c->unsaid, said);
	if (missing_call(c->calls, line, sizeof(line)))
		unit_failf(__FILE__, __LINE__, "%s: no \"%s\" where \"%s\" wants it; the calls:\n%s",
			   c->name, line, c->calls, fake_sys_log());
	if (c->never && fake_sys_count(c->never))
		unit_failf(__FILE__, __LINE__, "%s: \"%s\" was called", c->name, c->never);
	if (c->check && (wrong = c->check()) != NULL)
		unit_failf(__FILE__, __LINE__, "%s: %s", c->name, wrong);
	if (b.rw >= 0)
		unit_failf(__FILE__, __LINE__, "%s: the branch's fd %d is left open", c->name, b.rw);
}

static void every_fault_gives_its_rows(void)
{
	static char rows[2048];

	for (size_t i = 0; i < run_ncases; i++) {
		boot_of(&run_cases[i], (unsigned)i);
		run_boot(&run_cases[i], rows, sizeof(rows));
		check_case(&run_cases[i], rows);
	}
}

/* A new kind of row needs its fault case; and a case breaks a row it runs. */
static void every_row_kind_has_a_fault(void)
{
	for (int kind = 0; kind < RUN_KINDS; kind++) {
		size_t i = 0;

		while (i < run_ncases && run_cases[i].kind != kind)
			i++;
		if (i == run_ncases)
			unit_failf(__FILE__, __LINE__, "no fault case for row kind %d (%s)", kind,
				   plan_row_name(kind));
	}
	for (size_t i = 0; i < run_ncases; i++)
		if (run_cases[i].kind >= 0 && !strstr(run_cases[i].rows, plan_row_name(run_cases[i].kind)))
			unit_failf(__FILE__, __LINE__, "%s: breaks \"%s\" but does not run it",
				   run_cases[i].name, plan_row_name(run_cases[i].kind));
}

UNIT_SUITE(init_run, { "every fault of a step gives the plan's rows", every_fault_gives_its_rows },
	   { "every kind of row has a fault case", every_row_kind_has_a_fault });
