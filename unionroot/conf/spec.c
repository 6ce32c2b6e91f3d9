// SPDX-License-Identifier: MIT
/* SPEC parser: pure, bounded, with a reason for every refusal. */
#include "conf/spec.h"

#include <errno.h>
#include <string.h>

#include "conf/specvar.h"
#include "lib/sbuf.h"
#include "net/dhcp.h"

/* A build without the network (make NET=0) stops at any http:// or nfs:
 * layer and needs no more of its value than its prefix, nor of an nbd:
 * export's name than its grammar's: ${mac} and ${hostname} are never
 * expanded. */
#ifdef UNIONROOT_NO_NET
#define NET_CHECKED 0
#else
#define NET_CHECKED 1
#endif

/* Arrays, not pointers: static-pie relocates each pointer at start-up. */
static const struct {
	char prefix[11];
	unsigned char kind; /* enum spec_kind */
} bases[] = {
	{ "/dev/", SPEC_DEV },
	{ "LABEL=", SPEC_LABEL },
	{ "UUID=", SPEC_UUID },
	{ "PARTUUID=", SPEC_PARTUUID },
	{ "PARTLABEL=", SPEC_PARTLABEL },
	{ "mtd:", SPEC_MTD },
	{ "ubi:", SPEC_UBI },
	{ "nbd:", SPEC_NBD },
	{ "http://", SPEC_HTTP },
	{ "nfs:", SPEC_NFS },
};

const char *spec_kind_name(int kind)
{
	static const char names[][10] = {
		[SPEC_DEV] = "device", [SPEC_LABEL] = "LABEL", [SPEC_UUID] = "UUID",
		[SPEC_PARTUUID] = "PARTUUID", [SPEC_PARTLABEL] = "PARTLABEL",
		[SPEC_MTD] = "mtd", [SPEC_UBI] = "ubi", [SPEC_AUTO] = "auto", [SPEC_NBD] = "nbd",
		[SPEC_HTTP] = "http", [SPEC_NFS] = "nfs",
	};

	if (kind < 0 || (size_t)kind >= ARRAY_SIZE(names))
		return "?";
	return names[kind];
}

static int fail(char *err, size_t errlen, int rc, const char *why)
{
	if (errlen)
		IGNORE(strcopy(err, errlen, why));
	return rc;
}

static int has_dotdot(const char *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		if (p[i] == '.' && p[i + 1] == '.' && (i == 0 || p[i - 1] == '/') &&
		    (i + 2 == n || p[i + 2] == '/'))
			return 1;
	}
	return 0;
}

static int valid_uuid(const char *v)
{
	for (; *v; v++) {
		if (!((*v >= '0' && *v <= '9') || (*v >= 'a' && *v <= 'f') ||
		      (*v >= 'A' && *v <= 'F') || *v == '-'))
			return 0;
	}
	return 1;
}

/* The base's value as its kind wants it: 1, or 0 with why in err. */
static int valid_value(const struct spec *s, size_t vlen, char *err, size_t errlen)
{
	uint32_t addr;
	unsigned port;
	const char *name;

	if (s->kind == SPEC_DEV && has_dotdot(s->value, vlen))
		return fail(err, errlen, 0, "device path leaves /dev");
	if (s->kind == SPEC_NBD && spec_nbd_split(s->value, &addr, &port, &name) < 0)
		return fail(err, errlen, 0, SPEC_NBD_WHY);
	if (s->kind == SPEC_NBD && NET_CHECKED && specvar_check(name, err, errlen) < 0)
		return 0; /* ${mac}, ${hostname}: expanded once the network is up */
	if (s->kind == SPEC_HTTP && NET_CHECKED && spec_http_split(s->value, &addr, &port, &name) < 0)
		return fail(err, errlen, 0, SPEC_HTTP_WHY);
	if (s->kind == SPEC_NFS && NET_CHECKED && spec_nfs_split(s->value, &addr, &port, &name) < 0)
		return fail(err, errlen, 0, SPEC_NFS_WHY);
	if ((s->kind == SPEC_UUID || s->kind == SPEC_PARTUUID) && !valid_uuid(s->value))
		return fail(err, errlen, 0, "UUID holds characters other than hex digits and '-'");
	return 1;
}

/* How many ":/" segments [seg, end) holds. */
static unsigned path_count(const char *seg, const char *end)
{
	unsigned k = 0;

	for (const char *p = seg; p + 1 < end; p++)
		k += p[0] == ':' && p[1] == '/';
	return k;
}

