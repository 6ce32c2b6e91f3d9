// SPDX-License-Identifier: MIT
/* libFuzzer target for an HTTP response's head: the input is what a server
 * sends. A whole head parses the same from exactly its bytes and waits one
 * byte short of them; a refusal says why in one line; what is kept is in
 * range and printable. */
#include "net/http.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct http_head h, exact;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	int rc = http_head_parse(buf, size, &h);

	if (rc > 0) {
		if ((size_t)rc > size || (size_t)rc > HTTP_HEAD_MAX || h.status < 100 || h.status > 999 ||
		    h.length > HTTP_LENGTH_MAX || (!h.has_length && h.length))
			__builtin_trap();
		if (http_head_parse(buf, (size_t)rc, &exact) != rc || exact.status != h.status ||
		    exact.length != h.length || strcmp(exact.reason, h.reason) != 0)
			__builtin_trap();
		if (http_head_parse(buf, (size_t)rc - 1, &exact) != 0)
			__builtin_trap();
		for (const char *r = h.reason; *r; r++)
			if (*r < ' ' || *r > '~')
				__builtin_trap();
	} else if (rc < 0) {
		if (!h.why[0] || !memchr(h.why, 0, sizeof(h.why)))
			__builtin_trap();
	} else if (size >= HTTP_HEAD_MAX) {
		__builtin_trap(); /* more bytes cannot be waited for past the bound */
	}
	return 0;
}
