// SPDX-License-Identifier: MIT
/* libFuzzer target for the status record and `unionroot status --json`, as a
 * pair. The input, split at NUL bytes, is fields (a key the first byte
 * picks, then any bytes as the value, as a label or a path may hold): what
 * the writer takes reads back field by field, and its JSON is valid, has
 * each key once, the first line's value, invalid UTF-8 as U+FFFD. The input
 * as a record's text, whatever it holds, gives valid JSON too, and the
 * struct parser (lib/runstate.h) reads it or refuses it, never more. The
 * input also fills a struct runstate (strings from its NUL-split pieces,
 * numbers and counts from its bytes): parse(write(s)) == s. */
#include "cmd/json.h"
#include "jsoncheck.h"
#include "lib/record.h"
#include "lib/runstate.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FIELDS_MAX 512

/* keys the record has, and two the JSON makes itself */
static const char *const keys[] = {
	"backend", "lower1", "lower1_image", "upper", "upper_state", "message",
	"messages", "reset_keep", "warnfull", "pid1_ms", "lower2_id", "k",
};

struct field {
	const char *key;
	const char *val;
	size_t len;
};

struct expect {
	struct field f[FIELDS_MAX + 1];
	unsigned n, at;
	char buf[1 << 16]; /* the values as JSON should hold them */
	size_t used;
};

static char text[RECORD_MAX], val[RECORD_MAX], json[1 << 16], input[RECORD_MAX * 2];
static struct jc checker;
static struct expect want;
static struct runstate built, parsed;
static char why[160];

static void put_sbuf(void *ctx, const char *s, size_t n)
{
	sbuf_addn(ctx, s, n);
}

/* What a JSON string of s holds: each byte that starts no valid UTF-8
 * sequence (by jsoncheck's own decoder) as U+FFFD. */
static const char *sanitized(const char *s, size_t n, size_t *len)
{
	char *out = want.buf + want.used;
	size_t k;

	*len = 0;
	for (size_t i = 0; i < n; i += k) {
		unsigned long cp;

		if (want.used + *len + 3 > sizeof(want.buf))
			__builtin_trap();
		k = jc_utf8((const unsigned char *)s + i, n - i, &cp);
		if (k) {
			memcpy(out + *len, s + i, k);
			*len += k;
		} else {
			memcpy(out + *len, "\xef\xbf\xbd", 3);
			*len += 3;
			k = 1;
		}
	}
	want.used += *len;
	return out;
}

static void expect(const char *key, const char *s, size_t n)
{
	if (want.n == FIELDS_MAX + 1)
		__builtin_trap();
	want.f[want.n].key = key;
	want.f[want.n].val = sanitized(s, n, &want.f[want.n].len);
	want.n++;
}

/* jsoncheck's callback: the next field is the one expected */
static void seen(void *ctx, const char *key, size_t klen, const char *s, size_t n)
{
	const struct field *f = &want.f[want.at];

	(void)ctx;
	if (want.at++ >= want.n || strlen(f->key) != klen || memcmp(f->key, key, klen) != 0 ||
	    f->len != n || memcmp(f->val, s, n) != 0)
		__builtin_trap();
}

static size_t to_json(const char *record, jc_field_fn *fn)
{
	static struct json_obj o;
	struct sbuf sb;

	sbuf_init(&sb, json, sizeof(json));
	json_open(&o, put_sbuf, &sb);
	json_record(&o, record);
	json_close(&o);
	if (sbuf_done(&sb) < 0 || jc_check(&checker, json, sb.len, fn, NULL) < 0)
		__builtin_trap();
	return sb.len;
}

/* Any text as the record: the reader's lines decode, and escaped anew
 * decode to the same; the JSON is valid. */
