// SPDX-License-Identifier: MIT
/* The status record's lines: whatever bytes a label, a path or a message
 * holds stay on their own line, and read back as they were written. */
#include <errno.h>
#include <string.h>

#include "lib/record.h"
#include "unit.h"

static void a_newline_in_a_label_cannot_add_a_line(void)
{
	static char text[512], val[512];
	const char *p = text;
	struct record_line l;
	struct sbuf sb;

	sbuf_init(&sb, text, sizeof(text));
	record_addf(&sb, "lower1=%s /dev/sr0", "label:X\nbackend=evil");
	record_addf(&sb, "backend=%s", "overlay");
	CHECK_INT(sbuf_done(&sb), 0);
	CHECK(record_next(&p, &l));
	CHECK(l.key_len == 6 && memcmp(l.key, "lower1", 6) == 0);
	CHECK_INT(record_unescape(l.val, l.val_len, val), strlen("label:X\nbackend=evil /dev/sr0"));
	CHECK_STR(val, "label:X\nbackend=evil /dev/sr0");
	CHECK(record_next(&p, &l));
	CHECK(l.key_len == 7 && memcmp(l.key, "backend", 7) == 0);
	CHECK(!record_next(&p, &l));
	CHECK_INT(record_get(text, "backend", val, sizeof(val)), 0);
	CHECK_STR(val, "overlay");
}

static void control_bytes_and_backslashes_are_escaped(void)
{
	char text[128];
	struct sbuf sb;

	sbuf_init(&sb, text, sizeof(text));
	record_addf(&sb, "message=%s", "a\x01\tb\x7f\\c\nd\xff\xc3\xa9\"");
	CHECK_INT(sbuf_done(&sb), 0);
	/* bytes from 0x80 on stay: UTF-8 or not is the reader's concern */
	CHECK_STR(text, "message=a\\x01\\x09b\\x7f\\\\c\\nd\xff\xc3\xa9\"\n");
}

static void every_byte_reads_back_as_written(void)
{
	static char text[2048], val[2048], want[256];
	struct sbuf sb;

	for (int i = 1; i < 256; i++)
		want[i - 1] = (char)i;
	sbuf_init(&sb, text, sizeof(text));
	record_addf(&sb, "upper_state=%s", want);
	record_addf(&sb, "lower1_image=%s\\", "\\x41\\n");
	CHECK_INT(sbuf_done(&sb), 0);
	CHECK_INT(record_get(text, "upper_state", val, sizeof(val)), 0);
	CHECK_STR(val, want);
	CHECK_INT(record_get(text, "lower1_image", val, sizeof(val)), 0);
	CHECK_STR(val, "\\x41\\n\\");
}

static void a_backslash_that_starts_no_escape_reads_as_itself(void)
{
	char val[64];

	CHECK_INT(record_get("k=C:\\dir\\x4g\\xA1\\\n", "k", val, sizeof(val)), 0);
	CHECK_STR(val, "C:\\dir\\x4g\\xA1\\");
	CHECK_INT(record_get("k=\\x00\\x41\n", "k", val, sizeof(val)), 0);
	CHECK(val[0] == '\0' && val[1] == 'A' && val[2] == '\0');
}

static void a_line_that_does_not_fit_is_left_out_whole(void)
{
	char text[32];
	struct sbuf sb;

	sbuf_init(&sb, text, sizeof(text));
	record_addf(&sb, "backend=%s", "overlay");
	record_addf(&sb, "message=%s", "a message longer than the rest");
	record_addf(&sb, "reset=%s", "none");
	CHECK_INT(sbuf_done(&sb), -ENAMETOOLONG);
	CHECK_STR(text, "backend=overlay\n");
}

static void a_line_whose_key_is_not_a_name_is_skipped(void)
{
	const char *p = "bad key=1\n=2\nx\x01=3\nmessage\n\xff=4\nlower1_id=5\ncut=6";
	struct record_line l;
	char val[16];

	CHECK(record_next(&p, &l));
	CHECK(l.key_len == 9 && memcmp(l.key, "lower1_id", 9) == 0);
	CHECK(!record_next(&p, &l)); /* a cut last line is not read */
	CHECK_INT(record_get("k=12345678\n", "k", val, 8), -ENAMETOOLONG);
	CHECK_INT(record_get("k=1234567\n", "k", val, 8), 0);
	CHECK_INT(record_get("k=1234567\n", "j", val, 8), -ENOENT);
}

UNIT_SUITE(record,
	   { "a newline in a label cannot add a line to the record", a_newline_in_a_label_cannot_add_a_line },
	   { "control bytes and backslashes are escaped, bytes from 0x80 kept", control_bytes_and_backslashes_are_escaped },
	   { "every byte reads back as written", every_byte_reads_back_as_written },
	   { "a backslash that starts no escape reads as itself", a_backslash_that_starts_no_escape_reads_as_itself },
	   { "a line that does not fit is left out whole", a_line_that_does_not_fit_is_left_out_whole },
	   { "a line whose key is not a name is skipped", a_line_whose_key_is_not_a_name_is_skipped });
