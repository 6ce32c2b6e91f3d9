/* SPDX-License-Identifier: MIT */
/* The NBD handshake, fixed newstyle, client side (the protocol's
 * doc/proto.md): a state machine fed the server's bytes as they come,
 * which says what to send and, at the end, the export the kernel's nbd
 * driver is given (NBD_SET_SIZE, NBD_SET_FLAGS). No I/O. */
#ifndef UNIONROOT_NBD_H
#define UNIONROOT_NBD_H

#include <stddef.h>
#include <stdint.h>

#include "lib/defs.h"

/* handshake flags (the server's) and client flags */
#define NBD_FLAG_FIXED_NEWSTYLE (1u << 0)
#define NBD_FLAG_NO_ZEROES (1u << 1)
/* transmission flags, as NBD_SET_FLAGS takes them */
#define NBD_FLAG_HAS_FLAGS (1u << 0)
#define NBD_FLAG_READ_ONLY (1u << 1)

#define NBD_OPT_EXPORT_NAME 1u
#define NBD_OPT_GO 7u

#define NBD_NAME_MAX 256    /* an export name we send, without its NUL */
#define NBD_REPLY_MAX 65536 /* an option reply's data we take at all */
#define NBD_KEEP 64         /* of which we keep the head (an error's text) */

enum nbd_result {
	NBD_DONE = 0,   /* nbd_hs.size and .flags hold the export */
	NBD_WANT = 1,   /* more of the server's bytes: nbd_need() of them */
	NBD_SEND = 2,   /* nbd_output() holds bytes for the server */
};

struct nbd_hs {
	int state, rc;
	uint16_t hflags;          /* the server's handshake flags */
	uint32_t cflags;          /* the client flags we sent */
	uint32_t opt;             /* the option last sent */
	uint64_t size;            /* the export, at NBD_DONE */
	uint16_t flags;           /* its transmission flags */
	uint8_t got_export;
	uint32_t reply_type, reply_len;
	size_t want, have, skip;  /* the unit being read, what to drop after */
	uint8_t in[NBD_KEEP];
	size_t out_len;
	uint8_t out[4 + 16 + 4 + NBD_NAME_MAX + 2];
	char name[NBD_NAME_MAX + 1];
	char why[128];            /* why it failed, one line */
};

/* Starts a handshake for the export name (may be "", the default export):
 * 0 or -ENAMETOOLONG. */
int nbd_start(struct nbd_hs *h, const char *name) WUR;
/* Takes up to n of the server's bytes; *used says how many it took. An
 * enum nbd_result, or -errno with h->why (the same at every later call):
 * -EPROTO a server not speaking the protocol, -EPROTONOSUPPORT one we
 * cannot use (oldstyle, TLS required), -ENOENT no such export, -EACCES
 * refused by policy, -EMSGSIZE a reply over NBD_REPLY_MAX. */
int nbd_feed(struct nbd_hs *h, const uint8_t *in, size_t n, size_t *used) WUR;
/* The bytes of the server's next unit still to come (at least 1 while
 * NBD_WANT). */
size_t nbd_need(const struct nbd_hs *h);
/* The bytes to write, which it then forgets: *len 0 when none. */
const uint8_t *nbd_output(struct nbd_hs *h, size_t *len);
/* The server closed the connection: -ECONNRESET with a reason (after
 * NBD_OPT_EXPORT_NAME that is how a server says "no such export"). */
int nbd_eof(struct nbd_hs *h) WUR;

#endif
