// SPDX-License-Identifier: MIT
/* libFuzzer target for the NBD handshake: the input is what a server
 * sends, fed whole and a byte at a time; both feedings must end alike, a
 * wait must take every byte, and an end must hold what the kernel needs. */
#include "net/nbd.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct nbd_hs whole, bytewise;

/* Feeds data in chunks; the machine's end, and in *sent what it sent. */
static int drive(struct nbd_hs *h, const uint8_t *data, size_t size, size_t chunk, size_t *sent)
{
	size_t off = 0;

	*sent = 0;
	for (;;) {
		size_t n = size - off < chunk ? size - off : chunk, used, len;
		int rc = nbd_feed(h, data + off, n, &used);

		if (used > n)
			__builtin_trap();
		off += used;
		if (rc == NBD_SEND) {
			nbd_output(h, &len);
			if (!len || len > sizeof(h->out))
				__builtin_trap();
			*sent += len;
			continue;
		}
		if (rc == NBD_WANT) {
			if (used != n || !nbd_need(h))
				__builtin_trap();
			if (off < size)
				continue;
			return rc;
		}
		if (rc == NBD_DONE && !(h->flags & NBD_FLAG_HAS_FLAGS))
			__builtin_trap();
		if (rc < 0 && (!h->why[0] || !memchr(h->why, 0, sizeof(h->why))))
			__builtin_trap();
		if (rc != NBD_DONE && rc >= 0)
			__builtin_trap();
		return rc;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *name = size && data[0] & 1 ? "" : "root";
	size_t sent1, sent2;
	int rc1, rc2;

	if (size < 1)
		return 0;
	if (nbd_start(&whole, name) != 0 || nbd_start(&bytewise, name) != 0)
		__builtin_trap();
	rc1 = drive(&whole, data + 1, size - 1, (size_t)data[0] * 64 + 1, &sent1);
	rc2 = drive(&bytewise, data + 1, size - 1, 1, &sent2);
	if (rc1 != rc2 || sent1 != sent2 || strcmp(whole.why, bytewise.why) != 0)
		__builtin_trap();
	if (rc1 == NBD_DONE && (whole.size != bytewise.size || whole.flags != bytewise.flags))
		__builtin_trap();
	if (rc1 == NBD_WANT && nbd_eof(&whole) != -ECONNRESET)
		__builtin_trap();
	return 0;
}
