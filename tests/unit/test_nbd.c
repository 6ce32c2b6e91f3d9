// SPDX-License-Identifier: MIT
/* The NBD handshake versus the bytes nbd-server 3.24 (Debian bookworm)
 * sent over a local socket, fed whole and a byte at a time; then servers
 * that lie: wrong magic, huge lengths, replies cut short. */
#include "unit.h"

#include "net/nbd.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

/* nbd-server's greeting: NBDMAGIC, IHAVEOPT, FIXED_NEWSTYLE | NO_ZEROES */
static const uint8_t greeting[18] = {
	'N', 'B', 'D', 'M', 'A', 'G', 'I', 'C', 'I', 'H', 'A', 'V', 'E', 'O', 'P', 'T', 0x00, 0x03,
};
#define REPLY(opt, type, len) \
	0x00, 0x03, 0xe8, 0x89, 0x04, 0x55, 0x65, 0xa9, 0, 0, 0, opt, \
	(uint8_t)((type) >> 24), (uint8_t)((type) >> 16), 0, (uint8_t)(type), 0, 0, 0, len
/* its answer to NBD_OPT_GO "root", a 64 MiB read-only export */
static const uint8_t go_root[] = {
	REPLY(7, 3, 12),                                /* NBD_REP_INFO, 12 bytes */
	0x00, 0x00,                                     /* NBD_INFO_EXPORT */
	0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, /* size 64 MiB */
	0x01, 0x43, /* HAS_FLAGS, READ_ONLY, SEND_WRITE_ZEROES, CAN_MULTI_CONN */
	REPLY(7, 1, 0),                                 /* NBD_REP_ACK */
};
/* and to NBD_OPT_GO "nosuch" */
static const uint8_t go_nosuch[] = {
	REPLY(7, 0x80000006u, 14), 'E', 'x', 'p', 'o', 'r', 't', ' ', 'u', 'n', 'k', 'n', 'o', 'w', 'n',
};
/* what we send: client flags FIXED_NEWSTYLE | NO_ZEROES, then GO "root"
 * with no information requests */
static const uint8_t go_request[] = {
	0x00, 0x00, 0x00, 0x03, 'I', 'H', 'A', 'V', 'E', 'O', 'P', 'T', 0, 0, 0, 7, 0, 0, 0, 10,
	0, 0, 0, 4, 'r', 'o', 'o', 't', 0, 0,
};

static struct nbd_hs hs;
static uint8_t server[70000], sent[1024];
static size_t nserver, nsent;

static void serve(const uint8_t *p, size_t n)
{
	memcpy(server + nserver, p, n);
	nserver += n;
}

static void start(const char *name)
{
	nserver = nsent = 0;
	if (nbd_start(&hs, name) != 0)
		memset(&hs, 0, sizeof(hs));
}

/* Feeds the server's bytes chunk at a time, keeps what the machine sends;
 * -1000 when NBD_WANT left input untaken. */
static int drive(size_t chunk)
{
	size_t off = 0;

	for (;;) {
		size_t n = nserver - off < chunk ? nserver - off : chunk, used, len;
		int rc = nbd_feed(&hs, server + off, n, &used);
		const uint8_t *out;

		off += used;
		if (rc == NBD_SEND) {
			out = nbd_output(&hs, &len);
			memcpy(sent + nsent, out, len);
			nsent += len;
			continue;
		}
		if (rc == NBD_WANT && used != n)
			return -1000;
		if (rc == NBD_WANT && off < nserver)
			continue;
		return rc;
	}
}

static void nbd_server_324_go_whole_and_byte_by_byte(void)
{
	for (size_t chunk = 1; chunk <= sizeof(go_root) + sizeof(greeting); chunk *= 7) {
		start("root");
		CHECK_INT(nbd_need(&hs), 18);
		serve(greeting, sizeof(greeting));
		serve(go_root, sizeof(go_root));
		CHECK_INT(drive(chunk), NBD_DONE);
		CHECK_INT(nsent, sizeof(go_request));
		CHECK(!memcmp(sent, go_request, sizeof(go_request)));
		CHECK_INT(hs.size, 64 << 20);
		CHECK_INT(hs.flags, 0x143);
		CHECK(hs.flags & NBD_FLAG_READ_ONLY);
		CHECK_INT(nbd_need(&hs), 0);
	}
}

static void an_unknown_export_is_enoent_with_the_servers_words(void)
{
	start("nosuch");
	serve(greeting, sizeof(greeting));
	serve(go_nosuch, sizeof(go_nosuch));
	CHECK_INT(drive(5), -ENOENT);
	CHECK_STR(hs.why, "the server refused export \"nosuch\": no such export: Export unknown");
	CHECK_INT(drive(5), -ENOENT); /* and stays so */
}

