/* SPDX-License-Identifier: MIT */
/* An HTTP/1.1 response's head, as a GET of an image to RAM wants it: the
 * request's text, and the status line and the headers that matter parsed
 * from the bytes the server sent (RFC 9112). No I/O. */
#ifndef UNIONROOT_HTTP_H
#define UNIONROOT_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/defs.h"

#define HTTP_HEAD_MAX 8192        /* a head longer than this is refused */
#define HTTP_LENGTH_MAX (1ull << 52) /* a Content-Length we take at all */

struct http_head {
	unsigned status;           /* 100-999 */
	int has_length;            /* Content-Length was given */
	uint64_t length;           /* its value */
	char reason[48];           /* the status line's reason, printable, cut */
	char why[96];              /* why the head was refused, one line */
};

/* The request for path on addr:port (Host names the port unless 80):
 * its length, or -ENAMETOOLONG when cap is too small. */
int http_request(char *buf, size_t cap, uint32_t addr, unsigned port, const char *path) WUR;
/* Parses the head at the start of buf's n bytes: its length (the body
 * starts there) when it is whole, 0 when more bytes are needed, or -errno
 * with h->why: -EMSGSIZE no end within HTTP_HEAD_MAX, -EPROTO not an HTTP/1
 * response or a malformed Content-Length, -EPROTONOSUPPORT a
 * Transfer-Encoding (a body not sent as it is). */
int http_head_parse(const char *buf, size_t n, struct http_head *h) WUR;

#endif
