/* SPDX-License-Identifier: MIT */
/* One JSON object written as it goes, through a put function: `unionroot
 * status --json`. */
#ifndef UNIONROOT_JSON_H
#define UNIONROOT_JSON_H

#include <stddef.h>

#include "defs.h"
#include "fmt.h"

struct json_obj {
	fmt_put_fn *put;
	void *ctx;
	unsigned fields;
};

void json_open(struct json_obj *o, fmt_put_fn *put, void *ctx);
/* Writes the key of the next field (n bytes): 1, then the caller writes its
 * value. */
int json_key(struct json_obj *o, const char *key, size_t n) WUR;
/* A string value of n bytes. */
void json_str(struct json_obj *o, const char *s, size_t n);
/* Text written as it is: an array's brackets and commas. */
void json_raw(struct json_obj *o, const char *s);
/* Ends the object (and the line). */
void json_close(struct json_obj *o);
/* The status record's fields, values as strings; its message= lines as the
 * array "messages". */
void json_record(struct json_obj *o, const char *text);

#endif
