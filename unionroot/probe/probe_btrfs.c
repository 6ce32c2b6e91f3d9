// SPDX-License-Identifier: MIT
/* btrfs: the primary superblock at 64 KiB ("_BHRfS_M" at +64). UUID is the
 * filesystem id (shared by all devices), LABEL the 256-byte label. */
#include "lib/bytes.h"
#include "probe/probe.h"

#include <string.h>

#define BTRFS_SB_OFF 0x10000
#define BTRFS_SB_LEN 4096
#define BTRFS_CSUM_CRC32C 0

int probe_btrfs(const struct probe_src *src, struct probe_info *out)
{
	uint8_t sb[BTRFS_SB_LEN];
	int rc = probe_read(src, BTRFS_SB_OFF, sb, sizeof(sb));

	if (rc)
		return probe_miss(rc);
	if (memcmp(sb + 64, "_BHRfS_M", 8) != 0)
		return 0;
	/* The superblock records where it lives; a copy elsewhere is stale. */
	if (get_le64(sb + 48) != BTRFS_SB_OFF)
		return 0;
	/* crc32c (standard: inverted both ends) of everything after the
	 * 32-byte csum field. Other csum types (xxhash, sha256, blake2) are
	 * accepted on the magic alone. */
	if (get_le16(sb + 196) == BTRFS_CSUM_CRC32C &&
	    ~crc32c_update(~0u, sb + 32, sizeof(sb) - 32) != get_le32(sb))
		return 0;
	probe_set_type(out, "btrfs");
	probe_uuid(out->uuid, sizeof(out->uuid), sb + 32);
	probe_label_bytes(out->label, sizeof(out->label), sb + 299, 256);
	return 1;
}
