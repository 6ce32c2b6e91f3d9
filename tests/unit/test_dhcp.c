// SPDX-License-Identifier: MIT
/* A DHCP client's exchange with busybox 1.35's udhcpd (Debian bookworm),
 * its replies laid out byte for byte; then every way a reply is refused;
 * the lease as ip= and net-DEVICE.conf; the ip= parameter of nfsroot.rst. */
#include "unit.h"

#include "lib/bytes.h"
#include "net/dhcp.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

static const struct dhcp_client client = {
	.mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 },
	.xid = 0x3903f326,
	.hostname = "unionroot",
};

/* The ACK udhcpd sent to the REQUEST dhcp_build made, captured on a veth
 * pair (325 bytes): the BOOTP header, then the options from byte 240. */
static const uint8_t ack_head[44] = {
	0x02, 0x01, 0x06, 0x00, /* op BOOTREPLY, htype Ethernet, hlen 6, hops */
	0x39, 0x03, 0xf3, 0x26, /* xid, ours */
	0x00, 0x00, 0x80, 0x00, /* secs 0, flags: broadcast, as we asked */
	0x00, 0x00, 0x00, 0x00, /* ciaddr */
	0x0a, 0x09, 0x00, 0x3c, /* yiaddr 10.9.0.60 */
	0x0a, 0x09, 0x00, 0x01, /* siaddr 10.9.0.1 (udhcpd.conf's siaddr) */
	0x00, 0x00, 0x00, 0x00, /* giaddr */
	0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* chaddr */
};
/* sname (44..107) is zero; file (108..235) holds "pxelinux.0" */
static const uint8_t ack_options[] = {
	0x63, 0x82, 0x53, 0x63,             /* 236: the magic cookie */
	0x35, 0x01, 0x05,                   /* 53 type: ACK */
	0x36, 0x04, 0x0a, 0x09, 0x00, 0x01, /* 54 server id 10.9.0.1 */
	0x33, 0x04, 0x00, 0x00, 0x0e, 0x10, /* 51 lease 3600 s */
	0x01, 0x04, 0xff, 0xff, 0xff, 0x00, /* 1 netmask /24 */
	0x03, 0x04, 0x0a, 0x09, 0x00, 0x01, /* 3 router */
	0x06, 0x08, 0x0a, 0x09, 0x00, 0x01, 0x0a, 0x09, 0x00, 0x02, /* 6 two DNS */
	0x0c, 0x04, 'b', 'o', 'x', '1',     /* 12 host name */
	0x0f, 0x0b, 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'o', 'r', 'g', /* 15 */
	0x11, 0x16, '1', '0', '.', '9', '.', '0', '.', '1', ':', '/', 's', 'r', 'v',
	'/', 'n', 'f', 's', '/', 'r', 'o', 'o', 't', /* 17 root path */
	0x1a, 0x02, 0x05, 0xdc,             /* 26 MTU 1500 */
	0xff,                               /* end */
};

#define ACK_LEN (236 + sizeof(ack_options))
#define OPT(i) (240 + (i)) /* byte i of the options, after the cookie */
static uint8_t pkt[1024];
static struct dhcp_lease lease;

static size_t load_ack(void)
{
	memset(pkt, 0, sizeof(pkt));
	memcpy(pkt, ack_head, sizeof(ack_head));
	memcpy(pkt + 108, "pxelinux.0", 10);
	memcpy(pkt + 236, ack_options, sizeof(ack_options));
	return ACK_LEN;
}

static void udhcpd_ack_fills_the_lease(void)
{
	size_t len = load_ack();

	CHECK_INT(len, 325);
	CHECK_INT(dhcp_parse(pkt, len, &client, &lease), 0);
	CHECK_INT(lease.type, DHCP_ACK);
	CHECK_INT(lease.yiaddr, 0x0a09003c);
	CHECK_INT(lease.siaddr, 0x0a090001);
	CHECK_INT(lease.server_id, 0x0a090001);
	CHECK_INT(lease.netmask, 0xffffff00);
	CHECK_INT(lease.router, 0x0a090001);
	CHECK_INT(lease.ndns, 2);
	CHECK_INT(lease.dns[1], 0x0a090002);
	CHECK_INT(lease.lease_secs, 3600);
	CHECK_INT(lease.mtu, 1500);
	CHECK_STR(lease.hostname, "box1");
	CHECK_STR(lease.domain, "example.org");
	CHECK_STR(lease.root_path, "10.9.0.1:/srv/nfs/root");
	CHECK_STR(lease.boot_file, "pxelinux.0");
	CHECK_STR(lease.why, "");
}

