// SPDX-License-Identifier: MIT
/* ${mac} and ${hostname} in an nbd: export name: checked, then expanded. */
#include "conf/specvar.h"

#include <errno.h>
#include <string.h>

#include "lib/sbuf.h"

enum { VAR_MAC, VAR_HOSTNAME };
/* arrays, not pointers: static-pie relocates each pointer */
static const char var_names[][9] = { [VAR_MAC] = "mac", [VAR_HOSTNAME] = "hostname" };

static int said(char *why, size_t cap, const char *what)
{
	IGNORE(strcopy(why, cap, what)); /* a cut line still says it */
	return -EINVAL;
}

/* The variable at ${ (text), its length through '}' in *len: its enum, or
 * -EINVAL with why. */
static int var_at(const char *text, size_t *len, char *why, size_t cap)
{
	const char *end = strchr(text + 2, '}');
	char shown[33];
	size_t n;

	if (!end)
		return said(why, cap, "an unterminated ${ in the export name");
	n = (size_t)(end - text - 2);
	*len = n + 3;
	for (size_t i = 0; i < ARRAY_SIZE(var_names); i++)
		if (strlen(var_names[i]) == n && memcmp(var_names[i], text + 2, n) == 0)
			return (int)i;
	/* the name as given, its odd bytes as '?': the line stays one line */
	n = n > sizeof(shown) - 1 ? sizeof(shown) - 1 : n;
	for (size_t i = 0; i < n; i++)
		shown[i] = text[2 + i] >= ' ' && text[2 + i] <= '~' ? text[2 + i] : '?';
	shown[n] = '\0';
	IGNORE(strfmt(why, cap, "unknown ${%s} in the export name (want " SPECVAR_NAMES ")",
		      shown)); /* a cut line still says it */
	return -EINVAL;
}

/* A host name as an export name may hold it: letters, digits, '-', '.', '_'. */
static int host_ok(const char *h)
{
	size_t n = strlen(h);

	if (n == 0 || n >= SPECVAR_HOST_MAX)
		return 0;
	for (; *h; h++)
		if (!((*h >= 'a' && *h <= 'z') || (*h >= 'A' && *h <= 'Z') || (*h >= '0' && *h <= '9') ||
		      *h == '-' || *h == '.' || *h == '_'))
			return 0;
	return 1;
}

/* The value of variable var: 0, or -EINVAL with why. */
static int value_of(int var, const struct specvar_vals *v, const char **val, char *why, size_t cap)
{
	*val = var == VAR_MAC ? v->mac : v->hostname;
	if (var == VAR_MAC && (!*val || !**val))
		return said(why, cap, "${mac}: the NIC's address is not known");
	if (var == VAR_HOSTNAME && (!*val || !**val))
		return said(why, cap, "${hostname}: neither DHCP nor ip= gave a host name");
	if (var == VAR_HOSTNAME && !host_ok(*val))
		return said(why, cap, "${hostname}: the host name is no export name's (want up to 64 letters, digits, '-', '.', '_')");
	return 0;
}

/* The walk of both: v NULL only checks the names. */
static int walk(const char *text, const struct specvar_vals *v, struct sbuf *sb, char *why, size_t cap)
{
	while (*text) {
		const char *dollar = strchr(text, '$'), *val = "";
		size_t len;
		int var;

		if (!dollar || dollar[1] != '{') {
			size_t n = dollar ? (size_t)(dollar - text) + 1 : strlen(text);

			if (sb)
				sbuf_addn(sb, text, n);
			text += n;
			continue;
		}
		if (sb)
			sbuf_addn(sb, text, (size_t)(dollar - text));
		var = var_at(dollar, &len, why, cap);
		if (var < 0)
			return var;
		if (v && value_of(var, v, &val, why, cap) < 0)
			return -EINVAL;
		if (sb)
			sbuf_add(sb, val);
		text = dollar + len;
	}
	return 0;
}

int specvar_check(const char *text, char *why, size_t whycap)
{
	return walk(text, NULL, NULL, why, whycap);
}

int specvar_expand(const char *text, const struct specvar_vals *v, char *out, size_t cap, char *why,
		   size_t whycap)
{
	struct sbuf sb;
	int rc;

	sbuf_init(&sb, out, cap);
	rc = walk(text, v, &sb, why, whycap);
	if (rc < 0)
		return rc;
	if (sbuf_done(&sb) < 0) {
		IGNORE(strfmt(why, whycap, "the export name expanded is over %zu bytes", cap - 1)); /* fits */
		return -ENAMETOOLONG;
	}
	return 0;
}

int specvar_mac(const char *text, char out[SPECVAR_MAC_TEXT])
{
	for (size_t i = 0; i < 17; i++) {
		char c = text[i];

		if (i % 3 == 2) {
			if (c != ':')
				return -EINVAL;
			out[i] = '-';
		} else if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) {
			out[i] = c;
		} else if (c >= 'A' && c <= 'F') {
			out[i] = (char)(c - 'A' + 'a');
		} else {
			return -EINVAL;
		}
	}
	if (text[17] != '\0' && !(text[17] == '\n' && text[18] == '\0'))
		return -EINVAL;
	out[17] = '\0';
	return 0;
}