static void any_text(const uint8_t *data, size_t size)
{
	static char twice[RECORD_MAX * 4 + 1], val2[RECORD_MAX * 4 + 1];
	const char *p = input;
	struct record_line l;
	struct sbuf sb;
	size_t n = 0;

	for (size_t i = 0; i < size && n < sizeof(text) - 1; i++)
		if (data[i])
			input[n++] = (char)data[i];
	input[n] = '\0';
	while (record_next(&p, &l)) {
		size_t len = record_unescape(l.val, l.val_len, val);

		sbuf_init(&sb, twice, sizeof(twice));
		record_escape(put_sbuf, &sb, val, len);
		if (sbuf_done(&sb) < 0 || record_unescape(twice, sb.len, val2) != len ||
		    memcmp(val, val2, len) != 0)
			__builtin_trap();
	}
	(void)to_json(input, NULL);
	if (runstate_parse(input, &parsed, why, sizeof(why)) < 0 && (!why[0] || strchr(why, '\n')))
		__builtin_trap(); /* a refusal says why, on one line */
}

/* ---- struct runstate: parse(write(s)) == s ---- */

/* the input's bytes, cyclically, for numbers and counts; its NUL-split
 * pieces, cyclically, for strings */
struct source {
	const uint8_t *data;
	size_t size, at;
	const char *piece[FIELDS_MAX];
	unsigned npiece, next;
};

static uint64_t bytes(struct source *s, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n && s->size; i++)
		v = v << 8 | s->data[s->at++ % s->size];
	return v;
}

static const char *piece(struct source *s)
{
	return s->npiece ? s->piece[s->next++ % s->npiece] : "";
}

/* one word, not empty, as a device node or a type is */
static const char *word(struct source *s, char *buf, size_t cap)
{
	const char *w = piece(s);
	size_t n = 0;

	for (; w[n] && n + 1 < cap; n++)
		buf[n] = w[n] == ' ' ? '_' : w[n];
	if (n == 0 || (n == 1 && buf[0] == '-')) /* "-" is tmpfs's device */
		buf[n++] = 'x';
	buf[n] = '\0';
	return buf;
}

static void build(struct source *s, struct runstate *rs)
{
	static char words[RUNSTATE_LOWER_MAX + 1][2][64];

	memset(rs, 0, sizeof(*rs));
	rs->backend = piece(s);
	rs->mode = bytes(s, 1) & 1 ? piece(s) : "";
	rs->nlower = (unsigned)bytes(s, 1) % (RUNSTATE_LOWER_MAX + 1);
	for (unsigned i = 0; i < rs->nlower; i++) {
		rs->lower[i].spec = piece(s);
		rs->lower[i].dev = word(s, words[i][0], sizeof(words[i][0]));
		rs->lower[i].type = word(s, words[i][1], sizeof(words[i][1]));
		rs->lower[i].image = bytes(s, 1) & 1 ? piece(s) : "";
		rs->lower[i].verity = piece(s);
		rs->lower[i].driver = bytes(s, 1) & 1 ? piece(s) : "";
	}
	rs->upper_kind = (int)(bytes(s, 1) % 3);
	rs->upper_spec = rs->upper_dev = rs->upper_type = "";
	if (rs->upper_kind == RUNSTATE_UPPER_DEVICE) {
		rs->upper_spec = piece(s);
		rs->upper_dev = word(s, words[RUNSTATE_LOWER_MAX][0], sizeof(words[0][0]));
		rs->upper_type = word(s, words[RUNSTATE_LOWER_MAX][1], sizeof(words[0][1]));
	}
	rs->upper_image = bytes(s, 1) & 1 ? piece(s) : "";
	rs->upper_driver = bytes(s, 1) & 1 ? piece(s) : "";
	rs->upper_state = piece(s);
	rs->drivers_left = piece(s);
	rs->root_flags = bytes(s, 1) & 1 ? piece(s) : "";
	rs->warnfull = (int)(uint32_t)bytes(s, 4);
	rs->overlay_options = piece(s);
	rs->reset_applied = (int)(bytes(s, 1) & 1);
	rs->reset_why = rs->reset_applied ? piece(s) : "";
	rs->reset_kept = rs->reset_applied ? (unsigned)bytes(s, 4) : 0;
	rs->reset_refused = rs->reset_applied ? (unsigned)bytes(s, 4) : 0;
	rs->failsafe = piece(s);
	rs->saved = (int)(bytes(s, 1) & 1);
	rs->maxfails = (int)(uint32_t)bytes(s, 4);
	rs->boots_at_boot = (unsigned)bytes(s, 4);
	rs->nlower_id = (unsigned)bytes(s, 1) % (RUNSTATE_LOWER_MAX + 1);
	for (unsigned i = 0; i < rs->nlower_id; i++)
		rs->lower_id[i] = piece(s);
	rs->lower_changed = (int)(bytes(s, 1) & 1);
	rs->upgrade = bytes(s, 1) & 1 ? piece(s) : "";
	rs->pid1_ms = bytes(s, 8);
	rs->modules_ms = bytes(s, 8);
	rs->devices_ms = bytes(s, 8);
	rs->mounts_ms = bytes(s, 8);
	rs->fsck_ms = bytes(s, 1) & 1 ? bytes(s, 8) : 0;
	rs->nmessage = (unsigned)bytes(s, 1) % (RUNSTATE_MESSAGES_MAX + 1);
	for (unsigned i = 0; i < rs->nmessage; i++)
		rs->message[i] = piece(s);
	rs->handoff = (int)(bytes(s, 1) & 1);
	if (rs->handoff) {
		rs->handoff_ms = bytes(s, 8);
		rs->rss_kib = bytes(s, 8);
		rs->memfree_before_kib = bytes(s, 8);
	}
}

