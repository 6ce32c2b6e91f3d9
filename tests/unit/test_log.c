// SPDX-License-Identifier: MIT
/* The log: one record is one line, whatever bytes a label or a tool's
 * output puts into it. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "unit.h"

/* A newline in a value would start a forged "unionroot: ..." line of its
 * own, an ESC would steer the console: both become '?', a tab a space. */
static void a_label_cannot_forge_a_log_line(void)
{
	char buf[1024];
	int p[2];
	ssize_t n;

	CHECK_INT(pipe2(p, O_CLOEXEC), 0);
	log_setup(-1, p[1]);
	log_err("label %s here", "a\nunionroot: forged\x1b[2J\tx\x7f");
	log_setup(-1, -1);
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	CHECK(n > 0);
	buf[n > 0 ? n : 0] = '\0';
	CHECK_STR(buf, "unionroot: label a?unionroot: forged?[2J x? here\n");
	CHECK_STR(log_kept(log_kept_count() - 1), "label a?unionroot: forged?[2J x? here");
}

UNIT_SUITE(log, { "a label cannot forge a log line", a_label_cannot_forge_a_log_line });
