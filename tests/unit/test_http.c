// SPDX-License-Identifier: MIT
/* http:// layers: the SPEC, the request, the response's head as Python's
 * http.server and servers that lie send it, and the plan's rule that plain
 * HTTP is taken only verified (union.verity) or by union.insecure=1. */
#include "unit.h"
#include "plan_case.h"

#include "conf/config.h"
#include "conf/spec.h"
#include "net/http.h"
#include "plan/plan.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* http://ADDRESS[:PORT]/PATH: an IPv4 address, a port 1-65535 or 80, a
 * path of printable bytes; an image inside it and a deadline as on any
 * medium, the URL's own ":/" not taken for one */
static void an_http_spec_names_an_address_a_port_and_a_path(void)
{
	static const char *const bad[] = {
		"http://", "http://server/img", "http://10.0.2.100", "http://10.0.2.100:/img",
		"http://10.0.2.100:0/img", "http://10.0.2.100:65536/img", "http://10.0.2.100:8x/img",
		"http://10.0.2.256/img", "http://10.0.2/img", "http://10.0.2.100:1234567/img",
		"http://10.0.2.100/a\tb", "http://10.0.2.100/\x7f", "http:10.0.2.100/img",
	};
	struct spec s;
	char err[128], text[200];
	uint32_t addr;
	unsigned port;
	const char *path;

	CHECK_INT(spec_parse("http://10.0.2.100:8000/live/root.squashfs@30", &s, err, sizeof(err)), 0);
	CHECK_INT(s.kind, SPEC_HTTP);
	CHECK_STR(s.value, "10.0.2.100:8000/live/root.squashfs");
	CHECK_INT(s.npaths, 0);
	CHECK_INT(s.deadline, 30);
	CHECK_INT(spec_http_split(s.value, &addr, &port, &path), 0);
	CHECK(addr == 0x0a000264u);
	CHECK_INT(port, 8000);
	CHECK_STR(path, "/live/root.squashfs");
	CHECK_INT(spec_format(&s, text, sizeof(text)), 0);
	CHECK_STR(text, "http://10.0.2.100:8000/live/root.squashfs@30");
	CHECK_STR(spec_kind_name(SPEC_HTTP), "http");
	CHECK_INT(spec_parse("http://192.168.1.2/root.img:/inner.squashfs", &s, err, sizeof(err)), 0);
	CHECK_STR(s.value, "192.168.1.2/root.img");
	CHECK_INT(s.npaths, 1);
	CHECK_INT(spec_http_split(s.value, &addr, &port, &path), 0);
	CHECK_INT(port, 80);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CHECK(spec_parse(bad[i], &s, err, sizeof(err)) < 0);
		CHECK(err[0] != '\0');
	}
}

static void the_request_names_the_host_and_closes(void)
{
	char buf[256];

	CHECK(http_request(buf, sizeof(buf), 0x0a000264u, 8000, "/root.squashfs") > 0);
	CHECK_STR(buf, "GET /root.squashfs HTTP/1.1\r\nHost: 10.0.2.100:8000\r\nUser-Agent: unionroot\r\n"
		       "Accept: */*\r\nConnection: close\r\n\r\n");
	CHECK(http_request(buf, sizeof(buf), 0x0a000264u, 80, "/a") > 0);
	CHECK(memcmp(buf, "GET /a HTTP/1.1\r\nHost: 10.0.2.100\r\n", 35) == 0);
	CHECK_INT(http_request(buf, 40, 0x0a000264u, 80, "/a"), -ENAMETOOLONG);
}

/* Python 3.11's http.server for a file, then its 404, a redirect */
#define PY_200 "HTTP/1.0 200 OK\r\nServer: SimpleHTTP/0.6 Python/3.11.2\r\nDate: Mon, 07 Dec 2026 05:00:00 GMT\r\n" \
	       "Content-type: application/octet-stream\r\nContent-Length: 4096000\r\n" \
	       "Last-Modified: Mon, 07 Dec 2026 04:59:00 GMT\r\n\r\n"

/* a literal head, parsed whole */
#define PARSE(text, h) http_head_parse(text, sizeof(text) - 1, h)

static void a_head_is_parsed_whole_and_waited_for_in_parts(void)
{
	static const char py404[] = "HTTP/1.0 404 File not found\r\nServer: SimpleHTTP/0.6\r\nContent-Type: text/html;"
				    "charset=utf-8\r\nContent-Length: 335\r\n\r\n<!DOCTYPE";
	static const char moved[] = "HTTP/1.1 301 Moved Permanently\nLocation: http://10.0.2.100/x\n\n";
	static char buf[HTTP_HEAD_MAX + 16];
	struct http_head h;
	size_t n = strlen(PY_200);

	snprintf(buf, sizeof(buf), "%shsqs", PY_200);
	CHECK_INT(http_head_parse(buf, n + 4, &h), (int)n);
	CHECK_INT(h.status, 200);
	CHECK_STR(h.reason, "OK");
	CHECK_INT(h.has_length, 1);
	CHECK(h.length == 4096000);
	for (size_t i = 0; i < n; i++)
		CHECK_INT(http_head_parse(buf, i, &h), 0);
	CHECK(http_head_parse(py404, sizeof(py404) - 1, &h) > 0);
	CHECK_INT(h.status, 404);
	CHECK_STR(h.reason, "File not found");
	CHECK_INT(http_head_parse(moved, sizeof(moved) - 1, &h), (int)sizeof(moved) - 1);
	CHECK_INT(h.status, 301);
	CHECK_INT(h.has_length, 0);
	CHECK(PARSE("HTTP/1.1 200 OK\r\ncontent-LENGTH:  7 \r\n\r\n", &h) > 0);
	CHECK(h.length == 7);
}