/* A server without fixed newstyle gets NBD_OPT_EXPORT_NAME, and answers
 * with size, flags and 124 zeroes (as nbd-server does without NO_ZEROES). */
static void an_old_newstyle_server_gets_export_name(void)
{
	static const uint8_t plain[18] = { 'N', 'B', 'D', 'M', 'A', 'G', 'I', 'C',
					   'I', 'H', 'A', 'V', 'E', 'O', 'P', 'T', 0, 0 };
	static const uint8_t want[] = { 0, 0, 0, 0, 'I', 'H', 'A', 'V', 'E', 'O', 'P', 'T',
					0, 0, 0, 1, 0, 0, 0, 4, 'r', 'o', 'o', 't' };
	static const uint8_t answer[134] = { 0, 0, 0, 0, 4, 0, 0, 0, 0x01, 0x43 };

	start("root");
	serve(plain, sizeof(plain));
	serve(answer, sizeof(answer));
	CHECK_INT(drive(sizeof(plain) + 100), NBD_DONE);
	CHECK_INT(nsent, sizeof(want));
	CHECK(!memcmp(sent, want, sizeof(want)));
	CHECK_INT(hs.size, 64 << 20);
	/* cut before the zeroes end: still waiting, and a close says why */
	start("root");
	serve(plain, sizeof(plain));
	serve(answer, 100);
	CHECK_INT(drive(1), NBD_WANT);
	CHECK_INT(nbd_need(&hs), 34);
	CHECK_INT(nbd_eof(&hs), -ECONNRESET);
	CHECK_STR(hs.why, "the server closed after NBD_OPT_EXPORT_NAME: no export \"root\"?");
}

static void go_unsupported_falls_back_to_export_name(void)
{
	static const uint8_t unsup[] = { REPLY(7, 0x80000001u, 0) };
	static const uint8_t answer[10] = { 0, 0, 0, 1, 0, 0, 0, 0, 0x00, 0x01 };

	start("root");
	serve(greeting, sizeof(greeting));
	serve(unsup, sizeof(unsup));
	serve(answer, sizeof(answer)); /* NO_ZEROES: no padding */
	CHECK_INT(drive(3), NBD_DONE);
	CHECK_INT(nsent, sizeof(go_request) + 20);
	CHECK_INT(sent[sizeof(go_request) + 11], 1); /* NBD_OPT_EXPORT_NAME */
	CHECK_INT(hs.size, 1ull << 32);
	CHECK_INT(hs.flags, NBD_FLAG_HAS_FLAGS);
}

/* A long NBD_INFO_DESCRIPTION is read past, not kept. */
static void long_information_is_skipped(void)
{
	static const uint8_t desc[] = { 0x00, 0x03, 0xe8, 0x89, 0x04, 0x55, 0x65, 0xa9, 0, 0, 0, 7,
					0, 0, 0, 3, 0, 0, 0xea, 0x62, 0, 2 }; /* 60002 bytes */

	start("root");
	serve(greeting, sizeof(greeting));
	serve(desc, sizeof(desc));
	memset(server + nserver, 'd', 60000);
	nserver += 60000;
	serve(go_root, sizeof(go_root));
	CHECK_INT(drive(4096), NBD_DONE);
	CHECK_INT(hs.size, 64 << 20);
}

struct lie {
	const char *what;
	size_t at;       /* a byte of greeting + go_root to change */
	uint8_t to;
	int rc;
	const char *why;
};

#define G 18 /* the replies start after the greeting */
static const struct lie lies[] = {
	{ "no NBDMAGIC", 0, 'X', -EPROTO, "not an NBD server (no NBDMAGIC)" },
	{ "no IHAVEOPT", 8, 'X', -EPROTO, "not a newstyle NBD greeting (no IHAVEOPT)" },
	{ "a bad reply magic", G + 7, 0xaa, -EPROTO, "not an option reply (magic 3e889045565aa)" },
	{ "a reply to another option", G + 11, 6, -EPROTO, "a reply to option 6, not to 7" },
	{ "a reply of 4 GiB", G + 16, 0xff, -EMSGSIZE, "a reply of 4278190092 bytes (at most 65536)" },
	{ "an info of 13 bytes", G + 19, 13, -EPROTO, "an NBD_INFO_EXPORT of 13 bytes, not 12" },
	{ "an info of 1 byte", G + 19, 1, -EPROTO, "an NBD_REP_INFO of 1 bytes" },
	{ "NBD_REP_SERVER to GO", G + 15, 2, -EPROTO, "reply type 2 to NBD_OPT_GO" },
	{ "an ACK with data", G + 32 + 19, 4, -EPROTO, "an NBD_REP_ACK of 4 bytes" },
	{ "an ACK first", G + 15, 1, -EPROTO, "an NBD_REP_ACK of 12 bytes" },
	{ "no HAS_FLAGS", G + 31, 0x42, -EPROTO, "transmission flags without NBD_FLAG_HAS_FLAGS" },
	{ "an invalid-option error", G + 12, 0x80, -EPROTO, "the server refused export \"root\": error: " },
};

