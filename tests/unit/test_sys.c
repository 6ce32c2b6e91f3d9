// SPDX-License-Identifier: MIT
/* The syscall layer's small answers: what exists without following a
 * symlink, a fork without libc's atfork machinery, the one clock, a file
 * read into memory of its size. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/lines.h"
#include "lib/sys.h"
#include "unit.h"

/* a driver link in /sys is a symlink: it counts whether or not it resolves */
static void a_symlink_exists_whether_or_not_it_resolves(void)
{
	char path[512];
	int dir = open(unit_tmpdir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	CHECK(dir >= 0);
	snprintf(path, sizeof(path), "%s/file", unit_tmpdir());
	CHECK_INT(close(open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)), 0);
	CHECK_INT(symlinkat("nowhere", dir, "dangling"), 0);
	CHECK_INT(symlinkat("file", dir, "link"), 0);
	CHECK_INT(sys_lexists(AT_FDCWD, path), 1);
	CHECK_INT(sys_lexists(dir, "file"), 1);
	CHECK_INT(sys_lexists(dir, "dangling"), 1);
	CHECK_INT(sys_lexists(dir, "link"), 1);
	CHECK_INT(sys_lexists(dir, "missing"), 0);
	CHECK_INT(sys_lexists(dir, "file/below"), 0);
	CHECK_INT(sys_lexists(dir, "dangling/below"), 0);
	close(dir);
}

static void a_forked_child_runs_and_is_reaped(void)
{
	int status = -1;
	pid_t parent = getpid(), pid = sys_fork();

	if (pid == 0)
		_exit(getppid() == parent && getpid() != parent ? 7 : 1);
	CHECK(pid > 0);
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_INT(WEXITSTATUS(status), 7);
}

