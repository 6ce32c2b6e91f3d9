// SPDX-License-Identifier: MIT
/* Bounded relative paths for the copy-up walk and its diff. */
#include "lib/relpath.h"

#include <errno.h>
#include <string.h>

int relpath_push(struct relpath *p, const char *name, size_t *old)
{
	size_t n = strlen(name), sep = p->len ? 1 : 0;

	*old = p->len;
	if (p->len + sep + n + 1 > sizeof(p->s))
		return -ENAMETOOLONG;
	if (sep)
		p->s[p->len++] = '/';
	memcpy(p->s + p->len, name, n + 1);
	p->len += n;
	return 0;
}

void relpath_pop(struct relpath *p, size_t old)
{
	p->len = old;
	p->s[old] = '\0';
}
