// SPDX-License-Identifier: MIT
/* /proc/self/mountinfo (proc(5)): "ID PARENT MAJ:MIN ROOT TARGET OPTIONS
 * [OPTIONAL...] - TYPE SOURCE SUPEROPTIONS", one mount a line; the kernel
 * writes a space, tab, newline or backslash in a path as \ooo. */
#include "lib/mountinfo.h"

#include <string.h>

/* The word at *p, ended with a NUL; *p moves past it. */
static char *word(char **p)
{
	char *w = *p, *end = strchr(w, ' ');

	if (end) {
		*end = '\0';
		*p = end + 1;
	} else {
		*p = w + strlen(w);
	}
	return w;
}

static char *unescaped(char *s)
{
	char *w = s;

	for (const char *r = s; *r; w++)
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		} else {
			*w = *r++;
		}
	*w = '\0';
	return s;
}

int mountinfo_next(char **pos, struct mountinfo *m)
{
	while (**pos) {
		char *line = *pos, *end = strchr(line, '\n'), *w;

		*pos = end ? end + 1 : line + strlen(line);
		if (end)
			*end = '\0';
		for (int i = 0; i < 3; i++)
			(void)word(&line); /* ID, parent, device */
		m->root = word(&line);
		m->target = unescaped(word(&line));
		do
			w = word(&line);
		while (*w && strcmp(w, "-") != 0);
		m->type = word(&line);
		m->source = word(&line);
		if (*m->target && *m->type)
			return 1;
	}
	return 0;
}
