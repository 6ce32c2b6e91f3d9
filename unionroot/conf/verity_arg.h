/* SPDX-License-Identifier: MIT */
/* The union.verity= value: which read-only layer dm-verity checks, against
 * which root hash, with the hash tree where. */
#ifndef UNIONROOT_VERITY_ARG_H
#define UNIONROOT_VERITY_ARG_H

#include <stddef.h>
#include <stdint.h>

#include "lib/defs.h"

#define VERITY_SALT_MAX 256
#define VERITY_DIGEST_MAX 64        /* bytes: sha512 */
#define VERITY_HEX_MAX (2 * VERITY_DIGEST_MAX + 1)
#define VERITY_ALG_MAX 32
#define VERITY_DEV_MAX 48
#define VERITY_OFFSET_AUTO UINT64_MAX /* appended: after the file system's end */

enum verity_onerror { VERITY_EIO, VERITY_RESTART, VERITY_PANIC };

/* The hash tree's geometry and salt: from the superblock or parameters. */
struct verity_geom {
	uint32_t hash_type;             /* 1 normal, 0 Chrome OS */
	char alg[VERITY_ALG_MAX];
	uint32_t data_bs, hash_bs;
	uint64_t data_blocks;
	uint8_t salt[VERITY_SALT_MAX];
	unsigned salt_len;
};

/* One entry of union.verity=: [N:]ROOTHASH[:hash=/dev/X][:offset=BYTES]
 * [:nosb[:alg=NAME][:bs=BYTES][:salt=HEX|-][:blocks=N]]. */
struct verity_arg {
	unsigned layer;                 /* 1-based */
	char root[VERITY_HEX_MAX];      /* lower-case hex */
	char hashdev[VERITY_DEV_MAX];   /* "" = the data device itself */
	uint64_t offset;                /* of the superblock (or tree), VERITY_OFFSET_AUTO */
	int nosb;                       /* no superblock: geometry from parameters */
	struct verity_geom geom;        /* with nosb; data_blocks 0 = from the offset or size */
};

/* Parses a union.verity= value into up to cap entries (layers distinct).
 * The count, or -EINVAL with why filled. */
int verity_args_parse(const char *val, struct verity_arg *out, unsigned cap, char *why,
		      size_t whycap) WUR;

#endif
