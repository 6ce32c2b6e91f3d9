// SPDX-License-Identifier: MIT
/* PID 1's watchdog: a child that reads PID 1's phase and step from a shared
 * page and says where PID 1 waits when one outlives its budget; PID 1 cannot,
 * stuck in a mount or finit_module that does not return. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot.h"
#include "lib/log.h"
#include "lib/fmt.h"
#include "lib/sbuf.h"
#include "lib/strnum.h"
#include "lib/sys.h"
#include "lib/sysx.h"

#define POLL_MS 1000
#define STACK_FRAMES 4

struct wd_slot {
	unsigned gen;             /* which record: the child speaks once per record */
	unsigned budget_s;        /* 0: no deadline */
	uint64_t since_ms;
	char text[120];
};

/* Written by PID 1 only, under seq (odd while it writes: the child retries). */
struct wd_page {
	unsigned seq;
	int in_step;              /* the step is in force, else the phase */
	struct wd_slot slot[2];   /* phase, step */
};

static struct wd_page *wd;
static pid_t wd_pid = -1;

/* step: 0 the phase, 1 a step, -1 the step ended (text NULL). */
static void record(int step, unsigned budget_s, const char *text)
{
	static unsigned gen;
	struct wd_slot *s = &wd->slot[step > 0];

	__atomic_store_n(&wd->seq, wd->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	/* after a step, the phase's budget runs again from its end */
	if (text) {
		memcpy(s->text, text, sizeof(s->text));
		s->budget_s = budget_s;
	}
	wd->in_step = step > 0;
	s->gen = ++gen;
	s->since_ms = sys_now_ms();
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&wd->seq, wd->seq + 1, __ATOMIC_RELEASE);
}

static void record_fmt(int step, unsigned budget_s, const char *fmt, va_list ap)
{
	char text[sizeof(wd->slot[0].text)];

	if (!wd)
		return;
	IGNORE(fmt_vsn(text, sizeof(text), fmt, ap)); /* a cut text still names the step */
	record(step, budget_s, text);
}

void watchdog_phase(unsigned budget_s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record_fmt(0, budget_s, fmt, ap);
	va_end(ap);
}

void watchdog_step(unsigned budget_s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record_fmt(1, budget_s, fmt, ap);
	va_end(ap);
}

void watchdog_step_end(void)
{
	if (wd)
		record(-1, 0, NULL);
}

/* A consistent copy of the record in force; 0 while PID 1 is writing. */
static int snapshot(struct wd_slot *out, int *step)
{
	unsigned seq = __atomic_load_n(&wd->seq, __ATOMIC_ACQUIRE);

	if (seq & 1)
		return 0;
	*step = wd->in_step;
	memcpy(out, &wd->slot[*step], sizeof(*out));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&wd->seq, __ATOMIC_RELAXED) == seq;
}

/* "a < b < c" from /proc/1/stack's "[<0>] a+0x1c/0x40" lines, innermost
 * first; "" when the kernel does not show it. */
static void stack_names(char *out, size_t cap)
{
	char buf[1024];
	const char *p = buf;
	struct sbuf sb;

	out[0] = '\0';
	if (sys_read_file("/proc/1/stack", buf, sizeof(buf)) <= 0)
		return;
	sbuf_init(&sb, out, cap);
	for (int i = 0; i < STACK_FRAMES && (p = str_find(p, "] ")) != NULL; i++) {
		p += 2;
		sbuf_addf(&sb, "%s%.*s", i ? " < " : "", (int)strcspn(p, "+\n"), p);
	}
	IGNORE(sbuf_done(&sb)); /* a cut stack is still the top of it */
}

static void speak(const struct wd_slot *s, uint64_t now, int *dumped)
{
	char wchan[64], stack[200];
	int fd;

	if (sys_read_file("/proc/1/wchan", wchan, sizeof(wchan)) <= 0)
		IGNORE(strcopy(wchan, sizeof(wchan), "?"));
	stack_names(stack, sizeof(stack));
	if (strcmp(wchan, "0") == 0)
		log_warn("still %s after %llu s; PID 1 is running, not waiting in the kernel",
			 s->text, (unsigned long long)((now - s->since_ms) / 1000));
	else
		log_warn("still %s after %llu s; PID 1 is waiting in %s%s%s%s", s->text,
			 (unsigned long long)((now - s->since_ms) / 1000), wchan,
			 stack[0] ? " (" : "", stack, stack[0] ? ")" : "");
	if (*dumped)
		return;
	*dumped = 1;
	/* 'w': the kernel logs every blocked task's stack, ours and its own */
	fd = sys_open("/proc/sysrq-trigger", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		IGNORE(sys_write(fd, "w", 1)); /* best effort: the line above is said */
		sys_close(fd);
	}
}

static NORETURN void watch(void)
{
	unsigned said[2] = { 0, 0 };
	int dumped = 0;

	IGNORE(sys_prctl(PR_SET_NAME, (unsigned long)"unionroot-wd")); /* for ps and the tests */
	for (;;) {
		struct wd_slot s;
		uint64_t now;
		int step;

		sys_sleep_ms(POLL_MS);
		if (!snapshot(&s, &step) || !s.budget_s || said[step] == s.gen)
			continue;
		now = sys_now_ms();
		if (now - s.since_ms < (uint64_t)s.budget_s * 1000u)
			continue;
		said[step] = s.gen;
		speak(&s, now, &dumped);
	}
}

void watchdog_start(void)
{
	void *page = NULL;
	int rc = sys_map_shared(sizeof(*wd), &page);

	if (rc < 0) {
		log_warn("starting the watchdog failed: %s; a hung step will not be named",
			 strerror(-rc));
		return;
	}
	wd = page;
	wd_pid = sys_fork();
	if (wd_pid == 0)
		watch();
	if (wd_pid < 0) {
		log_warn("starting the watchdog failed: %s; a hung step will not be named",
			 strerror(errno));
		watchdog_stop();
	}
}

void watchdog_stop(void)
{
	if (wd_pid > 0) {
		IGNORE(sys_kill(wd_pid, SIGKILL)); /* it holds nothing: no need to ask */
		while (sys_waitpid(wd_pid, NULL, 0) == -EINTR)
			;
	}
	wd_pid = -1;
	if (wd)
		sys_unmap(wd, sizeof(*wd));
	wd = NULL;
}