/* DISCOVER as udhcpd answered it: 300 bytes, the options in this order */
static void discover_is_what_udhcpd_answered(void)
{
	static const uint8_t opts[] = {
		0x63, 0x82, 0x53, 0x63, 0x35, 0x01, 0x01,
		0x3d, 0x07, 0x01, 0x52, 0x54, 0x00, 0x12, 0x34, 0x56,
		0x0c, 0x09, 'u', 'n', 'i', 'o', 'n', 'r', 'o', 'o', 't',
		0x37, 0x0c, 1, 3, 6, 12, 15, 17, 26, 28, 51, 54, 58, 59, 0xff,
	};
	uint8_t buf[DHCP_MIN_LEN];

	memset(buf, 0xee, sizeof(buf));
	CHECK_INT(dhcp_build(buf, sizeof(buf), &client, DHCP_DISCOVER, 0, 0), 300);
	CHECK(!memcmp(buf, "\x01\x01\x06\x00\x39\x03\xf3\x26\x00\x00\x80\x00", 12));
	CHECK(!memcmp(buf + 28, client.mac, 6));
	CHECK(!memcmp(buf + 236, opts, sizeof(opts)));
	for (size_t i = 236 + sizeof(opts); i < sizeof(buf); i++)
		CHECK_INT(buf[i], 0);
	for (size_t i = 34; i < 236; i++)
		CHECK_INT(buf[i], 0);
}

static void request_names_the_offer_and_its_server(void)
{
	static const uint8_t want[] = { 0x32, 0x04, 10, 9, 0, 60, 0x36, 0x04, 10, 9, 0, 1 };
	struct dhcp_client anon = client;
	uint8_t buf[DHCP_MAX_LEN];

	anon.hostname = NULL;
	CHECK_INT(dhcp_build(buf, sizeof(buf), &anon, DHCP_REQUEST, 0x0a09003c, 0x0a090001), 300);
	CHECK_INT(buf[242], DHCP_REQUEST);
	CHECK(!memcmp(buf + 252, want, sizeof(want)));
	CHECK_INT(buf[264], 55);
}

static void build_refuses_small_buffers_and_other_types(void)
{
	char name[257];
	struct dhcp_client c = client;
	uint8_t buf[DHCP_MAX_LEN];

	CHECK_INT(dhcp_build(buf, 299, &client, DHCP_DISCOVER, 0, 0), -ENOBUFS);
	CHECK_INT(dhcp_build(buf, sizeof(buf), &client, DHCP_ACK, 0, 0), -EINVAL);
	memset(name, 'h', 256);
	name[256] = 0;
	c.hostname = name;
	CHECK_INT(dhcp_build(buf, sizeof(buf), &c, DHCP_REQUEST, 1, 2), -EINVAL);
	name[255] = 0; /* 255 bytes: the most an option holds, 536 in all */
	CHECK_INT(dhcp_build(buf, 535, &c, DHCP_REQUEST, 1, 2), -ENOBUFS);
	CHECK_INT(dhcp_build(buf, sizeof(buf), &c, DHCP_REQUEST, 1, 2), 536);
	CHECK_INT(buf[535], 0xff);
}

/* A change to the captured ACK, and what the parser says of it. */
struct bad_reply {
	const char *what;
	size_t at;        /* a byte to set, or SIZE_MAX */
	uint8_t to;
	size_t len;       /* the length to parse: 0 for the whole */
	int rc;
	const char *why;
};

