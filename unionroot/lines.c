// SPDX-License-Identifier: MIT
/* Line iteration over in-memory text (control state, reset requests, keep
 * lists, /proc/mtd, modules.builtin). */
#include "lines.h"

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

int line_copy_strict(const struct line *l, char *buf, size_t cap)
{
	if (!l->terminated || l->len >= cap)
		return -EINVAL;
	memcpy(buf, l->s, l->len);
	buf[l->len] = '\0';
	return 0;
}