/* the raw syscall reads the same clock as clock_gettime's vDSO */
static void the_clock_is_boottime_in_milliseconds(void)
{
	struct timespec ts;
	uint64_t before, now, after;

	CHECK_INT(clock_gettime(CLOCK_BOOTTIME, &ts), 0);
	before = (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
	now = sys_now_ms();
	CHECK_INT(clock_gettime(CLOCK_BOOTTIME, &ts), 0);
	after = (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
	CHECK(now > 0);
	CHECK(before <= now && now <= after);
}

/* the tree copy's metadata steps: times on a file, on its fd and on a
 * symlink itself (not its target), a mode by name */
static void times_and_modes_land_where_they_are_aimed(void)
{
	struct timespec ts[2] = { { 1000, 5 }, { 2000, 7 } }, lts[2] = { { 3000, 0 }, { 4000, 0 } };
	struct stat st;
	int dir = open(unit_tmpdir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;

	CHECK(dir >= 0);
	fd = openat(dir, "meta", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	CHECK_INT(symlinkat("meta", dir, "meta-link"), 0);
	CHECK_INT(sys_utimensat(fd, NULL, ts, 0), 0);
	CHECK_INT(sys_utimensat(dir, "meta-link", lts, AT_SYMLINK_NOFOLLOW), 0);
	CHECK_INT(sys_fchmodat(dir, "meta", 04751), 0);
	CHECK_INT(fstat(fd, &st), 0);
	CHECK_INT((long)st.st_mtim.tv_sec, 2000);
	CHECK_INT((long)st.st_mtim.tv_nsec, 7);
	CHECK_INT((long)st.st_atim.tv_sec, 1000);
	CHECK_INT((int)(st.st_mode & 07777), 04751);
	CHECK_INT(fstatat(dir, "meta-link", &st, AT_SYMLINK_NOFOLLOW), 0);
	CHECK_INT((long)st.st_mtim.tv_sec, 4000);
	CHECK_INT(sys_fchmodat(dir, "absent", 0644), -ENOENT);
	/* past 2038 where time_t is 64-bit (musl everywhere; a 32-bit target
	 * needs the _time64 call for it: tests/host/mipsel32.sh) */
	if (sizeof(time_t) > 4) {
		ts[1].tv_sec = (time_t)((1ull << 32) + 5);
		CHECK_INT(sys_utimensat(fd, NULL, ts, 0), 0);
		CHECK_INT(fstat(fd, &st), 0);
		CHECK(st.st_mtim.tv_sec == ts[1].tv_sec && st.st_mtim.tv_nsec == 7);
		CHECK_INT((long)st.st_atim.tv_sec, 1000);
	}
	close(fd);
	close(dir);
}

/* fds 0-2 are checked with F_GETFD at boot; a medium's file is made
 * blocking with F_GETFL and F_SETFL */
static void fcntl_answers_and_sets_flags(void)
{
	int fd = open("/dev/null", O_RDONLY | O_NONBLOCK | O_CLOEXEC), fl;

	CHECK(fd >= 0);
	CHECK_INT(sys_fcntl(fd, F_GETFD, 0), FD_CLOEXEC);
	fl = sys_fcntl(fd, F_GETFL, 0);
	CHECK(fl >= 0 && (fl & O_NONBLOCK));
	CHECK_INT(sys_fcntl(fd, F_SETFL, fl & ~O_NONBLOCK), 0);
	CHECK_INT(sys_fcntl(fd, F_GETFL, 0) & O_NONBLOCK, 0);
	close(fd);
	CHECK_INT(sys_fcntl(fd, F_GETFD, 0), -EBADF);
}

/* PID 1 reads a module index once, into memory of the file's size: a
 * modules.alias of 5000 lines (larger than any buffer it had) comes whole;
 * one over the bound is refused by name, the caller's text left as it was */
static void an_index_is_read_into_memory_of_its_size(void)
{
	char path[512], *text = NULL, *keep = "kept";
	FILE *f;
	long size;

	snprintf(path, sizeof(path), "%s/modules.alias", unit_tmpdir());
	f = fopen(path, "w");
	CHECK(f != NULL);
	for (unsigned i = 0; i < 5000; i++)
		fprintf(f, "alias pci:v00008086d%08Xsv*sd*bc*sc*i* nic%u\n", i, i % 40);
	size = ftell(f);
	CHECK_INT(fclose(f), 0);
	CHECK(size > 192 * 1024);
	CHECK_INT(sys_map_text(path, (size_t)size, &text), size);
	CHECK(text != NULL);
	CHECK_INT(strlen(text), size);
	CHECK_INT(lines_count(text), 5000);
	CHECK(strcmp(text + size - 49, "alias pci:v00008086d00001387sv*sd*bc*sc*i* nic39\n") == 0);
	text = keep;
	CHECK_INT(sys_map_text(path, (size_t)size - 1, &text), -EFBIG);
	CHECK(text == keep);
	snprintf(path, sizeof(path), "%s/missing", unit_tmpdir());
	CHECK_INT(sys_map_text(path, 1 << 20, &text), -ENOENT);
	CHECK(text == keep);
	/* an empty file is an empty text, in memory of its own */
	snprintf(path, sizeof(path), "%s/empty", unit_tmpdir());
	CHECK_INT(close(open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)), 0);
	CHECK_INT(sys_map_text(path, 1 << 20, &text), 0);
	CHECK(text != keep && text[0] == '\0');
}

UNIT_SUITE(sys, { "a symlink exists whether or not it resolves",
		  a_symlink_exists_whether_or_not_it_resolves },
	   { "a forked child runs and is reaped", a_forked_child_runs_and_is_reaped },
	   { "the clock is CLOCK_BOOTTIME in milliseconds", the_clock_is_boottime_in_milliseconds },
	   { "times and modes land where they are aimed", times_and_modes_land_where_they_are_aimed },
	   { "fcntl answers and sets flags", fcntl_answers_and_sets_flags },
	   { "an index is read into memory of its size", an_index_is_read_into_memory_of_its_size });
