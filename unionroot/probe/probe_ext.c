// SPDX-License-Identifier: MIT
/* ext2/ext3/ext4 and external ext journals (jbd): one superblock at 1 KiB,
 * the name chosen from the feature flags exactly as blkid chooses it. */
#include "lib/bytes.h"
#include "probe/probe.h"

#include <string.h>

#define EXT_SB_OFF 1024
#define EXT_SB_LEN 1024

#define COMPAT_HAS_JOURNAL 0x0004
#define INCOMPAT_RECOVER 0x0004
#define INCOMPAT_JOURNAL_DEV 0x0008
#define RO_COMPAT_METADATA_CSUM 0x0400

/* What ext2/ext3 drivers understood: anything beyond is ext4
 * (extents, flex_bg, 64bit, huge_file, metadata_csum, ...). */
#define RO_COMPAT_EXT3_SUPP 0x0007 /* sparse_super, large_file, btree_dir */
#define INCOMPAT_EXT2_SUPP 0x0012  /* filetype, meta_bg */
#define INCOMPAT_EXT3_SUPP 0x0016  /* + recover */

static const char *ext_name(uint32_t compat, uint32_t incompat, uint32_t ro_compat)
{
	if (incompat & INCOMPAT_JOURNAL_DEV)
		return "jbd";
	if ((ro_compat & ~RO_COMPAT_EXT3_SUPP) || (incompat & ~INCOMPAT_EXT3_SUPP))
		return "ext4";
	if (compat & COMPAT_HAS_JOURNAL)
		return "ext3";
	/* needs_recovery without a journal: neither ext2 nor ext3, and
	 * blkid names nothing either. s_flags' test_fs bit (ext4dev) is
	 * ignored: current kernels have no ext4dev, and blkid then says ext4. */
	if (incompat & ~INCOMPAT_EXT2_SUPP)
		return NULL;
	return "ext2";
}

int probe_ext(const struct probe_src *src, struct probe_info *out)
{
	uint8_t sb[EXT_SB_LEN];
	const char *name;
	int rc = probe_read(src, EXT_SB_OFF, sb, sizeof(sb));

	if (rc)
		return probe_miss(rc);
	if (get_le16(sb + 0x38) != 0xef53)
		return 0;
	/* s_log_block_size: 1 KiB << n, the kernel accepts up to 64 KiB. */
	if (get_le32(sb + 0x18) > 6)
		return 0;
	name = ext_name(get_le32(sb + 0x5c), get_le32(sb + 0x60), get_le32(sb + 0x64));
	if (!name)
		return 0;
	/* With metadata_csum the superblock carries a CRC32C (seed ~0, not
	 * inverted) of its first 1020 bytes; a mismatch is a stale copy. */
	if (get_le32(sb + 0x64) & RO_COMPAT_METADATA_CSUM) {
		uint32_t crc = crc32c_update(~0u, sb, 0x3fc);

		if (crc != get_le32(sb + 0x3fc))
			return 0;
	}
	probe_set_type(out, name);
	probe_uuid(out->uuid, sizeof(out->uuid), sb + 0x68);
	probe_label_bytes(out->label, sizeof(out->label), sb + 0x78, 16);
	return 1;
}
