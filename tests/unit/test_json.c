// SPDX-License-Identifier: MIT
/* `unionroot status --json`: valid JSON (RFC 8259, UTF-8) whatever bytes a
 * label or a path holds, and every key once. */
#include <string.h>

#include "../fuzz/jsoncheck.h"
#include "cmd/json.h"
#include "lib/record.h"
#include "unit.h"

static char json_text[1 << 16];
static struct jc checker;

static void put_sbuf(void *ctx, const char *s, size_t n)
{
	sbuf_addn(ctx, s, n);
}

/* The JSON of one string. */
static const char *str(const char *s, size_t n)
{
	static char text[256];
	struct json_obj o;
	struct sbuf sb;

	sbuf_init(&sb, text, sizeof(text));
	json_open(&o, put_sbuf, &sb);
	json_str(&o, s, n);
	return sbuf_done(&sb) == 0 ? text : "(too long)";
}

struct seen {
	unsigned n;
	char key[8][32];
	char val[8][128];
};

static void see(void *ctx, const char *key, size_t klen, const char *val, size_t vlen)
{
	struct seen *s = ctx;

	if (s->n < 8 && klen < 32 && vlen < 128) {
		memcpy(s->key[s->n], key, klen);
		memcpy(s->val[s->n], val, vlen);
		s->key[s->n][klen] = s->val[s->n][vlen] = '\0';
	}
	s->n++;
}

/* The status record's text as JSON, checked; its fields into *seen. */
static int record_json(const char *text, struct seen *seen)
{
	struct json_obj o;
	struct sbuf sb;

	memset(seen, 0, sizeof(*seen));
	sbuf_init(&sb, json_text, sizeof(json_text));
	json_open(&o, put_sbuf, &sb);
	json_record(&o, text);
	json_close(&o);
	if (sbuf_done(&sb) < 0)
		return -1;
	return jc_check(&checker, json_text, sb.len, see, seen);
}

static void strings_are_escaped_as_rfc_8259_says(void)
{
	CHECK_STR(str("a\"b\\c", 5), "\"a\\\"b\\\\c\"");
	CHECK_STR(str("\n\x01\x1f\x7f", 4), "\"\\u000a\\u0001\\u001f\x7f\"");
	CHECK_STR(str("a\0b", 3), "\"a\\u0000b\"");
	/* valid UTF-8 as it is, up to U+10FFFF */
	CHECK_STR(str("\xc3\xa9\xe2\x82\xac\xf4\x8f\xbf\xbf", 9), "\"\xc3\xa9\xe2\x82\xac\xf4\x8f\xbf\xbf\"");
}

static void invalid_utf8_is_replaced_byte_by_byte(void)
{
	/* a stray byte, a cut sequence, an overlong '/', a surrogate, past U+10FFFF */
	CHECK_STR(str("\xff", 1), "\"\\ufffd\"");
	CHECK_STR(str("a\xc3", 2), "\"a\\ufffd\"");
	CHECK_STR(str("\xe2\x82z", 3), "\"\\ufffd\\ufffdz\"");
	CHECK_STR(str("\xc0\xaf", 2), "\"\\ufffd\\ufffd\"");
	CHECK_STR(str("\xed\xa0\x80", 3), "\"\\ufffd\\ufffd\\ufffd\"");
	CHECK_STR(str("\xf4\x90\x80\x80", 4), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
}

/* A FAT label and a path with what a hostile stick can put there. */
static void a_hostile_label_gives_valid_json_and_no_key_of_its_own(void)
{
	static char text[1024];
	struct seen seen;
	struct sbuf sb;

	sbuf_init(&sb, text, sizeof(text));
	record_addf(&sb, "lower1=%s /dev/sdb1 vfat", "label:A\"\nbackend=none\x01\xff");
	record_addf(&sb, "backend=%s", "overlay");
	record_addf(&sb, "message=%s", "no medium labelled 'B\\\xc3' found");
	CHECK_INT(sbuf_done(&sb), 0);
	CHECK_INT(record_json(text, &seen), 0);
	CHECK_INT(seen.n, 3);
	CHECK_STR(seen.key[0], "lower1");
	CHECK_STR(seen.val[0], "label:A\"\nbackend=none\x01\xef\xbf\xbd /dev/sdb1 vfat");
	CHECK_STR(seen.key[1], "backend");
	CHECK_STR(seen.val[1], "overlay");
	CHECK_STR(seen.key[2], "messages");
	CHECK_STR(seen.val[2], "no medium labelled 'B\\\xef\xbf\xbd' found");
}

static void a_key_the_record_repeats_is_given_once(void)
{
	struct seen seen;

	CHECK_INT(record_json("backend=overlay\nupper=none\nbackend=copy-up\nmessages=x\n"
			      "message=one\nmessage=two\n",
			      &seen),
		  0);
	/* the first wins; a second "messages", the array, would fail jc_check */
	CHECK_INT(seen.n, 3);
	CHECK_STR(seen.key[0], "backend");
	CHECK_STR(seen.val[0], "overlay");
	CHECK_STR(seen.key[1], "upper");
	CHECK_STR(seen.key[2], "messages");
	CHECK_STR(seen.val[2], "x");
}

static void an_empty_record_is_an_empty_object(void)
{
	struct seen seen;

	CHECK_INT(record_json("", &seen), 0);
	CHECK_STR(json_text, "{\n}\n");
}

UNIT_SUITE(json, { "strings are escaped as RFC 8259 says", strings_are_escaped_as_rfc_8259_says },
	   { "invalid UTF-8 is replaced byte by byte with U+FFFD", invalid_utf8_is_replaced_byte_by_byte },
	   { "a hostile label gives valid JSON and no key of its own",
	     a_hostile_label_gives_valid_json_and_no_key_of_its_own },
	   { "a key the record repeats is given once", a_key_the_record_repeats_is_given_once },
	   { "an empty record is an empty object", an_empty_record_is_an_empty_object });
