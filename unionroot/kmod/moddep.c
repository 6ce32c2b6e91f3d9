// SPDX-License-Identifier: MIT
/* Module dependency order from modules.dep/modules.softdep (pure). */
#include "kmod/moddep.h"

#include <errno.h>
#include <string.h>

#include "conf/cmdline.h"
#include "lib/strnum.h"

static char *next_line(char **p)
{
	char *line = *p, *nl;

	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = line + strlen(line);
	}
	return line;
}

static char *skip_blank(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static void set_name(struct moddep_entry *e)
{
	const char *base = strrchr(e->path, '/');
	const char *dot;

	base = base ? base + 1 : e->path;
	dot = str_find(base, ".ko");
	e->name = base;
	e->name_len = dot ? (size_t)(dot - base) : strlen(base);
}

static int parse_softdep_line(struct moddep *m, char *line)
{
	struct softdep_entry *s;
	char *name, *p;

	if (strncmp(line, "softdep", 7) != 0 || (line[7] != ' ' && line[7] != '\t'))
		return 0; /* comments and other verbs */
	if (m->ns == m->scap) {
		m->sdropped++;
		return 0;
	}
	name = skip_blank(line + 7);
	p = name + strcspn(name, " \t");
	if (p == name)
		return -EINVAL;
	s = &m->s[m->ns];
	s->name = name;
	s->pre = "";
	s->post = "";
	if (*p)
		*p++ = '\0';
	/* "pre: a b post: c": split at the keywords, keep the lists in place */
	while (*(p = skip_blank(p))) {
		const char **slot = NULL;
		char *end;

		if (strncmp(p, "pre:", 4) == 0)
			slot = &s->pre;
		else if (strncmp(p, "post:", 5) == 0)
			slot = &s->post;
		if (!slot) { /* before any keyword ("softdep cifs gcm", depmod's
			      * words of a MODULE_SOFTDEP without one): kmod skips them */
			p += strcspn(p, " \t");
			continue;
		}
		p += slot == &s->pre ? 4 : 5;
		p = skip_blank(p);
		end = str_find(p, slot == &s->pre ? "post:" : "pre:");
		*slot = p;
		if (!end)
			break;
		end[-1] = '\0';
		p = end;
	}
	m->ns++;
	return 0;
}

int moddep_parse(struct moddep *m, char *dep_text, char *softdep_text)
{
	char *line;
	int rc;

	m->n = 0;
	m->ns = 0;
	m->dropped = 0;
	m->sdropped = 0;
	while ((line = next_line(&dep_text)) != NULL) {
		char *colon;
		struct moddep_entry *e;

		if (!*line || *line == '#')
			continue;
		colon = strchr(line, ':');
		if (!colon || colon == line)
			return -EINVAL;
		if (m->n == m->cap) {
			m->dropped++;
			continue;
		}
		e = &m->e[m->n++];
		*colon = '\0';
		e->path = line;
		e->deps = skip_blank(colon + 1);
		set_name(e);
	}
	while (softdep_text && (line = next_line(&softdep_text)) != NULL) {
		rc = parse_softdep_line(m, line);
		if (rc < 0)
			return rc;
	}
	return m->dropped || m->sdropped ? -E2BIG : 0;
}

int moddep_find(const struct moddep *m, const char *name, size_t len)
{
	for (unsigned i = 0; i < m->n; i++) {
		if (modname_eq(m->e[i].name, m->e[i].name_len, name, len))
			return (int)i;
	}
	return -1;
}

static int find_path(const struct moddep *m, const char *path, size_t len)
{
	for (unsigned i = 0; i < m->n; i++)
		if (strncmp(m->e[i].path, path, len) == 0 && m->e[i].path[len] == '\0')
			return (int)i;
	return -1;
}

static const struct softdep_entry *find_softdep(const struct moddep *m, const struct moddep_entry *e)
{
	for (unsigned i = 0; i < m->ns; i++)
		if (modname_eq(m->s[i].name, strlen(m->s[i].name), e->name, e->name_len))
			return &m->s[i];
	return NULL;
}

static int in_order(const unsigned *order, unsigned count, unsigned idx)
{
	for (unsigned i = 0; i < count; i++)
		if (order[i] == idx)
			return 1;
	return 0;
}

static int visit(const struct moddep *m, unsigned idx, unsigned *order,
		 unsigned *count, unsigned max, int depth);

/* Softdep names that are not in the index are skipped: softdeps are hints. */
static int visit_names(const struct moddep *m, const char *list, unsigned *order,
		       unsigned *count, unsigned max, int depth)
{
	while (*list) {
		size_t n;
		int idx, rc;

		list += strspn(list, " \t");
		n = strcspn(list, " \t");
		if (!n)
			break;
		idx = moddep_find(m, list, n);
		if (idx >= 0) {
			rc = visit(m, (unsigned)idx, order, count, max, depth + 1);
			if (rc < 0)
				return rc;
		}
		list += n;
	}
	return 0;
}

static int visit(const struct moddep *m, unsigned idx, unsigned *order,
		 unsigned *count, unsigned max, int depth)
{
	const struct moddep_entry *e = &m->e[idx];
	const struct softdep_entry *sd;
	const char *deps = e->deps;
	size_t len = strlen(deps);
	int rc;

	if (in_order(order, *count, idx))
		return 0;
	if (depth > MODDEP_DEPTH)
		return -ELOOP;
	sd = find_softdep(m, e);
	if (sd) {
		rc = visit_names(m, sd->pre, order, count, max, depth);
		if (rc < 0)
			return rc;
	}
	/* modules.dep lists dependencies in reverse load order: walk it backwards */
	while (len > 0) {
		size_t end = len, start;
		int d;

		while (end > 0 && (deps[end - 1] == ' ' || deps[end - 1] == '\t'))
			end--;
		start = end;
		while (start > 0 && deps[start - 1] != ' ' && deps[start - 1] != '\t')
			start--;
		if (end == start)
			break;
		d = find_path(m, deps + start, end - start);
		if (d < 0)
			return -ENOENT;
		rc = visit(m, (unsigned)d, order, count, max, depth + 1);
		if (rc < 0)
			return rc;
		len = start;
	}
	if (in_order(order, *count, idx))
		return 0; /* a cycle through softdeps came back here */
	if (*count >= max)
		return -E2BIG;
	order[(*count)++] = idx;
	if (sd)
		return visit_names(m, sd->post, order, count, max, depth);
	return 0;
}

int moddep_resolve(const struct moddep *m, const char *name, unsigned *order,
		   unsigned *count, unsigned max)
{
	int idx = moddep_find(m, name, strlen(name));

	if (idx < 0)
		return -ENOENT;
	return visit(m, (unsigned)idx, order, count, max, 0);
}

/* Under emulation every module costs tens of milliseconds: a listed module
 * whose job only some boots have waits until the boot has it. Longest
 * prefixes are not needed: no two rows overlap. */
static const struct {
	char prefix[28];
	unsigned char need; /* enum mod_need */
} needs[] = {
	{ "kernel/fs/", NEED_MOUNT },                  /* a mount of its type */
	{ "kernel/drivers/block/loop.", NEED_LOOP },   /* an image file */
	{ "kernel/drivers/mtd/", NEED_FLASH },         /* an mtd: or ubi: SPEC */
	{ "kernel/drivers/md/", NEED_DM },             /* dm-verity's layer, dm-crypt's branch */
	{ "kernel/crypto/xts.", NEED_DM },             /* LUKS2's default cipher mode */
	{ "kernel/drivers/block/nbd.", NEED_NET },     /* an nbd: layer */
	{ "kernel/drivers/net/", NEED_NET },           /* NICs: matched by modalias only then */
	/* ubifs asks for its zstd compressor at init, with no softdep */
	{ "kernel/crypto/zstd.", NEED_FLASH },
};

enum mod_need moddep_need(const char *path)
{
	for (size_t i = 0; i < ARRAY_SIZE(needs); i++)
		if (strncmp(path, needs[i].prefix, strlen(needs[i].prefix)) == 0)
			return needs[i].need;
	return NEED_BOOT;
}