static void same(const char *a, const char *b)
{
	if (strcmp(a, b) != 0)
		__builtin_trap();
}

static void same_struct(const struct runstate *a, const struct runstate *b)
{
	same(a->backend, b->backend);
	same(a->mode, b->mode);
	if (a->nlower != b->nlower || a->upper_kind != b->upper_kind || a->warnfull != b->warnfull ||
	    a->reset_applied != b->reset_applied || a->reset_kept != b->reset_kept ||
	    a->reset_refused != b->reset_refused || a->saved != b->saved || a->maxfails != b->maxfails ||
	    a->boots_at_boot != b->boots_at_boot || a->nlower_id != b->nlower_id ||
	    a->lower_changed != b->lower_changed || a->pid1_ms != b->pid1_ms ||
	    a->modules_ms != b->modules_ms || a->devices_ms != b->devices_ms ||
	    a->mounts_ms != b->mounts_ms || a->fsck_ms != b->fsck_ms || a->nmessage != b->nmessage ||
	    a->handoff != b->handoff || a->handoff_ms != b->handoff_ms || a->rss_kib != b->rss_kib ||
	    a->memfree_before_kib != b->memfree_before_kib)
		__builtin_trap();
	for (unsigned i = 0; i < a->nlower; i++) {
		same(a->lower[i].spec, b->lower[i].spec);
		same(a->lower[i].dev, b->lower[i].dev);
		same(a->lower[i].type, b->lower[i].type);
		same(a->lower[i].image, b->lower[i].image);
		same(a->lower[i].verity, b->lower[i].verity);
		same(a->lower[i].driver, b->lower[i].driver);
	}
	same(a->upper_spec, b->upper_spec);
	same(a->upper_dev, b->upper_dev);
	same(a->upper_type, b->upper_type);
	same(a->upper_image, b->upper_image);
	same(a->upper_driver, b->upper_driver);
	same(a->upper_state, b->upper_state);
	same(a->drivers_left, b->drivers_left);
	same(a->root_flags, b->root_flags);
	same(a->overlay_options, b->overlay_options);
	same(a->reset_why, b->reset_why);
	same(a->failsafe, b->failsafe);
	for (unsigned i = 0; i < a->nlower_id; i++)
		same(a->lower_id[i], b->lower_id[i]);
	same(a->upgrade, b->upgrade);
	for (unsigned i = 0; i < a->nmessage; i++)
		same(a->message[i], b->message[i]);
}

