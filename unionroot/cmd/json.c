// SPDX-License-Identifier: MIT
/* JSON output: strings per RFC 8259 (quote, backslash and control bytes
 * escaped, invalid UTF-8 replaced), each key once; the status record as an
 * object's fields. A label or a path read from a device can hold any byte. */
#include "cmd/json.h"

#include <string.h>

#include "lib/record.h"

static char value[RECORD_MAX];

void json_open(struct json_obj *o, fmt_put_fn *put, void *ctx)
{
	o->put = put;
	o->ctx = ctx;
	o->fields = 0;
}

void json_raw(struct json_obj *o, const char *s)
{
	o->put(o->ctx, s, strlen(s));
}

/* The length of the valid UTF-8 sequence at s (n > 0 bytes): 0 for none
 * (a stray or cut sequence, an overlong form, a surrogate, past U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t need = s[0] < 0x80 ? 0 : s[0] < 0xc2 ? 4 : s[0] < 0xe0 ? 1 : s[0] < 0xf0 ? 2 :
		      s[0] < 0xf5 ? 3 : 4;
	unsigned long cp = s[0] & (0x7fu >> need);

	if (need > 3 || need >= n)
		return 0;
	for (size_t i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((need == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (need == 3 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return need + 1;
}

void json_str(struct json_obj *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t run = 0, k;

	json_raw(o, "\"");
	for (size_t i = 0; i < n; i += k) {
		unsigned char c = (unsigned char)s[i];
		char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
		const char *rep = esc;
		size_t len = 6;

		k = utf8_len((const unsigned char *)s + i, n - i);
		if (c == '"' || c == '\\') {
			esc[1] = (char)c;
			len = 2;
		} else if (!k) {
			rep = "\\ufffd";
			k = 1;
		} else if (c >= 0x20) {
			continue;
		}
		o->put(o->ctx, s + run, i - run);
		o->put(o->ctx, rep, len);
		run = i + k;
	}
	o->put(o->ctx, s + run, n - run);
	json_raw(o, "\"");
}

int json_key(struct json_obj *o, const char *key, size_t n)
{
	for (unsigned i = 0; i < o->fields; i++)
		if (o->key_len[i] == n && memcmp(o->key[i], key, n) == 0)
			return 0;
	if (o->fields == JSON_KEYS_MAX)
		return 0;
	o->key[o->fields] = key;
	o->key_len[o->fields] = n;
	json_raw(o, o->fields++ ? ",\n  " : "{\n  ");
	json_str(o, key, n);
	json_raw(o, ": ");
	return 1;
}

void json_close(struct json_obj *o)
{
	json_raw(o, o->fields ? "\n}\n" : "{\n}\n");
}

void json_record(struct json_obj *o, const char *text)
{
	struct record_line l;
	const char *p = text;
	int msgs = 0;

	while (record_next(&p, &l)) {
		if (l.key_len == 7 && memcmp(l.key, "message", 7) == 0)
			continue;
		if (json_key(o, l.key, l.key_len))
			json_str(o, value, record_unescape(l.val, l.val_len, value));
	}
	for (p = text; record_next(&p, &l);) {
		if (l.key_len != 7 || memcmp(l.key, "message", 7) != 0)
			continue;
		if (!msgs++ && !json_key(o, "messages", 8))
			return;
		json_raw(o, msgs > 1 ? ",\n    " : "[\n    ");
		json_str(o, value, record_unescape(l.val, l.val_len, value));
	}
	if (msgs)
		json_raw(o, "\n  ]");
}