/* Splits "@digits" off the end; returns the new length. */
static size_t take_deadline(const char *t, size_t n, int *deadline, int *bad)
{
	size_t i = n;
	long v = 0;

	while (i > 0 && t[i - 1] >= '0' && t[i - 1] <= '9')
		i--;
	if (i == n || i == 0 || t[i - 1] != '@')
		return n;
	for (size_t k = i; k < n; k++) {
		v = v * 10 + (t[k] - '0');
		if (v > SPEC_DEADLINE_MAX) {
			*bad = 1;
			break;
		}
	}
	*deadline = (int)v;
	return i - 1;
}

/* Where the base of text's n bytes ends: the first ":/" (but "/dev/x"
 * itself starts with '/', "http://" holds one, and nfs:'s export starts
 * with one), NULL: no path segment. */
static const char *first_segment(const char *text, size_t n)
{
	int own = strncmp(text, "nfs:", 4) == 0;

	for (size_t i = strncmp(text, "http://", 7) ? 0 : 7; i + 1 < n; i++) {
		if (text[i] == ':' && text[i + 1] == '/' && !own)
			return text + i;
		own &= !(text[i] == ':' && text[i + 1] == '/');
	}
	return NULL;
}

int spec_parse(const char *text, struct spec *out, char *err, size_t errlen)
{
	size_t n = strlen(text), base_end, vlen;
	const char *seg;
	int bad = 0;

	memset(out, 0, sizeof(*out));
	out->deadline = -1;
	if (n == 0)
		return fail(err, errlen, -EINVAL, "empty SPEC");
	n = take_deadline(text, n, &out->deadline, &bad);
	if (bad)
		return fail(err, errlen, -EINVAL, "deadline after '@' is over 3600 seconds");

	seg = first_segment(text, n);
	base_end = seg ? (size_t)(seg - text) : n;

	out->kind = -1;
	vlen = 0;
	if (base_end == 4 && strncmp(text, "auto", 4) == 0) {
		out->kind = SPEC_AUTO;
	} else {
		size_t skip = 0;

		for (size_t i = 0; i < ARRAY_SIZE(bases) && out->kind < 0; i++) {
			size_t pl = strlen(bases[i].prefix);

			if (base_end >= pl && strncmp(text, bases[i].prefix, pl) == 0) {
				out->kind = bases[i].kind;
				/* /dev/NAME keeps the whole path as its value */
				skip = bases[i].kind == SPEC_DEV ? 0 : pl;
			}
		}
		if (out->kind < 0)
			return fail(err, errlen, -EINVAL,
				    "not a SPEC (want /dev/NAME, LABEL=, UUID=, PARTUUID=, PARTLABEL=, mtd:, ubi:, nbd:, http://, nfs: or auto)");
		vlen = base_end - skip;
		if (vlen == 0 || (out->kind == SPEC_DEV && vlen == 5))
			return fail(err, errlen, -EINVAL, "SPEC names no device");
		if (vlen >= sizeof(out->value))
			return fail(err, errlen, -ENAMETOOLONG, "SPEC value is too long");
		memcpy(out->value, text + skip, vlen);
		out->value[vlen] = '\0';
	}
	if (!valid_value(out, vlen, err, errlen))
		return -EINVAL;
	if (out->kind == SPEC_NFS && seg && path_count(seg, text + n) > 1)
		return fail(err, errlen, -EINVAL, "nfs: takes one image path on its export");

	while (seg) {
		const char *p = seg + 1, *next = NULL;
		size_t plen;

		for (size_t i = (size_t)(p - text); i + 1 < n; i++) {
			if (text[i] == ':' && text[i + 1] == '/') {
				next = text + i;
				break;
			}
		}
		plen = (next ? (size_t)(next - p) : (size_t)(text + n - p));
		if (out->npaths >= SPEC_PATHS_MAX)
			return fail(err, errlen, -EINVAL, "more than 4 nested image paths");
		if (plen >= SPEC_PATH_MAX)
			return fail(err, errlen, -ENAMETOOLONG, "image path is too long");
		if (plen < 2 || p[plen - 1] == '/')
			return fail(err, errlen, -EINVAL, "image path names no file");
		if (has_dotdot(p, plen))
			return fail(err, errlen, -EINVAL, "image path uses '..'");
		memcpy(out->paths[out->npaths], p, plen);
		out->paths[out->npaths][plen] = '\0';
		out->npaths++;
		seg = next;
	}
	return 0;
}

