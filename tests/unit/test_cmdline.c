// SPDX-License-Identifier: MIT
/* The kernel command line tokenizer: quotes, bare words, "--", odd bytes. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conf/cmdline.h"
#include "unit.h"

struct seen {
	unsigned n;
	char keys[16][64];
	char vals[16][64];
	int has_val[16];
};

static void collect(const char *key, const char *val, void *ctx)
{
	struct seen *s = ctx;

	if (s->n >= 16)
		return;
	snprintf(s->keys[s->n], 64, "%s", key);
	s->has_val[s->n] = val != NULL;
	snprintf(s->vals[s->n], 64, "%s", val ? val : "");
	s->n++;
}

static void plain_words_and_values(void)
{
	char line[] = "console=ttyS0 quiet  union.upper=LABEL=data ro\n";
	struct seen s = { 0 };

	CHECK_INT(cmdline_split(line, collect, &s), 4);
	CHECK_STR(s.keys[0], "console");
	CHECK_STR(s.vals[0], "ttyS0");
	CHECK_STR(s.keys[1], "quiet");
	CHECK(!s.has_val[1]);
	CHECK_STR(s.keys[2], "union.upper");
	CHECK_STR(s.vals[2], "LABEL=data");
	CHECK_STR(s.keys[3], "ro");
}

static void quoted_values_keep_their_spaces(void)
{
	char line[] = "union.upper=\"LABEL=my data\" \"union.lower=LABEL=a b\" x=\"\"";
	struct seen s = { 0 };

	CHECK_INT(cmdline_split(line, collect, &s), 3);
	CHECK_STR(s.vals[0], "LABEL=my data");
	CHECK_STR(s.keys[1], "union.lower");
	CHECK_STR(s.vals[1], "LABEL=a b");
	CHECK_STR(s.keys[2], "x");
	CHECK_STR(s.vals[2], "");
	CHECK(s.has_val[2]);
}

static void everything_after_double_dash_is_for_init(void)
{
	char line[] = "quiet -- single union.reset=1";
	struct seen s = { 0 };

	CHECK_INT(cmdline_split(line, collect, &s), 1);
	CHECK_STR(s.keys[0], "quiet");
}

static void an_unterminated_quote_ends_at_the_end(void)
{
	char line[] = "a=\"b c d";
	struct seen s = { 0 };

	CHECK_INT(cmdline_split(line, collect, &s), 1);
	CHECK_STR(s.keys[0], "a");
	CHECK_STR(s.vals[0], "b c d");
}

static void empty_and_blank_lines_yield_nothing(void)
{
	char empty[] = "", blank[] = " \t\n ", quotes[] = "\"\"";
	struct seen s = { 0 };

	CHECK_INT(cmdline_split(empty, collect, &s), 0);
	CHECK_INT(cmdline_split(blank, collect, &s), 0);
	CHECK_INT(cmdline_split(quotes, collect, &s), 0);
}

static void comments_are_blanked_to_the_end_of_the_line(void)
{
	char text[] = "# board\nunion.wait=5 # five\nunion.upper=tmpfs\n";
	struct seen s = { 0 };

	cmdline_strip_comments(text);
	CHECK_INT(cmdline_split(text, collect, &s), 2);
	CHECK_STR(s.vals[0], "5");
	CHECK_STR(s.vals[1], "tmpfs");
}

static void module_names_treat_dash_and_underscore_alike(void)
{
	CHECK(modname_eq("usb-storage", 11, "usb_storage", 11));
	CHECK(!modname_eq("usb_storage", 11, "usb_storag", 10));
	CHECK(!modname_eq("ext4", 4, "ext2", 4));
}

/* A temporary file holding text (a stand-in for /proc/cmdline), open for
 * reading at its start; -1 when it cannot be made. */
static int cmdline_file(const char *text)
{
	FILE *f = tmpfile();
	int fd = -1;

	if (f && fputs(text, f) >= 0 && fflush(f) == 0)
		fd = dup(fileno(f));
	if (f)
		fclose(f);
	if (fd >= 0 && lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* A command line longer than the buffer is kept up to its last whole word,
 * and a union.verity past that point is noticed, never silently lost. */
static void a_long_command_line_is_cut_at_a_word(void)
{
	static char text[6000], buf[4097];
	struct cmdline_cut cut;
	size_t n = 0;
	int fd;

	while (n < 4090)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "mod.p%zu=1 ", n);
	snprintf(text + n, sizeof(text) - n, "union.verity=abcd quiet\n");
	fd = cmdline_file(text);
	CHECK_INT(cmdline_read(fd, buf, sizeof(buf), &cut), 0);
	close(fd);
	CHECK(cut.cut);
	CHECK(cut.verity);
	CHECK_INT((int)cut.kept, (int)strlen(buf));
	CHECK(cut.kept <= 4096 && cut.kept > 4000);
	CHECK(buf[cut.kept - 1] == ' ');
	CHECK(strncmp(text, buf, cut.kept) == 0);
	CHECK(strstr(buf, "union.verity") == NULL);

	/* union.verity read, the cut elsewhere: nothing is refused for it */
	memcpy(text, "union.verity=abcd ", 18);
	snprintf(text + n, sizeof(text) - n, "quiet union.verityx=1 xunion.verity=1 union.verity.onerror=eio\n");
	fd = cmdline_file(text);
	CHECK_INT(cmdline_read(fd, buf, sizeof(buf), &cut), 0);
	close(fd);
	CHECK(cut.cut);
	CHECK(!cut.verity); /* union.verityx is another word */
	CHECK(strncmp(buf, "union.verity=abcd ", 18) == 0);

	/* the last word, bare */
	snprintf(text + n, sizeof(text) - n, "quiet union.verity");
	fd = cmdline_file(text);
	CHECK_INT(cmdline_read(fd, buf, sizeof(buf), &cut), 0);
	close(fd);
	CHECK(cut.verity);

	/* short: whole, nothing cut */
	fd = cmdline_file("union.lower=/dev/vda quiet\n");
	CHECK_INT(cmdline_read(fd, buf, sizeof(buf), &cut), 0);
	close(fd);
	CHECK(!cut.cut);
	CHECK_STR(buf, "union.lower=/dev/vda quiet\n");
}

UNIT_SUITE(cmdline,
	   { "plain words and values", plain_words_and_values },
	   { "quoted values keep their spaces", quoted_values_keep_their_spaces },
	   { "everything after -- is for init", everything_after_double_dash_is_for_init },
	   { "an unterminated quote ends at the end", an_unterminated_quote_ends_at_the_end },
	   { "empty and blank lines yield nothing", empty_and_blank_lines_yield_nothing },
	   { "comments are blanked to the end of the line", comments_are_blanked_to_the_end_of_the_line },
	   { "module names treat - and _ alike", module_names_treat_dash_and_underscore_alike },
	   { "a long command line is cut at a word", a_long_command_line_is_cut_at_a_word });