static void a_lying_head_is_refused_in_one_line(void)
{
	static const struct {
		const char *head;
		int rc;
	} bad[] = {
		{ "HTTP/2 200 OK\r\n\r\n", -EPROTO },
		{ "SSH-2.0-OpenSSH_9.2\r\n\r\n", -EPROTO },
		{ "HTTP/1.1 20 OK\r\n\r\n", -EPROTO },
		{ "HTTP/1.1 200OK\r\n\r\n", -EPROTO },
		{ "\r\n\r\n", -EPROTO },
		{ "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", -EPROTO },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 0x10\r\n\r\n", -EPROTO },
		{ "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n", -EPROTO },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", -EPROTO },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", -EPROTO },
		{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", -EPROTONOSUPPORT },
	};
	static char big[HTTP_HEAD_MAX + 64];
	struct http_head h;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		h.why[0] = '\0';
		CHECK_INT(http_head_parse(bad[i].head, strlen(bad[i].head), &h), bad[i].rc);
		CHECK(h.why[0] != '\0');
	}
	CHECK(PARSE("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", &h) > 0);
	memset(big, 'x', sizeof(big));
	memcpy(big, "HTTP/1.1 200 OK\r\nX-Pad: ", 24);
	CHECK_INT(http_head_parse(big, sizeof(big), &h), -EMSGSIZE);
	CHECK_INT(http_head_parse(big, HTTP_HEAD_MAX - 1, &h), 0);
	/* a status line's control bytes are not said as they are */
	CHECK(PARSE("HTTP/1.1 500 a\033[2Jb\r\n\r\n", &h) > 0);
	CHECK_STR(h.reason, "a?[2Jb");
}

#define HASH "4392712ba01368efdf14b05c76f9e4df0d53664630b5d48632ed17a137f39076"

/* Verified, an http:// layer is fetched after the network's row and
 * before the wait, then verified as any layer; unverified it is refused
 * before anything is fetched, with one line, and taken with
 * union.insecure=1, said in the plan. A build without the network stops. */
static void plain_http_is_taken_only_verified_or_insecure(void)
{
	static struct config c;
	static struct plan_facts f;
	static struct plan p;
	int r;

	plan_for(&c, &f, &p, "union.lower=/dev/vda,http://10.0.2.100:8000/root.img union.verity=2:" HASH);
	CHECK_INT(p.lower_net, 2);
	CHECK_INT(p.lower_http, 2);
	CHECK_INT(p.http_insecure, 0);
	CHECK_STR(p.net_refused, "");
	r = row_of(&p, RUN_HTTP);
	CHECK(r > 0 && p.row[r - 1].kind == RUN_NET && p.row[r + 1].kind == RUN_WAIT_MEDIA);
	CHECK_INT(p.row[r].arg, 2);
	CHECK_INT(p.row[r].onfail, RUNFAIL_LAYER);
	CHECK(row_of(&p, RUN_VERIFY) > r);
	CHECK_INT(row_of(&p, RUN_NBD), -1);
	CHECK_INT(p.nwait, 1); /* /dev/vda: the fetch gives layer 2's device */
	CHECK_INT(p.wait[0].layer, 1);
	CHECK_INT(plan_row_done(&p, &p.row[r]), 0);
	f.http_done = 2;
	CHECK_INT(plan_row_done(&p, &p.row[r]), 1);

	plan_for(&c, &f, &p, "union.lower=http://10.0.2.100:8000/root.img");
	CHECK_STR(p.net_refused, "read-only layer 1: http://10.0.2.100:8000/root.img is an unauthenticated image: "
				  "give union.verity or union.insecure=1");
	CHECK_INT(p.row[1].kind, RUN_REFUSE);
	CHECK_INT(p.row[1].arg, 1);
	CHECK_INT(p.row[1].onfail, RUNFAIL_LAYER);
	CHECK_STR(p.row[1].why, p.net_refused);
	CHECK_INT(row_of(&p, RUN_NET), -1);
	CHECK_INT(row_of(&p, RUN_HTTP), -1);

	plan_for(&c, &f, &p, "union.lower=http://10.0.2.100:8000/root.img union.insecure=1");
	CHECK_STR(p.net_refused, "");
	CHECK_INT(p.http_insecure, 1);
	r = row_of(&p, RUN_HTTP);
	CHECK(r > 0);
	CHECK_STR(p.row[r].why, "unauthenticated (union.insecure=1)");

	/* a verity entry for another layer does not vouch for this one */
	plan_for(&c, &f, &p, "union.lower=http://10.0.2.100/a.img,/dev/vda union.verity=2:" HASH);
	CHECK_INT(p.row[1].kind, RUN_REFUSE);

	f.no_net = 1;
	plan_build(&f, &p);
	CHECK_INT(p.backend, PLAN_STOP);
	CHECK_STR(p.backend_why, PLAN_NEEDS_NET);
	CHECK_INT(row_of(&p, RUN_HTTP), -1);
}

UNIT_SUITE(http,
	   { "an http:// SPEC names an address, a port and a path", an_http_spec_names_an_address_a_port_and_a_path },
	   { "the request names the host and closes", the_request_names_the_host_and_closes },
	   { "a head is parsed whole and waited for in parts", a_head_is_parsed_whole_and_waited_for_in_parts },
	   { "a lying head is refused in one line", a_lying_head_is_refused_in_one_line },
	   { "plain HTTP is taken only verified or by union.insecure=1", plain_http_is_taken_only_verified_or_insecure });
