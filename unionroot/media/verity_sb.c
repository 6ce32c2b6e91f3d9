// SPDX-License-Identifier: MIT
/* The dm-verity superblock (cryptsetup's lib/verity/verity.c layout, 512
 * bytes, little-endian) and the hash tree's place: read from untrusted
 * media, so every field is checked against what the kernel's target takes. */
#include <errno.h>
#include <string.h>

#include "lib/bytes.h"
#include "media/verity.h"

#define SB_VERSION 8
#define SB_HASH_TYPE 12
#define SB_ALG 32
#define SB_DATA_BS 64
#define SB_HASH_BS 68
#define SB_DATA_BLOCKS 72
#define SB_SALT_SIZE 80
#define SB_SALT 88

/* The kernel's own limits (dm-verity-target.c): power-of-two blocks from
 * the device's logical block to the page size; 64 KiB bounds all pages. */
static int block_size_ok(uint32_t bs)
{
	return bs >= 512 && bs <= 65536 && is_pow2(bs);
}

static int alg_ok(const char *alg)
{
	size_t n = strnlen(alg, VERITY_ALG_MAX);

	if (n == 0 || n == VERITY_ALG_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((alg[i] >= 'a' && alg[i] <= 'z') || (alg[i] >= '0' && alg[i] <= '9') ||
		      alg[i] == '-' || alg[i] == '_'))
			return 0;
	return 1;
}

int verity_geom_check(const struct verity_geom *g, const char **why)
{
	*why = NULL;
	if (g->hash_type > 1)
		*why = "unknown hash type";
	else if (!alg_ok(g->alg))
		*why = "hash algorithm name is not a plain name";
	else if (!block_size_ok(g->data_bs) || !block_size_ok(g->hash_bs))
		*why = "block size is not a power of two from 512 to 65536";
	else if (g->data_blocks == 0 || g->data_blocks > (UINT64_MAX >> 16))
		*why = "data block count is zero or absurd";
	else if (g->salt_len > VERITY_SALT_MAX)
		*why = "salt is longer than 256 bytes";
	return *why ? -EINVAL : 0;
}

int verity_sb_parse(const uint8_t *sb, size_t len, struct verity_geom *g, const char **why)
{
	*why = "not a verity superblock";
	memset(g, 0, sizeof(*g));
	if (len < VERITY_SB_SIZE || memcmp(sb, "verity\0\0", 8) != 0)
		return -ENOENT;
	if (get_le32(sb + SB_VERSION) != 1) {
		*why = "superblock version is not 1";
		return -EINVAL;
	}
	g->hash_type = get_le32(sb + SB_HASH_TYPE);
	memcpy(g->alg, sb + SB_ALG, VERITY_ALG_MAX - 1); /* stays NUL-terminated */
	if (memchr(sb + SB_ALG, 0, VERITY_ALG_MAX) == NULL) {
		*why = "hash algorithm name is not terminated";
		return -EINVAL;
	}
	g->data_bs = get_le32(sb + SB_DATA_BS);
	g->hash_bs = get_le32(sb + SB_HASH_BS);
	g->data_blocks = get_le64(sb + SB_DATA_BLOCKS);
	g->salt_len = get_le16(sb + SB_SALT_SIZE);
	if (g->salt_len > VERITY_SALT_MAX) {
		*why = "salt is longer than 256 bytes";
		return -EINVAL;
	}
	memcpy(g->salt, sb + SB_SALT, g->salt_len);
	return verity_geom_check(g, why);
}

uint64_t verity_hash_start(uint64_t offset, int nosb, uint32_t hash_bs)
{
	/* veritysetup: the tree starts at the first hash block after the
	 * superblock (VERITY_hash_offset_block) */
	uint64_t end = nosb ? offset : offset + VERITY_SB_SIZE + hash_bs - 1;

	return hash_bs ? end / hash_bs : 0;
}

uint64_t verity_data_end(const uint8_t *head, size_t len)
{
	uint64_t used;

	if (len < 48 || memcmp(head, "hsqs", 4) != 0)
		return 0;
	used = get_le64(head + 40); /* bytes_used */
	if (used == 0 || used > UINT64_MAX - 4096)
		return 0;
	return (used + 4095) & ~(uint64_t)4095;
}