static const struct bad_reply bad_replies[] = {
	{ "a request", 0, 1, 0, -ENOMSG, "not a reply" },
	{ "token ring", 1, 6, 0, -ENOMSG, "not for an Ethernet address" },
	{ "another xid", 7, 0x27, 0, -ENOMSG, "wrong xid" },
	{ "another MAC", 33, 0x57, 0, -ENOMSG, "for another MAC address" },
	{ "no cookie", 236, 0x64, 0, -EBADMSG, "no DHCP magic cookie" },
	{ "a BOOTP header cut short", SIZE_MAX, 0, 239, -EBADMSG, "shorter than a BOOTP message (240 bytes)" },
	{ "the lease time cut", SIZE_MAX, 0, OPT(14), -EBADMSG, "option 51 runs past the end" },
	{ "a code without its length", SIZE_MAX, 0, OPT(9) + 1, -EBADMSG, "option 51 has no length" },
	{ "a lease time of 5 bytes", OPT(10), 5, 0, -EBADMSG, "option 51 has the wrong length" },
	{ "an MTU of 200 bytes at the end", OPT(81), 200, 0, -EBADMSG, "option 26 runs past the end" },
	{ "a type of 2 bytes", OPT(1), 2, 0, -EBADMSG, "option 53 has the wrong length" },
	{ "a netmask of 3 bytes", OPT(16), 3, 0, -EBADMSG, "option 1 has the wrong length" },
	{ "DNS of 7 bytes", OPT(28), 7, 0, -EBADMSG, "option 6 has the wrong length" },
	{ "a DISCOVER's type", OPT(2), 1, 0, -EBADMSG, "message type 1 is not an offer, ack or nak" },
	{ "no type: BOOTP", OPT(0), 0x99, 0, -EBADMSG, "no message type (option 53): a BOOTP reply" },
	{ "no server id", OPT(3), 0x98, 0, -EBADMSG, "no server identifier (option 54)" },
	{ "a host name with a quote", OPT(39), '\'', 0, -EBADMSG, "option 12 holds a byte that is not text" },
	{ "a host name with a newline", OPT(40), '\n', 0, -EBADMSG, "option 12 holds a byte that is not text" },
	{ "a boot file with an escape", 110, 0x1b, 0, -EBADMSG, "the file field holds a byte that is not text" },
	{ "a second type (12 renamed 53)", OPT(37), 53, 0, -EBADMSG, "option 53 appears twice" },
	{ "a bad overload", OPT(37), 52, 0, -EBADMSG, "option 52 is not 1, 2 or 3" },
};

static void every_bad_reply_is_refused_with_its_reason(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(bad_replies); i++) {
		const struct bad_reply *b = &bad_replies[i];
		size_t len = load_ack();
		int rc;

		if (b->at != SIZE_MAX)
			pkt[b->at] = b->to;
		rc = dhcp_parse(pkt, b->len ? b->len : len, &client, &lease);
		if (rc != b->rc || strcmp(lease.why, b->why) != 0) {
			unit_failf(__FILE__, __LINE__, "%s: %d \"%s\", want %d \"%s\"", b->what, rc,
				   lease.why, b->rc, b->why);
			return;
		}
	}
}

static void a_nak_and_an_empty_address(void)
{
	size_t len = load_ack();

	pkt[OPT(2)] = DHCP_NAK;
	memset(pkt + 16, 0, 4);
	CHECK_INT(dhcp_parse(pkt, len, &client, &lease), 0);
	CHECK_INT(lease.type, DHCP_NAK);
	pkt[OPT(2)] = DHCP_OFFER;
	CHECK_INT(dhcp_parse(pkt, len, &client, &lease), -EBADMSG);
	CHECK_STR(lease.why, "no address offered");
	load_ack();
	pkt[OPT(82)] = 0; /* an MTU of 67 */
	pkt[OPT(83)] = 67;
	CHECK_INT(dhcp_parse(pkt, len, &client, &lease), -EBADMSG);
	CHECK_STR(lease.why, "option 26 is below 68");
}

/* Options the lease does not read may repeat; the padding, the end and
 * what follows the end are skipped; a reply without an end ends with its
 * last byte. */
static void unknown_repeats_pads_and_a_missing_end_pass(void)
{
	static const uint8_t tail[] = { 0, 0, 43, 2, 'a', 'b', 43, 0, 0xff, 53, 9 };
	size_t len = load_ack() - 1;

	memcpy(pkt + len, tail, sizeof(tail));
	CHECK_INT(dhcp_parse(pkt, len + sizeof(tail), &client, &lease), 0);
	CHECK_INT(dhcp_parse(pkt, len + 8, &client, &lease), 0);
	CHECK_INT(dhcp_parse(pkt, len, &client, &lease), 0);
	CHECK_INT(lease.mtu, 1500);
}

/* Strings of 255 bytes, the most an option holds, fit whole; option 67
 * names the boot file before the file field does. */
