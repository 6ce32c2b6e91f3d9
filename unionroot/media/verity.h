/* SPDX-License-Identifier: MIT */
/* dm-verity, pure parts: the superblock that `veritysetup format` writes,
 * and the kernel's `verity` table line. The union.verity= value is conf/'s
 * (verity_arg.h). */
#ifndef UNIONROOT_VERITY_H
#define UNIONROOT_VERITY_H

#include <stddef.h>
#include <stdint.h>

#include "conf/verity_arg.h"
#include "lib/defs.h"

#define VERITY_SB_SIZE 512
#define VERITY_TABLE_MAX 1024

struct verity_table {
	const char *data_dev, *hash_dev;
	const char *root;               /* hex */
	const struct verity_geom *geom;
	uint64_t hash_start;            /* in hash blocks */
	int onerror;                    /* enum verity_onerror */
};

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
