// SPDX-License-Identifier: MIT
/* tool_run (init/tool.c) on real shell scripts: a tool past its time is
 * killed with everything it started, and one that ends leaves nothing behind. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../init/boot.h"
#include "unit.h"

/* A script that starts "sleep 300" in the background (holding the output
 * pipe, as a forgotten child would), writes its pid, then runs TAIL. */
static int script(char *path, size_t cap, const char *tail)
{
	FILE *f;

	snprintf(path, cap, "%s/tool.sh", unit_tmpdir());
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "#!/bin/sh\nsleep 300 &\necho $! >%s/grandchild.tmp\nmv %s/grandchild.tmp %s/grandchild\n%s\n",
		unit_tmpdir(), unit_tmpdir(), unit_tmpdir(), tail);
	if (fclose(f) != 0)
		return -1;
	return chmod(path, 0755);
}

static pid_t grandchild(void)
{
	char path[512];
	FILE *f;
	int pid = -1;

	snprintf(path, sizeof(path), "%s/grandchild", unit_tmpdir());
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &pid) != 1)
		pid = -1;
	fclose(f);
	return pid;
}

/* Gone or a zombie (dead, not yet reaped by whoever inherited it), within 2 s;
 * a survivor is killed here so that a failing run leaves nothing behind. */
static int dies(pid_t pid)
{
	char path[64], buf[256], *paren;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 200; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

		if (fd >= 0)
			close(fd);
		if (n < 0)
			return 1;
		buf[n] = '\0';
		paren = strrchr(buf, ')');
		if (paren && paren[1] == ' ' && paren[2] == 'Z')
			return 1;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	return 0;
}

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

static void a_tool_past_its_time_is_killed_with_its_children(void)
{
	char path[512];
	char *argv[] = { path, NULL };
	struct timespec t0;
	pid_t pid;

	CHECK_INT(script(path, sizeof(path), "sleep 30"), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INT(tool_run(&(struct tool){ path, TOOL_INITRAMFS }, argv, 1), -ETIMEDOUT);
	CHECK(elapsed_ms(&t0) < 5000);
	pid = grandchild();
	CHECK(pid > 0);
	CHECK(dies(pid));
}

static void a_tool_that_ends_leaves_nothing_behind(void)
{
	char path[512];
	char *argv[] = { path, NULL };
	struct timespec t0;
	pid_t pid;

	CHECK_INT(script(path, sizeof(path), "exit 3"), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INT(tool_run(&(struct tool){ path, TOOL_INITRAMFS }, argv, 10), 3);
	CHECK(elapsed_ms(&t0) < 5000); /* not held until the deadline by the child */
	pid = grandchild();
	CHECK(pid > 0);
	CHECK(dies(pid));
}

/* A descriptor PID 1 holds without O_CLOEXEC (as a dup() made one) never
 * reaches a tool: mkfs or fsck runs with 0, 1 and 2 alone. */
static void a_tool_gets_no_descriptor_of_pid1(void)
{
	char path[512], fds[512], tail[1200], buf[64] = "";
	char *argv[] = { path, NULL };
	int held = open("/dev/null", O_RDONLY), fd;
	ssize_t n;

	CHECK(held >= 0);
	CHECK_INT(dup2(held, 57), 57); /* no CLOEXEC on a dup2 */
	snprintf(fds, sizeof(fds), "%s/fds", unit_tmpdir());
	snprintf(tail, sizeof(tail), "for f in 57 %d; do [ -e /proc/$$/fd/$f ] && echo -n \"$f \"; done >%s; exit 0",
		 held, fds);
	CHECK_INT(script(path, sizeof(path), tail), 0);
	CHECK_INT(tool_run(&(struct tool){ path, TOOL_INITRAMFS }, argv, 10), 0);
	close(57);
	close(held);
	fd = open(fds, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	CHECK_INT((int)n, 0); /* the tool saw neither */
	IGNORE(dies(grandchild()));
}

UNIT_SUITE(tool,
	   { "a tool past its time is killed with its children",
	     a_tool_past_its_time_is_killed_with_its_children },
	   { "a tool that ends leaves nothing behind", a_tool_that_ends_leaves_nothing_behind },
	   { "a tool gets no descriptor of PID 1", a_tool_gets_no_descriptor_of_pid1 });
