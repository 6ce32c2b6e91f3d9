// SPDX-License-Identifier: MIT
/* The line walker under the state, request, keep and /proc/mtd parsers:
 * a cut last line is seen as unterminated, and strict copies refuse it. */
#include <errno.h>

#include "lib/lines.h"
#include "unit.h"

static void lines_come_out_with_their_lengths(void)
{
	const char *p = "one\n\nthree";
	struct line l;

	CHECK_INT(line_next(&p, &l), 1);
	CHECK_INT(l.len, 3);
	CHECK(strncmp(l.s, "one", 3) == 0);
	CHECK_INT(l.terminated, 1);
	CHECK_INT(line_next(&p, &l), 1);
	CHECK_INT(l.len, 0);
	CHECK_INT(line_next(&p, &l), 1);
	CHECK_INT(l.len, 5);
	CHECK_INT(l.terminated, 0);
	CHECK_INT(line_next(&p, &l), 0);
}

static void strict_copies_refuse_cut_and_long_lines(void)
{
	const char *p = "0123456789\nshort\ncut";
	char buf[8];
	struct line l;

	CHECK_INT(line_next(&p, &l), 1);
	CHECK_INT(line_copy_strict(&l, buf, sizeof(buf)), -EINVAL);
	CHECK_INT(line_next(&p, &l), 1);
	CHECK_INT(line_copy_strict(&l, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "short");
	CHECK_INT(line_next(&p, &l), 1);
	CHECK_INT(line_copy_strict(&l, buf, sizeof(buf)), -EINVAL);
}

static int count_line(const char *line, void *ctx)
{
	(*(int *)ctx)++;
	return strcmp(line, "bad") == 0 ? -EINVAL : 0;
}

static void a_strict_file_needs_its_magic_first_and_every_line_whole(void)
{
	char buf[16];
	int n = 0;

	CHECK_INT(lines_strict("magic 1\na\nb\n", "magic 1", buf, sizeof(buf), count_line, &n), 0);
	CHECK_INT(n, 2);
	CHECK_INT(lines_strict("magic 1\n", "magic 1", buf, sizeof(buf), count_line, &n), 0);
	CHECK_INT(n, 2);
	CHECK_INT(lines_strict("", "magic 1", buf, sizeof(buf), count_line, &n), -EINVAL);
	CHECK_INT(lines_strict("magic 2\na\n", "magic 1", buf, sizeof(buf), count_line, &n), -EINVAL);
	CHECK_INT(n, 2); /* nothing after a wrong magic is looked at */
	CHECK_INT(lines_strict("magic 1\na\nb", "magic 1", buf, sizeof(buf), count_line, &n), -EINVAL);
	CHECK_INT(lines_strict("magic 1\nbad\n", "magic 1", buf, sizeof(buf), count_line, &n), -EINVAL);
	CHECK_INT(lines_strict("magic 1\n0123456789abcdef\n", "magic 1", buf, sizeof(buf), count_line, &n),
		  -EINVAL);
}

/* an index's table is sized by its lines: a last line without '\n' counts */
static void lines_are_counted_as_the_walk_finds_them(void)
{
	CHECK_INT(lines_count(""), 0);
	CHECK_INT(lines_count("\n"), 1);
	CHECK_INT(lines_count("a"), 1);
	CHECK_INT(lines_count("a\nb"), 2);
	CHECK_INT(lines_count("a\n\nb\n"), 3);
}

UNIT_SUITE(lines,
	   { "lines come out with their lengths", lines_come_out_with_their_lengths },
	   { "lines are counted as the walk finds them", lines_are_counted_as_the_walk_finds_them },
	   { "strict copies refuse cut and long lines", strict_copies_refuse_cut_and_long_lines },
	   { "a strict file needs its magic first and every line whole",
	     a_strict_file_needs_its_magic_first_and_every_line_whole });
