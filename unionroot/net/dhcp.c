// SPDX-License-Identifier: MIT
/* DHCP messages, klibc ipconfig's subset: the DISCOVER and REQUEST a client
 * sends, and the OFFER, ACK or NAK it reads. Replies come off the network:
 * every length is checked against the bytes there before it is used. */
#include "net/dhcp.h"

#include "lib/bytes.h"
#include "lib/fmt.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

/* RFC 2131 figure 1: the fixed fields before the options */
enum {
	BOOTP_OP = 0,
	BOOTP_HTYPE = 1,
	BOOTP_HLEN = 2,
	BOOTP_XID = 4,
	BOOTP_FLAGS = 10,
	BOOTP_YIADDR = 16,
	BOOTP_SIADDR = 20,
	BOOTP_CHADDR = 28,
	BOOTP_SNAME = 44,
	BOOTP_FILE = 108,
	BOOTP_COOKIE = 236,
	BOOTP_OPTIONS = 240,
};
#define SNAME_LEN 64
#define FILE_LEN 128
#define DHCP_COOKIE 0x63825363u
#define BOOTP_BROADCAST 0x8000u /* no unicast to an address not yet set */

enum {
	OPT_PAD = 0,
	OPT_HOSTNAME = 12,
	OPT_REQUESTED_IP = 50,
	OPT_OVERLOAD = 52,
	OPT_TYPE = 53,
	OPT_SERVER_ID = 54,
	OPT_PARAMS = 55,
	OPT_CLIENT_ID = 61,
	OPT_END = 255,
};

/* what the lease is made of: subnet, router, DNS, host name, domain, root
 * path, MTU, broadcast, lease time, server id, renewal and rebinding */
static const uint8_t params[] = { 1, 3, 6, 12, 15, 17, 26, 28, 51, 54, 58, 59 };

static size_t put_opt(uint8_t *p, uint8_t code, const void *val, size_t n)
{
	p[0] = code;
	p[1] = (uint8_t)n;
	memcpy(p + 2, val, n);
	return 2 + n;
}

static size_t put_addr(uint8_t *p, uint8_t code, uint32_t addr)
{
	uint8_t v[4];

	put_be32(v, addr);
	return put_opt(p, code, v, sizeof(v));
}

int dhcp_build(uint8_t *buf, size_t cap, const struct dhcp_client *c, int type,
	       uint32_t requested_ip, uint32_t server_id)
{
	size_t hl = c->hostname ? strlen(c->hostname) : 0, need, i;
	uint8_t t = (uint8_t)type, id[7] = { 1 }; /* 1: an Ethernet address */

	if ((type != DHCP_DISCOVER && type != DHCP_REQUEST) || hl > 255)
		return -EINVAL;
	need = BOOTP_OPTIONS + 3 + 2 + sizeof(id) + (type == DHCP_REQUEST ? 12 : 0) +
	       (hl ? 2 + hl : 0) + 2 + sizeof(params) + 1;
	if (need < DHCP_MIN_LEN)
		need = DHCP_MIN_LEN;
	if (cap < need || cap < DHCP_MIN_LEN)
		return -ENOBUFS;
	memset(buf, 0, need);
	buf[BOOTP_OP] = 1;
	buf[BOOTP_HTYPE] = 1;
	buf[BOOTP_HLEN] = 6;
	put_be32(buf + BOOTP_XID, c->xid);
	put_be16(buf + BOOTP_FLAGS, BOOTP_BROADCAST);
	memcpy(buf + BOOTP_CHADDR, c->mac, 6);
	put_be32(buf + BOOTP_COOKIE, DHCP_COOKIE);
	i = BOOTP_OPTIONS;
	i += put_opt(buf + i, OPT_TYPE, &t, 1);
	memcpy(id + 1, c->mac, 6);
	i += put_opt(buf + i, OPT_CLIENT_ID, id, sizeof(id));
	if (type == DHCP_REQUEST) {
		i += put_addr(buf + i, OPT_REQUESTED_IP, requested_ip);
		i += put_addr(buf + i, OPT_SERVER_ID, server_id);
	}
	if (hl)
		i += put_opt(buf + i, OPT_HOSTNAME, c->hostname, hl);
	i += put_opt(buf + i, OPT_PARAMS, params, sizeof(params));
	buf[i] = OPT_END;
	return (int)need;
}

/* ---- the reply ---- */

enum opt_kind { K_ADDR, K_ADDRS, K_U32, K_U16, K_U8, K_STR };

