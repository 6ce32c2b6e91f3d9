/* SPDX-License-Identifier: MIT */
/* Decimal numbers and substring search in a few dozen bytes each: musl's
 * strtol family (2.5 KB with its scanner) and its two-way strstr (1.3 KB)
 * do far more than the short sysfs, /proc and state texts read here. */
#ifndef UNIONROOT_STRNUM_H
#define UNIONROOT_STRNUM_H

#include <stdint.h>

#include "lib/defs.h"

/* Reads the decimal digits at *p into *out and moves *p past them. No sign,
 * no leading space; at most 19 digits are taken (no overflow), any further
 * digit stays at *p for the caller's end check. Returns the number of digits
 * read: 0 when *p does not start with one (*out is then 0). */
int num_u64(const char **p, uint64_t *out);
/* The first occurrence of needle in s, or NULL (an empty needle: s). */
char *str_find(const char *s, const char *needle);
/* Whether word is one of the space-separated words of list (an empty word
 * never is; one holding a space matches the words it spans). A constant
 * list of names as one string needs no relocation under static-pie, where
 * an array of pointers needs one per name. */
int str_has_word(const char *list, const char *word);

#endif
