// SPDX-License-Identifier: MIT
/* The NBD fixed newstyle handshake, client side, as nbd-client does it:
 * the greeting, the client flags, NBD_OPT_GO (NBD_OPT_EXPORT_NAME where
 * the server has no GO), its replies. The server is untrusted: each unit
 * is read to a length it declares only within bounds set here, and a
 * short read leaves the machine waiting for the rest. */
#include "net/nbd.h"

#include "lib/bytes.h"
#include "lib/fmt.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#define NBDMAGIC 0x4e42444d41474943ull     /* "NBDMAGIC" */
#define IHAVEOPT 0x49484156454f5054ull     /* "IHAVEOPT" */
#define OLDSTYLE_MAGIC 0x00420281861253ull
#define REPLY_MAGIC 0x0003e889045565a9ull

#define NBD_REP_ACK 1u
#define NBD_REP_INFO 3u
#define NBD_REP_ERR (1u << 31)
#define NBD_REP_ERR_UNSUP (NBD_REP_ERR | 1)
#define NBD_REP_ERR_POLICY (NBD_REP_ERR | 2)
#define NBD_REP_ERR_UNKNOWN (NBD_REP_ERR | 6)
#define NBD_REP_ERR_TLS_REQD (NBD_REP_ERR | 5)
#define NBD_INFO_EXPORT 0u

#define GREETING_LEN 18    /* NBDMAGIC, IHAVEOPT, handshake flags */
#define REPLY_HDR_LEN 20   /* magic, option, type, length */
#define EXPORT_LEN 10      /* NBD_OPT_EXPORT_NAME's answer: size, flags */
#define EXPORT_ZEROES 124  /* and its padding without NO_ZEROES */

enum state { S_GREETING, S_REPLY_HDR, S_REPLY_DATA, S_EXPORT, S_DONE, S_FAILED };

static int fail(struct nbd_hs *h, int rc, const char *why, ...) PRINTF(3, 4);
static int fail(struct nbd_hs *h, int rc, const char *why, ...)
{
	va_list ap;

	va_start(ap, why);
	fmt_vsn(h->why, sizeof(h->why), why, ap);
	va_end(ap);
	h->state = S_FAILED;
	h->rc = rc;
	return rc;
}

static void expect(struct nbd_hs *h, int state, size_t want, size_t skip)
{
	h->state = state;
	h->want = want;
	h->have = 0;
	h->skip = skip;
}

