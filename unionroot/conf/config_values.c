// SPDX-License-Identifier: MIT
/* The shapes a configuration value may take: a whole number in a range, a
 * file system type's name, mount options, a tmpfs size, a byte count;
 * and the lists of names an enum value or a peer's parameter is one of. */
#include "conf/config_values.h"

#include <errno.h>
#include <string.h>

#include "conf/config.h"

int config_uint(const char *v, int min, int max, int *out)
{
	long n = 0;

	if (!*v)
		return -EINVAL;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return -EINVAL;
		n = n * 10 + (*v - '0');
		if (n > max)
			return -ERANGE;
	}
	if (n < min)
		return -ERANGE;
	*out = (int)n;
	return 0;
}

int config_is_word(const char *v)
{
	if (!*v)
		return 0;
	for (; *v; v++)
		if (!((*v >= 'a' && *v <= 'z') || (*v >= '0' && *v <= '9') || *v == '_' || *v == '.'))
			return 0;
	return 1;
}

int config_is_opts(const char *v)
{
	for (; *v; v++)
		if ((unsigned char)*v <= 0x20 || (unsigned char)*v >= 0x7f)
			return 0;
	return 1;
}

int config_is_size(const char *v)
{
	int n;
	size_t len = strlen(v);
	char digits[16];

	if (len == 0 || len >= sizeof(digits))
		return 0;
	memcpy(digits, v, len + 1);
	if (digits[len - 1] == '%') {
		digits[len - 1] = '\0';
		return config_uint(digits, 1, 100, &n) == 0;
	}
	if (strchr("kKmMgG", digits[len - 1]))
		digits[len - 1] = '\0';
	return config_uint(digits, 1, 999999999, &n) == 0;
}

int config_bytes(const char *v, uint64_t *out)
{
	static const char units[] = "KMGT";
	uint64_t n = 0;
	const char *u;

	if (*v < '0' || *v > '9')
		return -EINVAL;
	for (; *v >= '0' && *v <= '9'; v++) {
		if (n > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		n = n * 10 + (uint64_t)(*v - '0');
	}
	u = *v ? strchr(units, *v >= 'a' ? *v - 32 : *v) : NULL;
	if (*v && (!u || v[1]))
		return -EINVAL;
	for (const char *k = units; u && k <= u; k++) {
		if (n > UINT64_MAX >> 10)
			return -ERANGE;
		n <<= 10;
	}
	*out = n;
	return 0;
}

const char *config_name_nth(const char *list, size_t i)
{
	for (; *list && i; i--)
		list += strlen(list) + 1;
	return *list ? list : NULL;
}

int config_name_index(const char *list, const char *v)
{
	const char *n;

	for (size_t i = 0; (n = config_name_nth(list, i)); i++)
		if (strcmp(n, v) == 0)
			return (int)i;
	return -1;
}