/* A struct from the input (copied to input[], its pieces NUL-terminated)
 * through the writer and the parser: the same struct. */
static void struct_round_trip(const uint8_t *data, size_t size)
{
	static struct source src;
	static char written[RECORD_MAX + RECORD_TAIL_MAX];
	struct sbuf sb;

	src.data = data;
	src.size = size;
	src.at = src.next = src.npiece = 0;
	for (const char *p = input; p < input + size && src.npiece < FIELDS_MAX; p += strlen(p) + 1)
		src.piece[src.npiece++] = p;
	build(&src, &built);
	sbuf_init(&sb, written, sizeof(written));
	if (runstate_write(&built, &sb) < 0 || sbuf_done(&sb) < 0)
		return; /* too long for a record: PID 1 says so and writes it cut */
	if (runstate_parse(written, &parsed, why, sizeof(why)) < 0)
		__builtin_trap();
	same_struct(&built, &parsed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct field wrote[FIELDS_MAX];
	const char *p, *key, *end = input + size;
	unsigned n = 0, i, messages = 0;
	struct record_line l;
	struct sbuf sb;

	if (size >= sizeof(input))
		return 0;
	any_text(data, size);

	/* fields through the writer: "KEY=VALUE" with a key of the table */
	memcpy(input, data, size);
	input[size] = '\0';
	sbuf_init(&sb, text, sizeof(text));
	for (p = input; p < end && n < FIELDS_MAX; p += strlen(p) + 1) {
		if (!*p)
			continue;
		key = keys[(unsigned char)*p % (sizeof(keys) / sizeof(keys[0]))];
		record_addf(&sb, "%s=%s", key, p + 1);
		if (sbuf_done(&sb) < 0)
			break; /* that line was left out, and so is any after it */
		wrote[n].key = key;
		wrote[n].val = p + 1;
		wrote[n++].len = strlen(p + 1);
	}
	/* the record: each line's key, then a value with no raw control byte */
	for (size_t k = 0; k < sb.len; k++)
		if (((unsigned char)text[k] < 0x20 && text[k] != '\n') || text[k] == 0x7f)
			__builtin_trap();
	/* it reads back field by field, nothing more */
	p = text;
	for (i = 0; record_next(&p, &l); i++) {
		size_t len = record_unescape(l.val, l.val_len, val);

		if (i >= n || strlen(wrote[i].key) != l.key_len ||
		    memcmp(wrote[i].key, l.key, l.key_len) != 0 || len != wrote[i].len ||
		    memcmp(val, wrote[i].val, len) != 0)
			__builtin_trap();
	}
	if (i != n || (n && record_get(text, wrote[0].key, val, sizeof(val)) < 0))
		__builtin_trap();

	/* the JSON: each key once, the first line's value, then the messages */
	want.n = want.at = 0;
	want.used = 0;
	for (i = 0; i < n; i++) {
		unsigned k;

		if (strcmp(wrote[i].key, "message") == 0) {
			messages++;
			continue;
		}
		for (k = 0; k < i && strcmp(wrote[k].key, wrote[i].key) != 0; k++)
			;
		if (k == i)
			expect(wrote[i].key, wrote[i].val, wrote[i].len);
	}
	for (i = 0; i < want.n && strcmp(want.f[i].key, "messages") != 0; i++)
		;
	if (i == want.n) /* else the record's own "messages" came first */
		for (unsigned k = 0; k < n && messages; k++)
			if (strcmp(wrote[k].key, "message") == 0)
				expect("messages", wrote[k].val, wrote[k].len);
	(void)to_json(text, seen);
	if (want.at != want.n)
		__builtin_trap();

	/* the input, copied a second time (the writer's loop left it as it was) */
	struct_round_trip(data, size);
	return 0;
}
