/* SPDX-License-Identifier: MIT */
/* The shapes of configuration values, checked without side effects. */
#ifndef UNIONROOT_CONFIG_VALUES_H
#define UNIONROOT_CONFIG_VALUES_H

#include <stddef.h>
#include <stdint.h>

/* Decimal digits only, min..max: 0, -EINVAL or -ERANGE. */
int config_uint(const char *v, int min, int max, int *out);
/* A file system type's name: [a-z0-9_.]+. */
int config_is_word(const char *v);
/* Mount options: printable, no space. */
int config_is_opts(const char *v);
/* A tmpfs size: N, NK, NM, NG or 1-100%. */
int config_is_size(const char *v);

/* Lists of names, each NUL-ended, the list ending with an empty name: the
 * i-th, or NULL past the end; the index of v, or -1. */
const char *config_name_nth(const char *list, size_t i);
int config_name_index(const char *list, const char *v);

#endif
