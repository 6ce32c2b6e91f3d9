// SPDX-License-Identifier: MIT
/* XFS: big-endian superblock at offset 0 ("XFSB"), checked for sane
 * geometry like blkid does, plus the CRC of version 5 superblocks. */
#include "lib/bytes.h"
#include "probe/probe.h"

#include <string.h>

#define XFS_SB_CRC_OFF 224

static int xfs_geometry_ok(const uint8_t *sb)
{
	uint32_t blocksize = get_be32(sb + 4);
	uint64_t dblocks = get_be64(sb + 8);
	uint32_t rextsize = get_be32(sb + 80);
	uint32_t agblocks = get_be32(sb + 84);
	uint32_t agcount = get_be32(sb + 88);
	unsigned sectsize = get_be16(sb + 102);
	unsigned inodesize = get_be16(sb + 104);
	unsigned blocklog = sb[120], sectlog = sb[121], inodelog = sb[122];
	unsigned inopblog = sb[123], imax_pct = sb[127];
	uint64_t rext_bytes = (uint64_t)rextsize * blocksize;

	if (agcount == 0 || agblocks == 0)
		return 0;
	if (sectlog < 9 || sectlog > 15 || sectsize != 1u << sectlog)
		return 0;
	if (blocklog < 9 || blocklog > 16 || blocksize != 1u << blocklog)
		return 0;
	if (inodelog < 8 || inodelog > 11 || inodesize != 1u << inodelog)
		return 0;
	if (blocklog - inodelog != inopblog)
		return 0;
	if (rext_bytes < 4096 || rext_bytes > 1024 * 1024 * 1024)
		return 0;
	if (imax_pct > 100)
		return 0;
	/* dblocks must fill agcount - 1 whole groups plus a minimal last one */
	if (dblocks == 0 || dblocks > (uint64_t)agcount * agblocks ||
	    dblocks < (uint64_t)(agcount - 1) * agblocks + 64)
		return 0;
	return 1;
}

int probe_xfs(const struct probe_src *src, struct probe_info *out)
{
	uint8_t sb[512];
	int rc = probe_read(src, 0, sb, sizeof(sb));

	if (rc)
		return probe_miss(rc);
	if (memcmp(sb, "XFSB", 4) != 0 || !xfs_geometry_ok(sb))
		return 0;
	/* Version 5: CRC32C over the whole sector, crc field read as zero. */
	if ((get_be16(sb + 100) & 0xf) == 5) {
		uint32_t crc = ~0u;

		rc = probe_crc32c_range(src, 0, get_be16(sb + 102), XFS_SB_CRC_OFF, &crc);
		if (rc)
			return probe_miss(rc);
		if (~crc != get_le32(sb + XFS_SB_CRC_OFF))
			return 0;
	}
	probe_set_type(out, "xfs");
	probe_uuid(out->uuid, sizeof(out->uuid), sb + 32);
	probe_label_bytes(out->label, sizeof(out->label), sb + 108, 12);
	return 1;
}
