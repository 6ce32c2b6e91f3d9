// SPDX-License-Identifier: MIT
/* The decimal reader and substring search that stand in for strtoul and
 * strstr: where they stop, what they refuse, and that they agree with libc. */
#include <stdlib.h>

#include "lib/strnum.h"
#include "unit.h"

static void numbers_stop_at_the_first_non_digit(void)
{
	const char *p = "8:16\n";
	uint64_t v = 7;

	CHECK_INT(num_u64(&p, &v), 1);
	CHECK(v == 8 && *p == ':');
	p++;
	CHECK_INT(num_u64(&p, &v), 2);
	CHECK(v == 16 && *p == '\n');
	p = "18446744073709551615";
	CHECK_INT(num_u64(&p, &v), 19);
	CHECK(v == 1844674407370955161u && *p == '5'); /* the 20th digit is left for the end check */
	p = "4\t4\t1\t7";
	CHECK_INT(num_u64(&p, &v), 1);
	CHECK(v == (uint64_t)atoi("4\t4\t1\t7"));
}

static void no_digit_reads_nothing(void)
{
	const char *p = " 12", *q = "-1", *e = "";
	uint64_t v = 7;

	CHECK_INT(num_u64(&p, &v), 0);
	CHECK(v == 0 && *p == ' ');
	CHECK_INT(num_u64(&q, &v), 0);
	CHECK(*q == '-');
	CHECK_INT(num_u64(&e, &v), 0);
}

static void substrings_are_found_as_strstr_finds_them(void)
{
	static const char *const cases[][2] = {
		{ "nodev\toverlay\n", "\toverlay\n" }, { "nodev\toverlay", "\toverlay\n" },
		{ "kernel/fs/ext4.ko.xz: crc", ".ko" }, { "aaab", "aab" }, { "ab", "abc" },
		{ "", "x" }, { "x", "" }, { "", "" }, { "pre: a post: b", "post:" },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(str_find(cases[i][0], cases[i][1]) == strstr(cases[i][0], cases[i][1]));
}

static void a_word_is_found_only_whole(void)
{
	static const char list[] = "vfat msdos exfat ntfs ntfs3";

	CHECK_INT(str_has_word(list, "vfat"), 1);
	CHECK_INT(str_has_word(list, "exfat"), 1);
	CHECK_INT(str_has_word(list, "ntfs3"), 1);
	CHECK_INT(str_has_word(list, "ntfs"), 1);
	CHECK_INT(str_has_word(list, "fat"), 0);
	CHECK_INT(str_has_word(list, "ntf"), 0);
	CHECK_INT(str_has_word(list, "msdos exfat"), 1); /* words are not split */
	CHECK_INT(str_has_word(list, "ext4"), 0);
	CHECK_INT(str_has_word(list, ""), 0);
	CHECK_INT(str_has_word("", "vfat"), 0);
}

UNIT_SUITE(strnum,
	   { "numbers stop at the first non-digit", numbers_stop_at_the_first_non_digit },
	   { "no digit reads nothing", no_digit_reads_nothing },
	   { "substrings are found as strstr finds them", substrings_are_found_as_strstr_finds_them },
	   { "a word of a list is found only whole", a_word_is_found_only_whole });