static void longest_strings_fit(void)
{
	size_t len = load_ack() - 1;

	for (int code = 67; code <= 68; code++) {
		pkt[len] = (uint8_t)code; /* 68: an option the lease does not read */
		pkt[len + 1] = 255;
		memset(pkt + len + 2, code == 67 ? 'f' : 0xff, 255);
		pkt[len + 257] = 0xff;
		len += 257;
	}
	memset(lease.why, 'w', sizeof(lease.why));
	CHECK_INT(dhcp_parse(pkt, len + 1, &client, &lease), 0);
	CHECK_INT(strlen(lease.boot_file), 255);
	CHECK_STR(lease.why, "");
	CHECK_INT(lease.boot_file[254], 'f');
}

/* Option 52: options in the file field, then in sname (RFC 2131 4.1);
 * the file field is then no boot file name. */
static void overloaded_fields_hold_options(void)
{
	static const uint8_t in_file[] = { 17, 3, '/', 'r', 't', 0xff };
	static const uint8_t in_sname[] = { 15, 3, 'l', 'a', 'n', 0xff };
	size_t len = load_ack();

	/* the root path and domain renamed 52 and a pad run */
	pkt[OPT(37)] = 52;
	pkt[OPT(38)] = 1;
	pkt[OPT(39)] = 3;
	memset(pkt + OPT(40), 0, 3);
	memset(pkt + OPT(43), 0, 13);
	memset(pkt + OPT(56), 0, 24);
	memset(pkt + 108, 0, 128);
	memcpy(pkt + 108, in_file, sizeof(in_file));
	memcpy(pkt + 44, in_sname, sizeof(in_sname));
	CHECK_INT(dhcp_parse(pkt, len, &client, &lease), 0);
	CHECK_STR(lease.root_path, "/rt");
	CHECK_STR(lease.domain, "lan");
	CHECK_STR(lease.boot_file, "");
	CHECK_STR(lease.hostname, "");
	pkt[108] = 52; /* an overload inside the overloaded field */
	pkt[109] = 1;
	pkt[110] = 1;
	CHECK_INT(dhcp_parse(pkt, len, &client, &lease), -EBADMSG);
	CHECK_STR(lease.why, "option 52 inside an overloaded field");
	pkt[108] = 15; /* the domain in file and in sname */
	pkt[110] = 'x';
	CHECK_INT(dhcp_parse(pkt, len, &client, &lease), -EBADMSG);
	CHECK_STR(lease.why, "option 15 appears twice");
}

static void a_reply_cut_anywhere_is_refused_or_whole(void)
{
	/* where an option of the ACK ends; the first two make a lease */
	static const size_t ends[] = { 9, 15, 21, 27, 37, 43, 56, 80, 84, 85 };
	size_t len = load_ack();

	for (size_t n = 0; n <= len; n++) {
		int rc = dhcp_parse(pkt, n, &client, &lease), whole = 0;

		for (size_t i = 0; i < ARRAY_SIZE(ends); i++)
			whole |= n == OPT(ends[i]);
		if (rc != (whole ? 0 : -EBADMSG) || (rc && !lease.why[0])) {
			unit_failf(__FILE__, __LINE__, "cut at %zu: %d \"%s\"", n, rc, lease.why);
			return;
		}
	}
}

UNIT_SUITE(dhcp,
	{ "an ACK from udhcpd fills the lease: address, mask, router, DNS, names, root path, MTU", udhcpd_ack_fills_the_lease },
	{ "a DISCOVER is 300 bytes with client id, host name and the parameter list", discover_is_what_udhcpd_answered },
	{ "a REQUEST names the offered address and its server", request_names_the_offer_and_its_server },
	{ "a buffer under 300 bytes, another type or a long host name is refused", build_refuses_small_buffers_and_other_types },
	{ "every malformed or foreign reply is refused with its one-line reason", every_bad_reply_is_refused_with_its_reason },
	{ "a NAK needs no address; an OFFER of 0.0.0.0 is refused", a_nak_and_an_empty_address },
	{ "unread options may repeat; pads, the end and no end at all are read", unknown_repeats_pads_and_a_missing_end_pass },
	{ "a boot file name of 255 bytes fits whole and before the file field", longest_strings_fit },
	{ "option 52 moves options into the file and sname fields", overloaded_fields_hold_options },
	{ "a reply cut at any length is refused or read whole, never past its end", a_reply_cut_anywhere_is_refused_or_whole });
