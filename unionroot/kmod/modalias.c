// SPDX-License-Identifier: MIT
/* modules.alias parsing and matching for the coldplug and uevent paths of
 * PID 1, which loads drivers without udev, mdev or modprobe. */
#include "kmod/modalias.h"

#include <errno.h>
#include <string.h>

#include "conf/cmdline.h"
#include "lib/glob.h"

static char *next_word(char **p)
{
	char *w = *p + strspn(*p, " \t");
	size_t n = strcspn(w, " \t\n");

	*p = w + n;
	if (!n)
		return NULL;
	if (**p && **p != '\n')
		*(*p)++ = '\0';
	return w;
}

int modalias_parse(struct modalias *a, char *text)
{
	char *p = text;

	a->n = 0;
	a->dropped = 0;
	while (*p) {
		char *line = p, *kw, *pat, *mod, *end = strchr(p, '\n');

		if (end) {
			*end = '\0';
			p = end + 1;
		} else {
			p += strlen(p);
		}
		kw = next_word(&line);
		pat = kw ? next_word(&line) : NULL;
		mod = pat ? next_word(&line) : NULL;
		if (!mod || strcmp(kw, "alias") != 0)
			continue;
		if (a->n == a->cap) {
			a->dropped++;
			continue;
		}
		a->e[a->n].pattern = pat;
		a->e[a->n].module = mod;
		a->n++;
	}
	return a->dropped ? -E2BIG : 0;
}

/* glob_match is fnmatch with FNM_PERIOD; a modalias never starts with a
 * dot ("bus:..."), so it is kmod's fnmatch(pattern, alias, 0) here. */
int modalias_next(const struct modalias *a, const char *modalias, unsigned from)
{
	for (unsigned i = from; i < a->n; i++)
		if (glob_match(a->e[i].pattern, modalias))
			return (int)i;
	return -1;
}

int modalias_cpu_lacks(const struct modalias *a, const char *module, size_t len,
		       const char *cpu)
{
	int cpu_module = 0;

	for (unsigned i = 0; i < a->n; i++) {
		const struct modalias_entry *e = &a->e[i];

		if (strncmp(e->pattern, "cpu:", 4) != 0 ||
		    !modname_eq(e->module, strlen(e->module), module, len))
			continue;
		if (glob_match(e->pattern, cpu))
			return 0;
		cpu_module = 1;
	}
	return cpu_module;
}

const char *modalias_of_uevent(const char *msg, size_t len, const char **devpath)
{
	const char *alias = NULL, *end = msg + len;
	int add = 0;

	*devpath = NULL;
	for (const char *p = msg; p < end;) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));

		if (!nul)
			break; /* a cut last field is no value */
		if (strcmp(p, "ACTION=add") == 0)
			add = 1;
		else if (strncmp(p, "MODALIAS=", 9) == 0)
			alias = p + 9;
		else if (strncmp(p, "DEVPATH=", 8) == 0)
			*devpath = p + 8;
		p = nul + 1;
	}
	return add && alias && *alias ? alias : NULL;
}
