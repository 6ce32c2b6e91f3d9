// SPDX-License-Identifier: MIT
/* Keep list parsing: a path that could leave the root is refused here, before
 * anything is walked; symlinks are refused while walking (keepcopy.c). */
#include "branch/keep.h"
#include "lib/lines.h"

#include <errno.h>
#include <string.h>

#include "lib/sbuf.h"

const char *keep_invalid(const char *p)
{
	size_t len = strlen(p);

	if (p[0] != '/')
		return "not an absolute path";
	if (len >= KEEP_PATH_MAX)
		return "too long";
	if (len == 1)
		return "\"/\" would keep everything";
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return "holds a control character";
	for (const char *c = p + 1;;) {
		const char *end = strchr(c, '/');
		size_t n = end ? (size_t)(end - c) : strlen(c);

		if (n == 0)
			return "has an empty component (\"//\" or a trailing \"/\")";
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return "has a \".\" or \"..\" component, which could leave the root";
		if (!end)
			break;
		c = end + 1;
	}
	return NULL;
}

int keep_add(struct keep_list *kl, const char *pattern)
{
	if (keep_invalid(pattern))
		return -EINVAL;
	for (unsigned i = 0; i < kl->n; i++)
		if (strcmp(kl->path[i], pattern) == 0)
			return 0;
	if (kl->n >= KEEP_MAX)
		return -ENOSPC;
	return strcopy(kl->path[kl->n++], KEEP_PATH_MAX, pattern);
}

int keep_add_text(struct keep_list *kl, const char *text,
		  void (*bad)(const char *line, const char *why, void *ctx), void *ctx)
{
	char line[KEEP_PATH_MAX + 1];
	struct line l;
	int nbad = 0;

	while (line_next(&text, &l)) {
		const char *s = l.s, *why;
		size_t n = l.len;
		int rc;

		while (n && (*s == ' ' || *s == '\t')) {
			s++;
			n--;
		}
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
			n--;
		if (n == 0 || s[0] == '#')
			continue;
		if (n >= sizeof(line)) {
			memcpy(line, s, sizeof(line) - 1);
			line[sizeof(line) - 1] = '\0';
			why = "too long";
			goto skip;
		}
		memcpy(line, s, n);
		line[n] = '\0';
		why = keep_invalid(line);
		if (why)
			goto skip;
		rc = keep_add(kl, line);
		if (rc == -ENOSPC)
			return rc;
		continue;
skip:
		nbad++;
		if (bad)
			bad(line, why, ctx);
	}
	return nbad;
}

int keep_is_glob(const char *c)
{
	return strpbrk(c, "*?[") != NULL;
}
