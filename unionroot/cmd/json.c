// SPDX-License-Identifier: MIT
/* JSON output: a string's quote, backslash and control bytes escaped; the
 * status record as an object's fields. */
#include "json.h"

#include <string.h>

#include "record.h"

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

void json_str(struct json_obj *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	json_raw(o, "\"");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[6] = { '\\', (char)c, '0', '0', hex[c >> 4], hex[c & 15] };

		if (c == '"' || c == '\\') {
			o->put(o->ctx, esc, 2);
		} else if (c < 0x20) {
			esc[1] = 'u';
			o->put(o->ctx, esc, 6);
		} else {
			o->put(o->ctx, s + i, 1);
		}
	}
	json_raw(o, "\"");
}

int json_key(struct json_obj *o, const char *key, size_t n)
{
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
