// SPDX-License-Identifier: MIT
/* Running a tool (mkfs, fsck) from PID 1, the initramfs' or the image's: a fixed
 * environment, its output logged line by line with its name in front, a
 * time limit after which it is killed with everything it started. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot.h"
#include "lib/log.h"
#include "lib/sys.h"
#include "lib/sysx.h"

#define TICK_MS 50 /* how soon an ended tool is noticed while its output is open */

/* Logs the complete lines in buf[0..*len), keeps a cut tail for later. The
 * tail goes out too at the end, or when it is one line filling all of cap. */
static void log_lines(const char *name, char *buf, size_t *len, size_t cap, int at_end)
{
	size_t start = 0;

	for (size_t i = 0; i < *len; i++) {
		if (buf[i] != '\n')
			continue;
		if (i > start)
			log_info("%s: %.*s", name, (int)(i - start), buf + start);
		start = i + 1;
	}
	if (start < *len && (at_end || (start == 0 && *len == cap))) {
		log_info("%s: %.*s", name, (int)(*len - start), buf + start);
		start = *len;
	}
	memmove(buf, buf + start, *len - start);
	*len -= start;
}

/* The child: stdin in (else /dev/null), output into the pipe, and a
 * process group of its own, set on both sides of the fork so no kill of the
 * group can come before it exists: a kill then reaches whatever the tool
 * started. No udev in the initramfs: device-mapper makes its nodes itself. */
static pid_t spawn(const struct tool *t, char *const argv[], int in, int out)
{
	static char *const envp[] = { "PATH=/sbin:/bin:/usr/sbin:/usr/bin", "DM_DISABLE_UDEV=1", NULL };
	pid_t pid = sys_fork();

	if (pid == 0) {
		/* dup2 clears CLOEXEC on 0 */
		int from = in >= 0 ? in : sys_open("/dev/null", O_RDONLY | O_CLOEXEC);

		IGNORE(sys_setpgid(0, 0));
		if (from >= 0)
			IGNORE(sys_dup2(from, 0)); /* no console input for a tool */
		IGNORE(sys_dup2(out, 1));             /* the child's own copies: no CLOEXEC */
		IGNORE(sys_dup2(out, 2));
		sys_close_from(3);                    /* whatever PID 1 holds stays PID 1's */
		IGNORE(tool_exec(t, argv, envp)); /* 127 says it */
		sys_exit(127);
	}
	if (pid > 0)
		IGNORE(sys_setpgid(pid, pid)); /* fails harmlessly once the child has exec'd */
	return pid;
}

/* 1 once the tool has ended: what it left running in its group is killed
 * while the tool is still a zombie (its pid, the group's id, cannot be
 * reused yet), then it is reaped. With kill 1, it is killed first; a tool
 * stuck in the kernel (D state: a dying card, a hung device) ignores even
 * SIGKILL, so PID 1 waits KILL_WAIT_MS for it, then says so and goes on
 * (the real init reaps it should it ever end). */
#define KILL_WAIT_MS 5000
static int ended(pid_t pid, int kill_it, int *st, const char *name)
{
	siginfo_t si = { .si_pid = 0 };
	uint64_t until = sys_now_ms() + KILL_WAIT_MS;
	pid_t got;

	if (!kill_it && (sys_waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 ||
			 si.si_pid != pid))
		return 0;
	if (sys_kill(-pid, SIGKILL) < 0 && kill_it)
		IGNORE(sys_kill(pid, SIGKILL)); /* no group after all: the tool at least */
	while ((got = sys_waitpid(pid, st, kill_it ? WNOHANG : 0)) == 0 || got == -EINTR) {
		if (sys_now_ms() >= until) {
			log_err("%s did not end %d s after SIGKILL: it is stuck in the kernel (D state); going on without it",
				name, KILL_WAIT_MS / 1000);
			*st = 0;
			return 1;
		}
		sys_sleep_ms(TICK_MS);
	}
	return 1;
}

static int run_and_wait(const struct tool *t, char *const argv[], unsigned timeout_s, int in)
{
	const char *path = t->path, *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	uint64_t deadline = sys_now_ms() + (uint64_t)timeout_s * 1000u;
	char buf[LOG_LINE_MAX / 2];
	size_t len = 0;
	int pipefd[2], st = 0, done = 0, eof = 0, rc = sys_pipe2(pipefd, O_CLOEXEC);
	pid_t pid;

	if (rc < 0)
		return rc;
	pid = spawn(t, argv, in, pipefd[1]);
	if (pid < 0) {
		rc = -errno; /* sys_fork keeps fork's -1 and errno */
		sys_close(pipefd[0]);
		sys_close(pipefd[1]);
		return rc;
	}
	sys_close(pipefd[1]);
	/* until the tool has ended and its output is closed, within its time */
	for (;;) {
		struct pollfd p = { pipefd[0], POLLIN, 0 };
		uint64_t now = sys_now_ms();
		ssize_t n;

		done = done || ended(pid, 0, &st, name);
		if ((done && eof) || now >= deadline)
			break;
		if (eof) {
			sys_sleep_ms(TICK_MS);
			continue;
		}
		if (sys_poll(&p, 1, (int)(deadline - now < TICK_MS ? deadline - now : TICK_MS)) <= 0 ||
		    !(p.revents & (POLLIN | POLLHUP)))
			continue;
		n = sys_read(pipefd[0], buf + len, sizeof(buf) - len);
		if (n == -EINTR)
			continue;
		eof = n <= 0;
		len += n > 0 ? (size_t)n : 0;
		log_lines(name, buf, &len, sizeof(buf), 0);
	}
	log_lines(name, buf, &len, sizeof(buf), 1);
	sys_close(pipefd[0]);
	if (!done) {
		IGNORE(ended(pid, 1, &st, name));
		return -ETIMEDOUT;
	}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

int tool_run_input(const struct tool *t, char *const argv[], unsigned timeout_s, const void *in, size_t len)
{
	int rc, fds[2] = { -1, -1 };

	if (in) { /* a key: less than a pipe holds, written whole before the tool starts */
		if ((rc = sys_pipe2(fds, O_CLOEXEC)) < 0)
			return rc;
		rc = len ? (int)sys_write(fds[1], in, len) : 0;
		sys_close(fds[1]);
		if (rc >= 0 && (size_t)rc != len)
			rc = -EIO;
		if (rc < 0) {
			sys_close(fds[0]);
			return rc;
		}
	}
	watchdog_step(timeout_s + WD_MARGIN_S, "running %s", t->path); /* it keeps its own limit */
	rc = run_and_wait(t, argv, timeout_s, fds[0]);
	watchdog_step_end();
	if (fds[0] >= 0)
		sys_close(fds[0]);
	return rc;
}
