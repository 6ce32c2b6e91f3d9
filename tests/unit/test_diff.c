// SPDX-License-Identifier: MIT
/* Both diffs print through diff_print: a hostile file name (a newline, an
 * escape sequence, a backslash) stays on its own line, escaped. */
#include <fcntl.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/out.h"
#include "diff/diff.h"
#include "unit.h"

static void a_file_name_cannot_forge_a_diff_line(void)
{
	char path[512], out[256];
	int fd, saved;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/out", unit_tmpdir());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	fflush(stdout);
	saved = dup(1);
	CHECK(dup2(fd, 1) == 1);
	CHECK_INT(diff_print('A', "/etc/x\nD /etc/passwd"), 0);
	CHECK_INT(diff_print('M', "rel/\x1b[2J\\"), 0);
	CHECK_INT(out_flush(), 0); /* what diff_print gathered, into the file */
	CHECK(dup2(saved, 1) == 1);
	close(saved);
	n = pread(fd, out, sizeof(out) - 1, 0);
	close(fd);
	CHECK(n > 0);
	out[n] = '\0';
	CHECK_STR(out, "A /etc/x\\x0aD /etc/passwd\nM /rel/\\x1b[2J\\x5c\n");
}

UNIT_SUITE(diff, { "a file name cannot forge a diff line", a_file_name_cannot_forge_a_diff_line });