/* The options read into the lease, each at most once (see take_option). */
static const struct opt_row {
	uint8_t code, kind;
	uint16_t off;
} rows[] = {
	{ 1, K_ADDR, offsetof(struct dhcp_lease, netmask) },
	{ 3, K_ADDRS, offsetof(struct dhcp_lease, router) },
	{ 6, K_ADDRS, offsetof(struct dhcp_lease, dns) },
	{ 12, K_STR, offsetof(struct dhcp_lease, hostname) },
	{ 15, K_STR, offsetof(struct dhcp_lease, domain) },
	{ 17, K_STR, offsetof(struct dhcp_lease, root_path) },
	{ 26, K_U16, offsetof(struct dhcp_lease, mtu) },
	{ 28, K_ADDR, offsetof(struct dhcp_lease, broadcast) },
	{ 51, K_U32, offsetof(struct dhcp_lease, lease_secs) },
	{ 53, K_U8, offsetof(struct dhcp_lease, type) },
	{ 54, K_ADDR, offsetof(struct dhcp_lease, server_id) },
	{ 58, K_U32, offsetof(struct dhcp_lease, renew_secs) },
	{ 59, K_U32, offsetof(struct dhcp_lease, rebind_secs) },
	{ 67, K_STR, offsetof(struct dhcp_lease, boot_file) },
};

/* take_str writes up to an option's 255 bytes and a NUL into each */
_Static_assert(sizeof(((struct dhcp_lease *)0)->hostname) == DHCP_STR_MAX &&
		       sizeof(((struct dhcp_lease *)0)->domain) == DHCP_STR_MAX &&
		       sizeof(((struct dhcp_lease *)0)->root_path) == DHCP_STR_MAX &&
		       sizeof(((struct dhcp_lease *)0)->boot_file) == DHCP_STR_MAX,
	       "a string field of the lease holds 255 bytes");

struct walk {
	struct dhcp_lease *out;
	uint8_t seen[32];         /* a bit per option code */
	uint8_t overload;         /* option 52: 1 file, 2 sname, 3 both */
};

static int reject(struct dhcp_lease *out, int rc, const char *why, ...) PRINTF(3, 4);
static int reject(struct dhcp_lease *out, int rc, const char *why, ...)
{
	va_list ap;

	/* a reason longer than why[] is cut; rc says enough */
	va_start(ap, why);
	fmt_vsn(out->why, sizeof(out->why), why, ap);
	va_end(ap);
	return rc;
}

/* A string option or field: trailing NULs dropped (some servers count one),
 * the rest printable ASCII without a quote, as net-DEVICE.conf quotes with
 * ' and a shell sources it. code 0 is the file field. */
static int take_str(struct dhcp_lease *out, char *dst, const uint8_t *v, size_t n,
		    unsigned code)
{
	while (n && !v[n - 1])
		n--;
	for (size_t i = 0; i < n; i++)
		if (v[i] < 0x20 || v[i] > 0x7e || v[i] == '\'')
			return code ? reject(out, -EBADMSG, "option %u holds a byte that is not text", code)
				    : reject(out, -EBADMSG, "the file field holds a byte that is not text");
	memcpy(dst, v, n);
	dst[n] = 0;
	return 0;
}

static int take_row(struct dhcp_lease *out, const struct opt_row *r, const uint8_t *v, size_t n)
{
	static const uint8_t sizes[] = { [K_ADDR] = 4, [K_U32] = 4, [K_U16] = 2, [K_U8] = 1 };
	uint8_t *field = (uint8_t *)out + r->off;
	uint32_t u;
	uint16_t h;

	if (r->kind == K_STR)
		return take_str(out, (char *)field, v, n, r->code);
	if (r->kind == K_ADDRS ? !n || n % 4 : n != sizes[r->kind])
		return reject(out, -EBADMSG, "option %u has the wrong length", r->code);
	switch (r->kind) {
	case K_ADDRS:
		/* the first router; the first DHCP_DNS_MAX name servers */
		for (size_t i = 0; i < n / 4 && i < (r->code == 6 ? DHCP_DNS_MAX : 1); i++) {
			u = get_be32(v + 4 * i);
			memcpy(field + 4 * i, &u, 4);
			if (r->code == 6)
				out->ndns = (unsigned)i + 1;
		}
		return 0;
	case K_U16:
		h = get_be16(v);
		if (h < 68) /* RFC 2132 9.2's least MTU */
			return reject(out, -EBADMSG, "option %u is below 68", r->code);
		memcpy(field, &h, 2);
		return 0;
	case K_U8:
		*field = v[0];
		return 0;
	default:
		u = get_be32(v);
		memcpy(field, &u, 4);
		return 0;
	}
}

/* One option. A code read into the lease may come once: RFC 3396 would
 * join repeats into one long option, which no field here needs, and two
 * routers or masks in two options leave no right one to pick. */
