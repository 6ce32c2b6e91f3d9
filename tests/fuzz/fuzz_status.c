// SPDX-License-Identifier: MIT
/* libFuzzer target for the status record and `unionroot status --json`, as a
 * pair. The input, split at NUL bytes, is fields (a key the first byte
 * picks, then any bytes as the value, as a label or a path may hold): what
 * the writer takes reads back field by field, and its JSON is valid, has
 * each key once, the first line's value, invalid UTF-8 as U+FFFD. The input
 * as a record's text, whatever it holds, gives valid JSON too. */
#include "cmd/json.h"
#include "jsoncheck.h"
#include "lib/record.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FIELDS_MAX 512

/* keys the record has, and two the JSON makes itself */
static const char *const keys[] = {
	"backend", "lower1", "lower1_image", "upper", "upper_state", "message",
	"messages", "reset_keep", "warnfull", "pid1_ms", "lower2_id", "k",
};

struct field {
	const char *key;
	const char *val;
	size_t len;
};

struct expect {
	struct field f[FIELDS_MAX + 1];
	unsigned n, at;
	char buf[1 << 16]; /* the values as JSON should hold them */
	size_t used;
};

static char text[RECORD_MAX], val[RECORD_MAX], json[1 << 16], input[RECORD_MAX * 2];
static struct jc checker;
static struct expect want;

static void put_sbuf(void *ctx, const char *s, size_t n)
{
	sbuf_addn(ctx, s, n);
}

/* What a JSON string of s holds: each byte that starts no valid UTF-8
 * sequence (by jsoncheck's own decoder) as U+FFFD. */
static const char *sanitized(const char *s, size_t n, size_t *len)
{
	char *out = want.buf + want.used;
	size_t k;

	*len = 0;
	for (size_t i = 0; i < n; i += k) {
		unsigned long cp;

		if (want.used + *len + 3 > sizeof(want.buf))
			__builtin_trap();
		k = jc_utf8((const unsigned char *)s + i, n - i, &cp);
		if (k) {
			memcpy(out + *len, s + i, k);
			*len += k;
		} else {
			memcpy(out + *len, "\xef\xbf\xbd", 3);
			*len += 3;
			k = 1;
		}
	}
	want.used += *len;
	return out;
}

static void expect(const char *key, const char *s, size_t n)
{
	if (want.n == FIELDS_MAX + 1)
		__builtin_trap();
	want.f[want.n].key = key;
	want.f[want.n].val = sanitized(s, n, &want.f[want.n].len);
	want.n++;
}

/* jsoncheck's callback: the next field is the one expected */
static void seen(void *ctx, const char *key, size_t klen, const char *s, size_t n)
{
	const struct field *f = &want.f[want.at];

	(void)ctx;
	if (want.at++ >= want.n || strlen(f->key) != klen || memcmp(f->key, key, klen) != 0 ||
	    f->len != n || memcmp(f->val, s, n) != 0)
		__builtin_trap();
}

static size_t to_json(const char *record, jc_field_fn *fn)
{
	static struct json_obj o;
	struct sbuf sb;

	sbuf_init(&sb, json, sizeof(json));
	json_open(&o, put_sbuf, &sb);
	json_record(&o, record);
	json_close(&o);
	if (sbuf_done(&sb) < 0 || jc_check(&checker, json, sb.len, fn, NULL) < 0)
		__builtin_trap();
	return sb.len;
}

/* Any text as the record: the reader's lines decode, and escaped again
 * decode to the same; the JSON is valid. */
static void any_text(const uint8_t *data, size_t size)
{
	static char again[RECORD_MAX * 4 + 1], val2[RECORD_MAX * 4 + 1];
	const char *p = input;
	struct record_line l;
	struct sbuf sb;
	size_t n = 0;

	for (size_t i = 0; i < size && n < sizeof(text) - 1; i++)
		if (data[i])
			input[n++] = (char)data[i];
	input[n] = '\0';
	while (record_next(&p, &l)) {
		size_t len = record_unescape(l.val, l.val_len, val);

		sbuf_init(&sb, again, sizeof(again));
		record_escape(put_sbuf, &sb, val, len);
		if (sbuf_done(&sb) < 0 || record_unescape(again, sb.len, val2) != len ||
		    memcmp(val, val2, len) != 0)
			__builtin_trap();
	}
	(void)to_json(input, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct field wrote[FIELDS_MAX];
	const char *p, *key, *end = input + size;
	unsigned n = 0, i, messages = 0;
	struct record_line l;
	struct sbuf sb;

	if (size >= sizeof(input))
		return 0;
	any_text(data, size);

	/* fields through the writer: "KEY=VALUE" with a key of the table */
	memcpy(input, data, size);
	input[size] = '\0';
	sbuf_init(&sb, text, sizeof(text));
	for (p = input; p < end && n < FIELDS_MAX; p += strlen(p) + 1) {
		if (!*p)
			continue;
		key = keys[(unsigned char)*p % (sizeof(keys) / sizeof(keys[0]))];
		record_addf(&sb, "%s=%s", key, p + 1);
		if (sbuf_done(&sb) < 0)
			break; /* that line was left out, and so is any after it */
		wrote[n].key = key;
		wrote[n].val = p + 1;
		wrote[n++].len = strlen(p + 1);
	}
	/* the record: each line's key, then a value with no raw control byte */
	for (size_t k = 0; k < sb.len; k++)
		if (((unsigned char)text[k] < 0x20 && text[k] != '\n') || text[k] == 0x7f)
			__builtin_trap();
	/* it reads back field by field, nothing more */
	p = text;
	for (i = 0; record_next(&p, &l); i++) {
		size_t len = record_unescape(l.val, l.val_len, val);

		if (i >= n || strlen(wrote[i].key) != l.key_len ||
		    memcmp(wrote[i].key, l.key, l.key_len) != 0 || len != wrote[i].len ||
		    memcmp(val, wrote[i].val, len) != 0)
			__builtin_trap();
	}
	if (i != n || (n && record_get(text, wrote[0].key, val, sizeof(val)) < 0))
		__builtin_trap();

	/* the JSON: each key once, the first line's value, then the messages */
	want.n = want.at = 0;
	want.used = 0;
	for (i = 0; i < n; i++) {
		unsigned k;

		if (strcmp(wrote[i].key, "message") == 0) {
			messages++;
			continue;
		}
		for (k = 0; k < i && strcmp(wrote[k].key, wrote[i].key) != 0; k++)
			;
		if (k == i)
			expect(wrote[i].key, wrote[i].val, wrote[i].len);
	}
	for (i = 0; i < want.n && strcmp(want.f[i].key, "messages") != 0; i++)
		;
	if (i == want.n) /* else the record's own "messages" came first */
		for (unsigned k = 0; k < n && messages; k++)
			if (strcmp(wrote[k].key, "message") == 0)
				expect("messages", wrote[k].val, wrote[k].len);
	(void)to_json(text, seen);
	if (want.at != want.n)
		__builtin_trap();
	return 0;
}
