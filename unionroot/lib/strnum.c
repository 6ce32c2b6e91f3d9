// SPDX-License-Identifier: MIT
/* The decimal reader and substring search of strnum.h: the boot's texts are
 * short, so a plain loop is all they need. */
#include "lib/strnum.h"

#include <string.h>

int num_u64(const char **p, uint64_t *out)
{
	const char *s = *p;
	int n = 0;

	*out = 0;
	for (; n < 19 && *s >= '0' && *s <= '9'; s++, n++)
		*out = *out * 10 + (uint64_t)(*s - '0');
	*p = s;
	return n;
}

/* char * as strstr's, so that callers may cut the text where it matched */
int str_has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; n && (p = str_find(p, word)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

char *str_find(const char *s, const char *needle)
{
	size_t k = strlen(needle);

	for (;; s++) {
		if (strncmp(s, needle, k) == 0)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}
