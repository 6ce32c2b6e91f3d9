/* SPDX-License-Identifier: MIT */
/* One JSON object written as it goes, through a put function: `unionroot
 * status --json`. Valid RFC 8259 whatever the bytes: strings escape '"',
 * '\\' and control bytes (\u00XX), and each byte that starts no valid UTF-8
 * sequence becomes U+FFFD (\ufffd); a key is written once, the first time. */
#ifndef UNIONROOT_JSON_H
#define UNIONROOT_JSON_H

#include <stddef.h>

#include "lib/defs.h"
#include "lib/fmt.h"

/* more keys than the status record and the live state have */
#define JSON_KEYS_MAX 256

struct json_obj {
	fmt_put_fn *put;
	void *ctx;
	unsigned fields;
	const char *key[JSON_KEYS_MAX]; /* those written, which outlive the object */
	size_t key_len[JSON_KEYS_MAX];
};

void json_open(struct json_obj *o, fmt_put_fn *put, void *ctx);
/* Writes the key of the next field (n bytes, which stay valid until
 * json_close): 1, then the caller writes its value; 0 when the object has
 * that key already or has JSON_KEYS_MAX keys: nothing written, the field is
 * left out. */
int json_key(struct json_obj *o, const char *key, size_t n) WUR;
/* A string value of n bytes. */
void json_str(struct json_obj *o, const char *s, size_t n);
/* Text written as it is: an array's brackets and commas. */
void json_raw(struct json_obj *o, const char *s);
/* Ends the object (and the line). */
void json_close(struct json_obj *o);
/* The status record's fields (text stays valid until json_close), values
 * as strings; its message= lines as the array "messages". */
void json_record(struct json_obj *o, const char *text);

#endif
