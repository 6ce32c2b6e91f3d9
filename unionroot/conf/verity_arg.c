// SPDX-License-Identifier: MIT
/* union.verity= parsing: one entry per verified layer, comma-separated;
 * fields of an entry colon-separated. Pure, for config validation, the
 * plan and the fuzzer. */
#include "conf/verity_arg.h"

#include <errno.h>
#include <string.h>

#include "conf/spec.h"
#include "lib/sbuf.h"

/* A decimal number of at most 20 digits in [s, s + n) */
static int number(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0 || n > 20)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (max - (uint64_t)(s[i] - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Hex into dst as lower-case text (bytes: NULL) or as bytes. */
static int hex(const char *s, size_t n, char *text, uint8_t *bytes, size_t maxbytes)
{
	if (n == 0 || n % 2 || n / 2 > maxbytes)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		char c = s[i] >= 'A' && s[i] <= 'F' ? (char)(s[i] - 'A' + 'a') : s[i];
		unsigned v = c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : (unsigned)(c - '0');

		if (v > 15)
			return -EINVAL;
		if (text)
			text[i] = c;
		else if (i % 2)
			bytes[i / 2] = (uint8_t)(bytes[i / 2] << 4 | v);
		else
			bytes[i / 2] = (uint8_t)v;
	}
	if (text)
		text[n] = '\0';
	return 0;
}

/* One field; *seen has a bit for each field given so far, and a field
 * given twice is refused (which one would win is nobody's guess). */
static int option(struct verity_arg *a, const char *f, size_t n, unsigned *seen, const char **why)
{
	struct verity_geom *g = &a->geom;
	unsigned bit = 0;
	uint64_t v;

#define IS(key) (n > sizeof(key) - 1 && memcmp(f, key, sizeof(key) - 1) == 0)
#define VAL(key) (f + sizeof(key) - 1), (n - (sizeof(key) - 1))
	if (n == 4 && memcmp(f, "nosb", 4) == 0) {
		bit = 1;
		a->nosb = 1;
	} else if (IS("offset=")) {
		bit = 2;
		if (number(VAL("offset="), UINT64_MAX - 1, &a->offset) < 0 || a->offset % 512)
			*why = "offset= wants bytes, a multiple of 512";
	} else if (IS("hash=")) {
		bit = 4;
		if (n - 5 >= sizeof(a->hashdev) || n <= 10 || strncmp(f + 5, "/dev/", 5) != 0)
			*why = "hash= wants a /dev/NAME";
		else
			memcpy(a->hashdev, f + 5, n - 5); /* after the memset of entry(): NUL-ended */
	} else if (IS("alg=")) {
		bit = 8;
		if (n - 4 >= sizeof(g->alg)) {
			*why = "alg= is too long";
		} else {
			memcpy(g->alg, f + 4, n - 4);
			g->alg[n - 4] = '\0';
		}
	} else if (IS("bs=")) {
		bit = 16;
		if (number(VAL("bs="), 65536, &v) < 0)
			*why = "bs= wants a block size in bytes";
		else
			g->data_bs = g->hash_bs = (uint32_t)v;
	} else if (IS("blocks=")) {
		bit = 32;
		if (number(VAL("blocks="), UINT64_MAX >> 16, &g->data_blocks) < 0)
			*why = "blocks= wants a number of data blocks";
	} else if (n == 6 && memcmp(f, "salt=-", 6) == 0) {
		bit = 64;
		g->salt_len = 0;
	} else if (IS("salt=")) {
		bit = 64;
		if (hex(VAL("salt="), NULL, g->salt, VERITY_SALT_MAX) < 0)
			*why = "salt= wants hex bytes (at most 256) or -";
		g->salt_len = (unsigned)(n - 5) / 2;
	} else {
		*why = "unknown field (want hash=, offset=, nosb, alg=, bs=, salt=, blocks=)";
	}
	if (!*why && (*seen & bit))
		*why = "a field is given twice";
	*seen |= bit;
	return *why ? -EINVAL : 0;
#undef IS
#undef VAL
}

/* One entry in [s, s + n). */
static int entry(const char *s, size_t n, struct verity_arg *a, const char **why)
{
	const char *end = s + n;
	const char *colon = memchr(s, ':', n);
	size_t len = colon ? (size_t)(colon - s) : n;
	uint64_t layer = 1;
	unsigned seen = 0;

	memset(a, 0, sizeof(*a));
	a->offset = VERITY_OFFSET_AUTO;
	a->geom.hash_type = 1;
	a->geom.data_bs = a->geom.hash_bs = 4096;
	memcpy(a->geom.alg, "sha256", 7);
	if (colon && len <= 2 && number(s, len, SPEC_LIST_MAX, &layer) == 0) {
		s = colon + 1;
		colon = memchr(s, ':', (size_t)(end - s));
		len = colon ? (size_t)(colon - s) : (size_t)(end - s);
	}
	if (layer < 1 || layer > SPEC_LIST_MAX) {
		*why = "layer number out of range";
		return -EINVAL;
	}
	a->layer = (unsigned)layer;
	if (len < 2 || len >= VERITY_HEX_MAX || hex(s, len, a->root, NULL, VERITY_DIGEST_MAX) < 0) {
		*why = "want [LAYER:]ROOTHASH (hex) first";
		return -EINVAL;
	}
	while (colon) {
		s = colon + 1;
		colon = memchr(s, ':', (size_t)(end - s));
		len = colon ? (size_t)(colon - s) : (size_t)(end - s);
		if (option(a, s, len, &seen, why) < 0)
			return -EINVAL;
	}
	if (a->nosb && a->offset == VERITY_OFFSET_AUTO && a->hashdev[0])
		a->offset = 0;
	if (!a->nosb && (a->geom.salt_len || a->geom.data_blocks)) {
		*why = "salt= and blocks= need nosb (a superblock carries them)";
		return -EINVAL;
	}
	return 0;
}

int verity_args_parse(const char *val, struct verity_arg *out, unsigned cap, char *why,
		      size_t whycap)
{
	const char *reason = NULL;
	unsigned n = 0;

	why[0] = '\0';
	for (const char *s = val; *val;) {
		size_t len = strcspn(s, ",");

		if (n == cap)
			reason = "too many entries";
		else if (entry(s, len, &out[n], &reason) == 0)
			for (unsigned i = 0; i < n && !reason; i++)
				if (out[i].layer == out[n].layer)
					reason = "a layer is named twice";
		if (reason) {
			IGNORE(strfmt(why, whycap, "entry %u: %s", n + 1, reason)); /* cut is fine */
			return -EINVAL;
		}
		n++;
		if (!s[len])
			break;
		s += len + 1; /* a trailing comma is an empty entry, refused */
	}
	return (int)n;
}
