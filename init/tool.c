// SPDX-License-Identifier: MIT
/* Running a program the board carries (mkfs, fsck) from PID 1: a fixed
 * environment, its output logged line by line with its name in front, a
 * time limit after which it is killed. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot.h"
#include "log.h"
#include "sys.h"

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

static int run_and_wait(const char *path, char *const argv[], unsigned timeout_s)
{
	static char *const envp[] = { "PATH=/sbin:/bin:/usr/sbin:/usr/bin", NULL };
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	uint64_t deadline = sys_now_ms() + (uint64_t)timeout_s * 1000u;
	char buf[LOG_LINE_MAX / 2];
	size_t len = 0;
	int pipefd[2], st, timed_out = 0;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int rc = -errno;

		close(pipefd[0]);
		close(pipefd[1]);
		return rc;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		if (devnull >= 0)
			IGNORE(dup2(devnull, 0)); /* no console input for a tool */
		IGNORE(dup2(pipefd[1], 1));       /* the child's own copies: no CLOEXEC */
		IGNORE(dup2(pipefd[1], 2));
		execve(path, argv, envp);
		_exit(127);
	}
	close(pipefd[1]);
	for (;;) {
		struct pollfd p = { pipefd[0], POLLIN, 0 };
		uint64_t now = sys_now_ms();
		ssize_t n;

		if (now >= deadline) {
			timed_out = 1;
			IGNORE(kill(pid, SIGKILL));
			break;
		}
		if (poll(&p, 1, (int)(deadline - now)) < 0 && errno != EINTR)
			break;
		if (!(p.revents & (POLLIN | POLLHUP)))
			continue;
		n = read(pipefd[0], buf + len, sizeof(buf) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* the tool closed its output: it is ending */
		len += (size_t)n;
		log_lines(name, buf, &len, sizeof(buf), 0);
	}
	log_lines(name, buf, &len, sizeof(buf), 1);
	close(pipefd[0]);
	/* its output is closed; it still gets only what is left of its time */
	while (!timed_out) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (sys_now_ms() >= deadline) {
			timed_out = 1;
			IGNORE(kill(pid, SIGKILL));
		} else {
			IGNORE(usleep(10000));
		}
	}
	if (timed_out)
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR)
				return -errno;
	if (timed_out)
		return -ETIMEDOUT;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

int tool_run(const char *path, char *const argv[], unsigned timeout_s)
{
	int rc;

	watchdog_step(timeout_s + WD_MARGIN_S, "running %s", path); /* it keeps its own limit */
	rc = run_and_wait(path, argv, timeout_s);
	watchdog_step_end();
	return rc;
}
