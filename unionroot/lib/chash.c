// SPDX-License-Identifier: MIT
/* Word-at-a-time multiply/rotate hash with a final avalanche. Each step is a
 * bijection of the state for a given word, so no two single-word edits of
 * the same input collide within one step. */
#include "lib/chash.h"

#include <string.h>

#define K1 0x9e3779b97f4a7c15ull
#define K2 0xc2b2ae3d27d4eb4full
#define K3 0x165667b19e3779f9ull

static uint64_t rotl(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static uint64_t step(uint64_t h, uint64_t w)
{
	return rotl((h ^ (w * K2)) * K1, 29) + K3;
}

void chash_init(struct chash *c)
{
	memset(c, 0, sizeof(*c));
	c->h = K3;
}

void chash_add(struct chash *c, const void *data, size_t n)
{
	const unsigned char *p = data;

	c->len += n;
	while (c->ntail && n) {
		c->tail[c->ntail++] = *p++;
		n--;
		if (c->ntail == 8) {
			c->h = step(c->h, get64(c->tail));
			c->ntail = 0;
		}
	}
	for (; n >= 8; p += 8, n -= 8)
		c->h = step(c->h, get64(p));
	memcpy(c->tail, p, n);
	c->ntail = (unsigned)n;
}

uint64_t chash_final(const struct chash *c)
{
	uint64_t h = c->h, w = 0;

	for (unsigned i = 0; i < c->ntail; i++)
		w |= (uint64_t)c->tail[i] << (8 * i);
	h = step(h, w ^ ((uint64_t)c->ntail << 56));
	h ^= c->len * K1;
	h ^= h >> 33;
	h *= K2;
	h ^= h >> 29;
	h *= K3;
	h ^= h >> 32;
	return h;
}

uint64_t chash_buf(const void *data, size_t n)
{
	struct chash c;

	chash_init(&c);
	chash_add(&c, data, n);
	return chash_final(&c);
}