int spec_list_parse(const char *text, struct spec *out, unsigned max, char *err,
		    size_t errlen)
{
	char item[SPEC_VALUE_MAX + SPEC_PATHS_MAX * SPEC_PATH_MAX];
	unsigned count = 0;
	const char *p = text;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int rc;

		if (count >= max)
			return fail(err, errlen, -E2BIG, "more than 8 read-only layers");
		if (len >= sizeof(item))
			return fail(err, errlen, -ENAMETOOLONG, "SPEC is too long");
		memcpy(item, p, len);
		item[len] = '\0';
		rc = spec_parse(item, &out[count], err, errlen);
		if (rc < 0)
			return rc;
		count++;
		if (!comma)
			break;
		p = comma + 1;
	}
	return (int)count;
}

int spec_format(const struct spec *s, char *buf, size_t cap)
{
	struct sbuf sb;

	sbuf_init(&sb, buf, cap);
	switch (s->kind) {
	case SPEC_DEV:
	case SPEC_AUTO:
		sbuf_add(&sb, s->kind == SPEC_AUTO ? "auto" : s->value);
		break;
	case SPEC_MTD:
	case SPEC_UBI:
	case SPEC_NBD:
	case SPEC_NFS:
		sbuf_addf(&sb, "%s:%s", spec_kind_name(s->kind), s->value);
		break;
	case SPEC_HTTP:
		sbuf_addf(&sb, "http://%s", s->value);
		break;
	default:
		sbuf_addf(&sb, "%s=%s", spec_kind_name(s->kind), s->value);
		break;
	}
	for (unsigned i = 0; i < s->npaths; i++)
		sbuf_addf(&sb, ":%s", s->paths[i]);
	if (s->deadline >= 0)
		sbuf_addf(&sb, "@%d", s->deadline);
	return sbuf_done(&sb);
}

int spec_nbd_split(const char *value, uint32_t *addr, unsigned *port, const char **export_name)
{
	const char *colon = strchr(value, ':'), *slash;
	unsigned v = 0;

	if (!colon || ipv4_parse(value, (size_t)(colon - value), addr) < 0)
		return -EINVAL;
	slash = strchr(colon, '/');
	if (!slash || slash == colon + 1 || slash - colon > 6)
		return -EINVAL;
	for (const char *p = colon + 1; p < slash; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(*p - '0');
	}
	if (v == 0 || v > 65535)
		return -EINVAL;
	*port = v;
	*export_name = slash + 1;
	return 0;
}

int spec_http_split(const char *value, uint32_t *addr, unsigned *port, const char **path)
{
	const char *slash = strchr(value, '/'), *colon = memchr(value, ':', slash ? (size_t)(slash - value) : 0);
	unsigned v = 0;

	if (!slash || ipv4_parse(value, (size_t)((colon ? colon : slash) - value), addr) < 0)
		return -EINVAL;
	for (const char *p = slash; *p; p++)
		if (*p <= ' ' || *p > '~') /* a request line's bytes: no space, no control */
			return -EINVAL;
	if (colon && (slash - colon < 2 || slash - colon > 6))
		return -EINVAL;
	for (const char *p = colon ? colon + 1 : slash; p < slash; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(*p - '0');
	}
	if (colon && (v == 0 || v > 65535))
		return -EINVAL;
	*port = colon ? v : 80;
	*path = slash;
	return 0;
}

int spec_nfs_split(const char *value, uint32_t *addr, unsigned *port, const char **export_path)
{
	const char *colon = strchr(value, ':'), *slash;
	unsigned v = 0;

	if (!colon || ipv4_parse(value, (size_t)(colon - value), addr) < 0)
		return -EINVAL;
	slash = colon + 1;
	if (*slash != '/') { /* a port, then ":/" */
		for (; *slash >= '0' && *slash <= '9' && v <= 65535; slash++)
			v = v * 10 + (unsigned)(*slash - '0');
		if (slash == colon + 1 || v == 0 || v > 65535 || slash[0] != ':' || slash[1] != '/')
			return -EINVAL;
		slash++;
	}
	/* the export goes into mount(2)'s source, and the status record quotes it */
	for (const char *p = slash; *p; p++)
		if (*p <= ' ' || *p > '~' || *p == ',' || *p == '"' || *p == '\\')
			return -EINVAL;
	if (has_dotdot(slash, strlen(slash)))
		return -EINVAL;
	*port = v ? v : SPEC_NFS_PORT;
	*export_path = slash;
	return 0;
}
