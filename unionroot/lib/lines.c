// SPDX-License-Identifier: MIT
/* Line iteration over in-memory text (control state, reset requests, keep
 * lists, /proc/mtd, modules.builtin, /proc/meminfo). */
#include "lib/lines.h"

#include <errno.h>
#include <string.h>

int line_next(const char **p, struct line *l)
{
	const char *s = *p, *nl;

	if (!*s)
		return 0;
	nl = strchr(s, '\n');
	l->s = s;
	l->len = nl ? (size_t)(nl - s) : strlen(s);
	l->terminated = nl != NULL;
	*p = s + l->len + (nl ? 1 : 0);
	return 1;
}

size_t lines_count(const char *text)
{
	size_t n = 0;

	for (const char *nl; (nl = strchr(text, '\n')) != NULL; text = nl + 1)
		n++;
	return n + (*text != '\0');
}

int line_copy_strict(const struct line *l, char *buf, size_t cap)
{
	if (!l->terminated || l->len >= cap)
		return -EINVAL;
	memcpy(buf, l->s, l->len);
	buf[l->len] = '\0';
	return 0;
}

int lines_strict(const char *text, const char *magic, char *buf, size_t cap,
		 int (*fn)(const char *line, void *ctx), void *ctx)
{
	struct line l;
	int first = 1;

	while (line_next(&text, &l)) {
		/* every line ends: a cut file is damaged */
		if (line_copy_strict(&l, buf, cap) < 0)
			return -EINVAL;
		if (first ? strcmp(buf, magic) != 0 : fn(buf, ctx) < 0)
			return -EINVAL;
		first = 0;
	}
	return first ? -EINVAL : 0;
}

int proc_kb(const char *text, const char *key, uint64_t *bytes)
{
	size_t klen = strlen(key);
	struct line l;

	while (line_next(&text, &l)) {
		uint64_t kb = 0;
		size_t i = klen + 1;
		int digits = 0;

		if (l.len <= klen || memcmp(l.s, key, klen) != 0 || l.s[klen] != ':')
			continue;
		while (i < l.len && (l.s[i] == ' ' || l.s[i] == '\t'))
			i++;
		/* absurd digits stop at 19: no overflow */
		for (; i < l.len && l.s[i] >= '0' && l.s[i] <= '9' && digits < 19; i++, digits++)
			kb = kb * 10 + (uint64_t)(l.s[i] - '0');
		if (!digits)
			return -ENOENT;
		*bytes = kb * 1024u;
		return 0;
	}
	return -ENOENT;
}
