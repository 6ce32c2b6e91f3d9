/* SPDX-License-Identifier: MIT */
/* dm-verity, pure parts: the union.verity= value, the superblock that
 * `veritysetup format` writes, and the kernel's `verity` table line. */
#ifndef UNIONROOT_VERITY_H
#define UNIONROOT_VERITY_H

#include <stddef.h>
#include <stdint.h>

#include "defs.h"

#define VERITY_SB_SIZE 512
#define VERITY_SALT_MAX 256
#define VERITY_DIGEST_MAX 64        /* bytes: sha512 */
#define VERITY_HEX_MAX (2 * VERITY_DIGEST_MAX + 1)
#define VERITY_ALG_MAX 32
#define VERITY_DEV_MAX 48
#define VERITY_TABLE_MAX 1024
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

struct verity_table {
	const char *data_dev, *hash_dev;
	const char *root;               /* hex */
	const struct verity_geom *geom;
	uint64_t hash_start;            /* in hash blocks */
	int onerror;                    /* enum verity_onerror */
};

/* Parses a union.verity= value into up to cap entries (layers distinct).
 * The count, or -EINVAL with why filled. */
int verity_args_parse(const char *val, struct verity_arg *out, unsigned cap, char *why,
		      size_t whycap) WUR;
/* Parses a 512-byte superblock: 0, -ENOENT when it is no verity superblock,
 * -EINVAL (why says what) when it is one with values the kernel would refuse. */
int verity_sb_parse(const uint8_t *sb, size_t len, struct verity_geom *g, const char **why) WUR;
/* Checks a geometry as the kernel's target would: 0 or -EINVAL with why. */
int verity_geom_check(const struct verity_geom *g, const char **why) WUR;
/* The hash block the tree starts at, the superblock at offset (nosb: the
 * tree itself there): what veritysetup passes as <hash_start_block>. */
uint64_t verity_hash_start(uint64_t offset, int nosb, uint32_t hash_bs);
/* Where a file system's image ends (squashfs bytes_used rounded to 4 KiB):
 * where `veritysetup format --hash-offset` puts the appended tree. 0 when
 * the first 4 KiB say nothing known. */
uint64_t verity_data_end(const uint8_t *head, size_t len);
/* The `verity` target's parameter line; 0, -EINVAL or -ENAMETOOLONG. */
int verity_table_format(const struct verity_table *t, char *buf, size_t cap) WUR;
const char *verity_onerror_name(int onerror);

#endif
