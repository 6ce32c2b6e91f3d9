// SPDX-License-Identifier: MIT
/* EROFS: little-endian superblock at 1 KiB, optional CRC32C of the rest of
 * the first block (feature_compat bit 0). */
#include "lib/bytes.h"
#include "probe/probe.h"

#define EROFS_SB_OFF 1024
#define EROFS_MAGIC 0xe0f5e1e2u
#define EROFS_COMPAT_SB_CHKSUM 0x1

int probe_erofs(const struct probe_src *src, struct probe_info *out)
{
	uint8_t sb[128];
	unsigned blkszbits;
	int rc = probe_read(src, EROFS_SB_OFF, sb, sizeof(sb));

	if (rc)
		return probe_miss(rc);
	if (get_le32(sb) != EROFS_MAGIC)
		return 0;
	blkszbits = sb[12];
	if (blkszbits < 9 || blkszbits > 12) /* blkid: at most 4 KiB blocks */
		return 0;
	if (get_le32(sb + 8) & EROFS_COMPAT_SB_CHKSUM) {
		/* The kernel sums the block from the superblock to its end, or
		 * one whole block when blocks are smaller than 1 KiB + sb. */
		uint64_t len = 1u << blkszbits;
		uint32_t crc = ~0u;

		if (len > EROFS_SB_OFF)
			len -= EROFS_SB_OFF;
		rc = probe_crc32c_range(src, EROFS_SB_OFF, len, 4, &crc);
		if (rc)
			return probe_miss(rc);
		if (crc != get_le32(sb + 4))
			return 0;
	}
	probe_set_type(out, "erofs");
	probe_uuid(out->uuid, sizeof(out->uuid), sb + 48);
	probe_label_bytes(out->label, sizeof(out->label), sb + 64, 16);
	return 1;
}
