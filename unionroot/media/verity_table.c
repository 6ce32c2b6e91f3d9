// SPDX-License-Identifier: MIT
/* The kernel's `verity` target line (Documentation/admin-guide/device-mapper/
 * verity.rst): <version> <data_dev> <hash_dev> <data_bs> <hash_bs>
 * <#data_blocks> <hash_start> <alg> <digest> <salt> [#opts opts...]. */
#include <errno.h>
#include <string.h>

#include "lib/sbuf.h"
#include "media/verity.h"

const char *verity_onerror_name(int onerror)
{
	static const char names[][8] = { "eio", "restart", "panic" };

	return onerror >= 0 && (size_t)onerror < ARRAY_SIZE(names) ? names[onerror] : "?";
}

/* A device name goes into a space-separated line: no spaces, no controls. */
static int word_ok(const char *s)
{
	if (!s || !s[0])
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return 0;
	return 1;
}

static int hex_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 2 || n % 2 || n >= VERITY_HEX_MAX)
		return 0;
	return strspn(s, "0123456789abcdef") == n;
}

int verity_table_format(const struct verity_table *t, char *buf, size_t cap)
{
	static const char opts[][25] = { "", " 1 restart_on_corruption", " 1 panic_on_corruption" };
	const struct verity_geom *g = t->geom;
	const char *why;
	struct sbuf sb;

	if (!word_ok(t->data_dev) || !word_ok(t->hash_dev) || !t->root || !hex_ok(t->root) ||
	    verity_geom_check(g, &why) < 0 || t->onerror < 0 || (size_t)t->onerror >= ARRAY_SIZE(opts))
		return -EINVAL;
	sbuf_init(&sb, buf, cap);
	sbuf_addf(&sb, "%u %s %s %u %u %llu %llu %s %s ", (unsigned)g->hash_type, t->data_dev,
		  t->hash_dev, (unsigned)g->data_bs, (unsigned)g->hash_bs,
		  (unsigned long long)g->data_blocks, (unsigned long long)t->hash_start, g->alg,
		  t->root);
	if (!g->salt_len)
		sbuf_add(&sb, "-");
	for (unsigned i = 0; i < g->salt_len; i++)
		sbuf_addf(&sb, "%02x", g->salt[i]);
	sbuf_add(&sb, opts[t->onerror]);
	return sbuf_done(&sb);
}