int nbd_start(struct nbd_hs *h, const char *name)
{
	size_t n = strlen(name);

	memset(h, 0, sizeof(*h));
	if (n > NBD_NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(h->name, name, n);
	expect(h, S_GREETING, GREETING_LEN, 0);
	return 0;
}

/* An option request after what out holds: IHAVEOPT, option, length, data. */
static void send_option(struct nbd_hs *h, uint32_t opt)
{
	uint32_t n = (uint32_t)strlen(h->name);
	uint8_t *p = h->out + h->out_len;
	uint32_t len = opt == NBD_OPT_GO ? 4 + n + 2 : n;

	put_be64(p, IHAVEOPT);
	put_be32(p + 8, opt);
	put_be32(p + 12, len);
	p += 16;
	if (opt == NBD_OPT_GO) {
		put_be32(p, n);
		p += 4;
	}
	memcpy(p, h->name, n);
	p += n;
	if (opt == NBD_OPT_GO) {
		put_be16(p, 0); /* no information requests: NBD_INFO_EXPORT comes anyway */
		p += 2;
	}
	h->out_len = (size_t)(p - h->out);
	h->opt = opt;
	if (opt == NBD_OPT_GO)
		expect(h, S_REPLY_HDR, REPLY_HDR_LEN, 0);
	else
		expect(h, S_EXPORT, EXPORT_LEN,
		       h->cflags & NBD_FLAG_NO_ZEROES ? 0 : EXPORT_ZEROES);
}

static int on_greeting(struct nbd_hs *h)
{
	if (get_be64(h->in) != NBDMAGIC)
		return fail(h, -EPROTO, "not an NBD server (no NBDMAGIC)");
	if (get_be64(h->in + 8) == OLDSTYLE_MAGIC)
		return fail(h, -EPROTONOSUPPORT, "an oldstyle NBD server: newstyle is needed");
	if (get_be64(h->in + 8) != IHAVEOPT)
		return fail(h, -EPROTO, "not a newstyle NBD greeting (no IHAVEOPT)");
	h->hflags = get_be16(h->in + 16);
	h->cflags = h->hflags & (NBD_FLAG_FIXED_NEWSTYLE | NBD_FLAG_NO_ZEROES);
	put_be32(h->out, h->cflags);
	h->out_len = 4;
	/* proto.md: a client must not send GO to a server without fixed
	 * newstyle, which may not survive an option it does not know */
	send_option(h, h->hflags & NBD_FLAG_FIXED_NEWSTYLE ? NBD_OPT_GO : NBD_OPT_EXPORT_NAME);
	return 0;
}

static int on_reply_header(struct nbd_hs *h)
{
	uint32_t opt = get_be32(h->in + 8);
	size_t keep;

	if (get_be64(h->in) != REPLY_MAGIC)
		return fail(h, -EPROTO, "not an option reply (magic %llx)",
			    (unsigned long long)get_be64(h->in));
	if (opt != h->opt)
		return fail(h, -EPROTO, "a reply to option %u, not to %u", opt, h->opt);
	h->reply_type = get_be32(h->in + 12);
	h->reply_len = get_be32(h->in + 16);
	if (h->reply_len > NBD_REPLY_MAX)
		return fail(h, -EMSGSIZE, "a reply of %u bytes (at most %u)", h->reply_len,
			    NBD_REPLY_MAX);
	if (h->reply_type == NBD_REP_ACK && h->reply_len)
		return fail(h, -EPROTO, "an NBD_REP_ACK of %u bytes", h->reply_len);
	keep = h->reply_len < NBD_KEEP ? h->reply_len : NBD_KEEP;
	expect(h, S_REPLY_DATA, keep, h->reply_len - keep);
	return 0;
}

/* The server's message, printable bytes only, after what why says. */
static int refused(struct nbd_hs *h, int rc, const char *what)
{
	char text[NBD_KEEP + 1];
	size_t n = h->have;

	for (size_t i = 0; i < n; i++)
		text[i] = h->in[i] >= 0x20 && h->in[i] < 0x7f ? (char)h->in[i] : '?';
	text[n] = 0;
	return fail(h, rc, "the server refused export \"%.32s\": %s%s%s", h->name, what,
		    n ? ": " : "", text);
}

static int on_error(struct nbd_hs *h)
{
	switch (h->reply_type) {
	case NBD_REP_ERR_UNSUP:
		if (h->opt == NBD_OPT_GO) {
			send_option(h, NBD_OPT_EXPORT_NAME);
			return 0;
		}
		return refused(h, -EPROTO, "unsupported");
	case NBD_REP_ERR_UNKNOWN:
		return refused(h, -ENOENT, "no such export");
	case NBD_REP_ERR_POLICY:
		return refused(h, -EACCES, "policy");
	case NBD_REP_ERR_TLS_REQD:
		return refused(h, -EPROTONOSUPPORT, "TLS required");
	default:
		return refused(h, -EPROTO, "error");
	}
}

static int on_reply_data(struct nbd_hs *h)
{
	if (h->reply_type & NBD_REP_ERR)
		return on_error(h);
	if (h->reply_type == NBD_REP_INFO) {
		if (h->reply_len < 2)
			return fail(h, -EPROTO, "an NBD_REP_INFO of %u bytes", h->reply_len);
		if (get_be16(h->in) == NBD_INFO_EXPORT) {
			if (h->reply_len != 12)
				return fail(h, -EPROTO, "an NBD_INFO_EXPORT of %u bytes, not 12",
					    h->reply_len);
			h->size = get_be64(h->in + 2);
			h->flags = get_be16(h->in + 10);
			h->got_export = 1;
		}
		/* the name, description or block sizes: not needed */
		expect(h, S_REPLY_HDR, REPLY_HDR_LEN, 0);
		return 0;
	}
	if (h->reply_type != NBD_REP_ACK)
		return fail(h, -EPROTO, "reply type %u to NBD_OPT_GO", h->reply_type);
	if (!h->got_export)
		return fail(h, -EPROTO, "NBD_REP_ACK without NBD_INFO_EXPORT");
	h->state = S_DONE;
	return 0;
}

static int on_unit(struct nbd_hs *h)
{
	switch (h->state) {
	case S_GREETING:
		return on_greeting(h);
	case S_REPLY_HDR:
		return on_reply_header(h);
	case S_REPLY_DATA:
		return on_reply_data(h);
	default: /* S_EXPORT */
		h->size = get_be64(h->in);
		h->flags = get_be16(h->in + 8);
		h->state = S_DONE;
		return 0;
	}
}

int nbd_feed(struct nbd_hs *h, const uint8_t *in, size_t n, size_t *used)
{
	size_t i = 0, take;

	for (;;) {
		*used = i;
		if (h->state == S_FAILED)
			return h->rc;
		if (h->out_len)
			return NBD_SEND;
		if (h->state == S_DONE) {
			/* proto.md: the server must set it; the kernel reads the rest by it */
			if (!(h->flags & NBD_FLAG_HAS_FLAGS))
				return fail(h, -EPROTO, "transmission flags without NBD_FLAG_HAS_FLAGS");
			return NBD_DONE;
		}
		if (h->have == h->want && !h->skip) {
			int rc = on_unit(h);

			if (rc < 0)
				return rc;
			continue;
		}
		if (i == n)
			return NBD_WANT;
		take = n - i;
		if (h->have < h->want) {
			if (take > h->want - h->have)
				take = h->want - h->have;
			memcpy(h->in + h->have, in + i, take);
			h->have += take;
		} else {
			if (take > h->skip)
				take = h->skip;
			h->skip -= take;
		}
		i += take;
	}
}

size_t nbd_need(const struct nbd_hs *h)
{
	if (h->state == S_DONE || h->state == S_FAILED)
		return 0;
	return h->want - h->have + h->skip;
}

const uint8_t *nbd_output(struct nbd_hs *h, size_t *len)
{
	*len = h->out_len;
	h->out_len = 0;
	return h->out;
}

int nbd_eof(struct nbd_hs *h)
{
	if (h->state == S_FAILED)
		return h->rc;
	if (h->state == S_EXPORT)
		return fail(h, -ECONNRESET, "the server closed after NBD_OPT_EXPORT_NAME: no export \"%.32s\"?",
			    h->name);
	return fail(h, -ECONNRESET, "the server closed the connection mid-handshake");
}