static void every_lie_is_refused_with_its_reason(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(lies); i++) {
		int rc;

		start("root");
		serve(greeting, sizeof(greeting));
		serve(go_root, sizeof(go_root));
		server[lies[i].at] = lies[i].to;
		rc = drive(sizeof(server));
		if (rc != lies[i].rc || strncmp(hs.why, lies[i].why, strlen(lies[i].why)) != 0) {
			unit_failf(__FILE__, __LINE__, "%s: %d \"%s\", want %d \"%s\"", lies[i].what,
				   rc, hs.why, lies[i].rc, lies[i].why);
			return;
		}
	}
}

static void oldstyle_tls_and_a_dirty_message(void)
{
	static const uint8_t old[] = { 'N', 'B', 'D', 'M', 'A', 'G', 'I', 'C',
				       0, 0, 0x42, 0x02, 0x81, 0x86, 0x12, 0x53, 0, 0 };
	static const uint8_t tls[] = { REPLY(7, 0x80000005u, 3), 'a', '\n', 0x1b };

	start("root");
	serve(old, sizeof(old));
	CHECK_INT(drive(64), -EPROTONOSUPPORT);
	CHECK_STR(hs.why, "an oldstyle NBD server: newstyle is needed");
	start("root");
	serve(greeting, sizeof(greeting));
	serve(tls, sizeof(tls));
	CHECK_INT(drive(64), -EPROTONOSUPPORT);
	CHECK_STR(hs.why, "the server refused export \"root\": TLS required: a??");
	start("root");
	serve(greeting, sizeof(greeting));
	serve(tls, 20);
	server[nserver - 5] = 2; /* NBD_REP_ERR_POLICY, no message */
	server[nserver - 1] = 0;
	CHECK_INT(drive(64), -EACCES);
	CHECK_STR(hs.why, "the server refused export \"root\": policy");
}

static void a_cut_exchange_waits_for_the_rest(void)
{
	for (size_t cut = 0; cut < sizeof(greeting) + sizeof(go_root); cut++) {
		start("root");
		serve(greeting, sizeof(greeting));
		serve(go_root, sizeof(go_root));
		nserver = cut;
		CHECK_INT(drive(cut + 1), NBD_WANT);
		CHECK(nbd_need(&hs) > 0);
		CHECK_INT(nbd_eof(&hs), -ECONNRESET);
	}
}

static void an_export_name_over_256_bytes_is_refused(void)
{
	char name[NBD_NAME_MAX + 2];

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	CHECK_INT(nbd_start(&hs, name), -ENAMETOOLONG);
	name[NBD_NAME_MAX] = 0;
	CHECK_INT(nbd_start(&hs, name), 0);
}

UNIT_SUITE(nbd,
	{ "nbd-server 3.24's greeting and GO exchange, whole and a byte at a time", nbd_server_324_go_whole_and_byte_by_byte },
	{ "an unknown export is -ENOENT with the server's words", an_unknown_export_is_enoent_with_the_servers_words },
	{ "a server without fixed newstyle gets NBD_OPT_EXPORT_NAME and its zeroes", an_old_newstyle_server_gets_export_name },
	{ "NBD_REP_ERR_UNSUP to GO falls back to NBD_OPT_EXPORT_NAME", go_unsupported_falls_back_to_export_name },
	{ "a 60000-byte description is read past, not kept", long_information_is_skipped },
	{ "every lie of a server is refused with its one-line reason", every_lie_is_refused_with_its_reason },
	{ "an oldstyle server, TLS required, a message with control bytes", oldstyle_tls_and_a_dirty_message },
	{ "an exchange cut anywhere waits for the rest; a close says why", a_cut_exchange_waits_for_the_rest },
	{ "an export name over 256 bytes is refused", an_export_name_over_256_bytes_is_refused });
