/* SPDX-License-Identifier: MIT */
/* A fast 64-bit content hash for change detection (not a cryptographic one:
 * the image is trusted; the hash tells an edited file from an untouched one). */
#ifndef UNIONROOT_CHASH_H
#define UNIONROOT_CHASH_H

#include <stddef.h>
#include <stdint.h>

struct chash {
	uint64_t h;
	uint64_t len;
	unsigned char tail[8];
	unsigned ntail;
};

void chash_init(struct chash *c);
void chash_add(struct chash *c, const void *data, size_t n);
uint64_t chash_final(const struct chash *c);
/* One-shot hash of a buffer. */
uint64_t chash_buf(const void *data, size_t n);

#endif
