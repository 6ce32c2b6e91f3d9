// SPDX-License-Identifier: MIT
/* The admin commands' output without stdio: stdout gathered and written in
 * order, a failed write reported once by out_flush, stderr at once. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/out.h"
#include "unit.h"

/* fd 'which' onto a fresh file (or /dev/null read-only when ro); the saved
 * copy of the old one. */
static int redirect(int which, int *fd, int ro)
{
	char path[512];
	int saved;

	snprintf(path, sizeof(path), "%s/out%d", unit_tmpdir(), which);
	*fd = ro ? open("/dev/null", O_RDONLY | O_CLOEXEC) :
		   open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	fflush(which == 1 ? stdout : stderr);
	saved = dup(which);
	if (*fd < 0 || saved < 0 || dup2(*fd, which) != which)
		return -1;
	return saved;
}

static void restore(int which, int saved)
{
	dup2(saved, which);
	close(saved);
}

static off_t size_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? st.st_size : -1;
}

static void stdout_is_gathered_and_written_in_order(void)
{
	static char text[12000], want[12000];
	size_t len = 0;
	off_t before;
	int fd, saved = redirect(1, &fd, 0);

	CHECK(saved >= 0);
	for (int i = 0; i < 1000; i++) {
		CHECK_INT(out("line %04d\n", i), 0);
		len += (size_t)snprintf(want + len, sizeof(want) - len, "line %04d\n", i);
	}
	before = size_of(fd);
	CHECK_INT(out_flush(), 0);
	restore(1, saved);
	CHECK(before >= 0 && before < (off_t)len && before % 4096 == 0); /* whole pages only */
	CHECK(pread(fd, text, sizeof(text) - 1, 0) == (ssize_t)len);
	close(fd);
	text[len] = '\0';
	CHECK_STR(text, want);
}

static void a_failed_write_is_reported_once(void)
{
	int fd, saved = redirect(1, &fd, 1);

	CHECK(saved >= 0);
	CHECK_INT(out("lost\n"), 0);
	CHECK_INT(out_flush(), -EBADF);
	CHECK_INT(out_flush(), 0);
	restore(1, saved);
	close(fd);
}

static void stderr_is_written_at_once(void)
{
	char text[64];
	ssize_t n;
	int fd, saved = redirect(2, &fd, 0);

	CHECK(saved >= 0);
	CHECK_INT(out_err("unionroot test: %s %d\n", "error", 5), 0);
	n = pread(fd, text, sizeof(text) - 1, 0);
	restore(2, saved);
	close(fd);
	CHECK(n > 0);
	text[n > 0 ? n : 0] = '\0';
	CHECK_STR(text, "unionroot test: error 5\n");
}

UNIT_SUITE(out, { "stdout is gathered and written in order", stdout_is_gathered_and_written_in_order },
	   { "a failed write is reported once, by out_flush", a_failed_write_is_reported_once },
	   { "stderr is written at once", stderr_is_written_at_once });