static int take_option(struct walk *w, uint8_t code, const uint8_t *v, size_t n, int top)
{
	if (code == OPT_OVERLOAD && !top)
		return reject(w->out, -EBADMSG, "option %u inside an overloaded field", code);
	if (w->seen[code / 8] & (1u << code % 8)) {
		for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
			if (rows[i].code == code)
				return reject(w->out, -EBADMSG, "option %u appears twice", code);
		if (code == OPT_OVERLOAD)
			return reject(w->out, -EBADMSG, "option %u appears twice", code);
		return 0;
	}
	w->seen[code / 8] |= (uint8_t)(1u << code % 8);
	if (code == OPT_OVERLOAD) {
		if (n != 1 || v[0] < 1 || v[0] > 3)
			return reject(w->out, -EBADMSG, "option %u is not 1, 2 or 3", code);
		w->overload = v[0];
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		if (rows[i].code == code)
			return take_row(w->out, &rows[i], v, n);
	return 0; /* not asked for */
}

/* The options in p[0, len): pad, end, code-length-value. No end before the
 * last byte is an end (klibc's ipconfig reads such replies too). */
static int walk_options(struct walk *w, const uint8_t *p, size_t len, int top)
{
	size_t i = 0, n;
	int rc;

	while (i < len) {
		if (p[i] == OPT_PAD) {
			i++;
			continue;
		}
		if (p[i] == OPT_END)
			return 0;
		if (i + 1 >= len)
			return reject(w->out, -EBADMSG, "option %u has no length", p[i]);
		n = p[i + 1];
		if (!span_ok(len, i + 2, n))
			return reject(w->out, -EBADMSG, "option %u runs past the end", p[i]);
		rc = take_option(w, p[i], p + i + 2, n, top);
		if (rc < 0)
			return rc;
		i += 2 + n;
	}
	return 0;
}

static int check_header(const uint8_t *pkt, size_t len, const struct dhcp_client *c,
			struct dhcp_lease *out)
{
	if (len < BOOTP_OPTIONS)
		return reject(out, -EBADMSG, "shorter than a BOOTP message (%u bytes)", BOOTP_OPTIONS);
	if (pkt[BOOTP_OP] != 2)
		return reject(out, -ENOMSG, "not a reply");
	if (pkt[BOOTP_HTYPE] != 1 || pkt[BOOTP_HLEN] != 6)
		return reject(out, -ENOMSG, "not for an Ethernet address");
	if (get_be32(pkt + BOOTP_XID) != c->xid)
		return reject(out, -ENOMSG, "wrong xid");
	if (memcmp(pkt + BOOTP_CHADDR, c->mac, 6) != 0)
		return reject(out, -ENOMSG, "for another MAC address");
	if (get_be32(pkt + BOOTP_COOKIE) != DHCP_COOKIE)
		return reject(out, -EBADMSG, "no DHCP magic cookie");
	return 0;
}

static int check_lease(struct dhcp_lease *out, const struct walk *w)
{
	if (!(w->seen[OPT_TYPE / 8] & (1u << OPT_TYPE % 8)))
		return reject(out, -EBADMSG, "no message type (option %u): a BOOTP reply", OPT_TYPE);
	if (out->type != DHCP_OFFER && out->type != DHCP_ACK && out->type != DHCP_NAK)
		return reject(out, -EBADMSG, "message type %u is not an offer, ack or nak", out->type);
	if (!out->server_id)
		return reject(out, -EBADMSG, "no server identifier (option %u)", OPT_SERVER_ID);
	if (out->type != DHCP_NAK && !out->yiaddr)
		return reject(out, -EBADMSG, "no address offered");
	return 0;
}

int dhcp_parse(const uint8_t *pkt, size_t len, const struct dhcp_client *c,
	       struct dhcp_lease *out)
{
	struct walk w = { .out = out };
	int rc;

	memset(out, 0, sizeof(*out));
	rc = check_header(pkt, len, c, out);
	if (rc < 0)
		return rc;
	out->yiaddr = get_be32(pkt + BOOTP_YIADDR);
	out->siaddr = get_be32(pkt + BOOTP_SIADDR);
	rc = walk_options(&w, pkt + BOOTP_OPTIONS, len - BOOTP_OPTIONS, 1);
	/* RFC 2131 4.1: the file field holds options first, then sname */
	if (rc == 0 && w.overload & 1)
		rc = walk_options(&w, pkt + BOOTP_FILE, FILE_LEN, 0);
	if (rc == 0 && w.overload & 2)
		rc = walk_options(&w, pkt + BOOTP_SNAME, SNAME_LEN, 0);
	if (rc == 0 && !(w.overload & 1) && !out->boot_file[0]) {
		const uint8_t *f = pkt + BOOTP_FILE;
		const uint8_t *nul = memchr(f, 0, FILE_LEN);

		rc = take_str(out, out->boot_file, f, nul ? (size_t)(nul - f) : FILE_LEN, 0);
	}
	if (rc == 0)
		rc = check_lease(out, &w);
	if (rc < 0)
		return rc;
	out->why[0] = 0;
	return 0;
}
