// SPDX-License-Identifier: MIT
/* The head of an HTTP/1 response, parsed defensively: the status line,
 * Content-Length (digits only, one value however often it is repeated) and
 * Transfer-Encoding (refused); the other fields are skipped. A line ends
 * at LF, a CR before it dropped. */
#include "net/http.h"

#include <errno.h>
#include <string.h>

#include "lib/sbuf.h"
#include "net/dhcp.h"

int http_request(char *buf, size_t cap, uint32_t addr, unsigned port, const char *path)
{
	char host[16], at[8] = "";
	struct sbuf sb;

	ipv4_text(addr, host);
	if (port != 80)
		IGNORE(strfmt(at, sizeof(at), ":%u", port)); /* fits: 1-65535 */
	sbuf_init(&sb, buf, cap);
	sbuf_addf(&sb, "GET %s HTTP/1.1\r\nHost: %s%s\r\nUser-Agent: unionroot\r\nAccept: */*\r\n"
		  "Connection: close\r\n\r\n", path, host, at);
	return sbuf_done(&sb) < 0 ? -ENAMETOOLONG : (int)strlen(buf);
}

static int refuse(struct http_head *h, int rc, const char *why)
{
	IGNORE(strcopy(h->why, sizeof(h->why), why)); /* the reasons fit */
	return rc;
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* Whether line's len bytes start with the field name (any case) and ':'. */
static const char *field(const char *line, size_t len, const char *name)
{
	size_t n = strlen(name);

	if (len <= n || line[n] != ':')
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (lower((unsigned char)line[i]) != name[i])
			return NULL;
	return line + n + 1;
}

/* "HTTP/1.x DDD reason": 0, or -EPROTO. */
static int status_line(const char *l, size_t len, struct http_head *h)
{
	size_t r = 0;

	if (len < 12 || memcmp(l, "HTTP/1.", 7) != 0 || l[7] < '0' || l[7] > '9' || l[8] != ' ' ||
	    l[9] < '1' || l[9] > '9' || l[10] < '0' || l[10] > '9' || l[11] < '0' || l[11] > '9' ||
	    (len > 12 && l[12] != ' '))
		return refuse(h, -EPROTO, "not an HTTP/1 response");
	h->status = (unsigned)(l[9] - '0') * 100 + (unsigned)(l[10] - '0') * 10 + (unsigned)(l[11] - '0');
	for (size_t i = 13; i < len && r + 1 < sizeof(h->reason); i++)
		h->reason[r++] = l[i] >= ' ' && l[i] <= '~' ? l[i] : '?';
	h->reason[r] = '\0';
	return 0;
}

/* Content-Length's value (OWS around digits): 0, or -EPROTO. */
static int length_field(const char *v, const char *end, struct http_head *h)
{
	uint64_t n = 0;
	const char *d;

	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (v == end)
		return refuse(h, -EPROTO, "an empty Content-Length");
	for (d = v; d < end; d++) {
		if (*d < '0' || *d > '9')
			return refuse(h, -EPROTO, "a Content-Length that is not a number");
		n = n * 10 + (uint64_t)(*d - '0');
		if (n > HTTP_LENGTH_MAX)
			return refuse(h, -EPROTO, "a Content-Length beyond any image");
	}
	if (h->has_length && h->length != n)
		return refuse(h, -EPROTO, "two different Content-Lengths");
	h->has_length = 1;
	h->length = n;
	return 0;
}

int http_head_parse(const char *buf, size_t n, struct http_head *h)
{
	size_t at = 0, lines = 0;

	memset(h, 0, sizeof(*h));
	for (;;) {
		const char *l = buf + at, *nl = memchr(l, '\n', n - at), *v;
		size_t len;
		int rc = 0;

		if (!nl)
			return n >= HTTP_HEAD_MAX ? refuse(h, -EMSGSIZE, "a response head over 8 KiB") : 0;
		if ((size_t)(nl - buf) >= HTTP_HEAD_MAX)
			return refuse(h, -EMSGSIZE, "a response head over 8 KiB");
		len = (size_t)(nl - l);
		if (len && l[len - 1] == '\r')
			len--;
		at = (size_t)(nl - buf) + 1;
		if (lines++ == 0)
			rc = status_line(l, len, h);
		else if (len == 0)
			return (int)at;
		else if ((v = field(l, len, "content-length")))
			rc = length_field(v, l + len, h);
		else if (field(l, len, "transfer-encoding"))
			rc = refuse(h, -EPROTONOSUPPORT, "a Transfer-Encoding (chunked), not a plain body");
		if (rc < 0)
			return rc;
	}
}
