// SPDX-License-Identifier: MIT
/* The project's printf versus the C library's, conversion by conversion,
 * and vsnprintf's contract when the output is cut. */
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>

#include "lib/fmt.h"
#include "unit.h"

#define SAME(...)                                                                     \
	do {                                                                          \
		char ours_[160], libc_[160];                                          \
		size_t n_ = fmt_sn(ours_, sizeof(ours_), __VA_ARGS__);                \
		int m_ = snprintf(libc_, sizeof(libc_), __VA_ARGS__);                 \
		if (strcmp(ours_, libc_) != 0 || m_ < 0 || n_ != (size_t)m_) {        \
			unit_failf(__FILE__, __LINE__, "%s: \"%s\" (%zu), libc \"%s\" (%d)", \
				   #__VA_ARGS__, ours_, n_, libc_, m_);               \
			return;                                                       \
		}                                                                     \
	} while (0)

static void strings_and_characters_match_the_c_library(void)
{
	SAME("plain text, no conversion");
	SAME("%s|%-16s|%16s|", "a", "left", "right");
	SAME("%.*s|%.3s|%.0s|", 2, "abcdef", "abcdef", "gone");
	SAME("%-*s|%*s|", 6, "x", -6, "y");
	SAME("%c%c%c|%3c|%-3c|", 'u', 'r', '!', 'a', 'b');
	SAME("100%% sure, %d%%", 90);
	SAME("%s", "");
}

static void integers_match_the_c_library(void)
{
	SAME("%d %d %d %i", 0, -1, INT_MAX, INT_MIN);
	SAME("%u %u %lu %llu", 0u, UINT_MAX, ULONG_MAX, ULLONG_MAX);
	SAME("%ld %lld %lld", LONG_MIN, LLONG_MIN, LLONG_MAX);
	SAME("%zu %jd %td", (size_t)SIZE_MAX, (intmax_t)-42, (ptrdiff_t)-7);
	SAME("%hhu %hhd %hu %hd", 300, 200, 70000, 40000);
	SAME("%x %X %o %02x %04x %08x", 0xbeefu, 0xbeefu, 0755u, 7u, 0xau, 0xdeadu);
	SAME("%016llx %016" PRIx64, 0x1234ULL, (uint64_t)UINT64_MAX);
	SAME("%" PRIu64 " %" PRId64 ".%09" PRIu32, (uint64_t)1 << 40, (int64_t)-5, (uint32_t)1234);
	SAME("[%5d] [%-5d] [%05d] [%+d] [% d] [%+d]", 42, 42, -42, 3, 3, -3);
	SAME("[%.5d] [%8.3d] [%.0d] [%-8.3x]", 42, -7, 0, 0xfu);
	SAME("<%d>unionroot: ", 4);
}

static void cut_output_keeps_a_terminated_prefix_and_the_full_length(void)
{
	char buf[4];

	CHECK_INT(fmt_sn(buf, sizeof(buf), "abc%s", "def"), 6);
	CHECK_STR(buf, "abc");
	CHECK_INT(fmt_sn(buf, sizeof(buf), "%d", 123), 3);
	CHECK_STR(buf, "123");
	CHECK_INT(fmt_sn(buf, sizeof(buf), "%05d", 1), 5);
	CHECK_STR(buf, "000");
	CHECK_INT(fmt_sn(NULL, 0, "%s-%u", "ab", 10u), 5);
}

static void an_unknown_conversion_ends_the_formatting_as_written(void)
{
	char buf[32];

	CHECK_INT(fmt_sn(buf, sizeof(buf), "%d %f then %s", 5, 1.5, "x"), 12);
	CHECK_STR(buf, "5 %f then %s");
}

UNIT_SUITE(fmt, { "strings and characters match the C library", strings_and_characters_match_the_c_library },
	   { "integers match the C library", integers_match_the_c_library },
	   { "a cut output keeps a terminated prefix and the full length",
	     cut_output_keeps_a_terminated_prefix_and_the_full_length },
	   { "an unknown conversion ends the formatting as written",
	     an_unknown_conversion_ends_the_formatting_as_written });
