// SPDX-License-Identifier: MIT
/* F2FS: superblock at 1 KiB, UTF-16LE volume name, optional CRC32 of the
 * superblock (seeded with the magic, as the kernel's f2fs_crc32). */
#include "lib/bytes.h"
#include "probe/probe.h"

#define F2FS_SB_OFF 1024
#define F2FS_SB_LEN 3072 /* struct f2fs_super_block */
#define F2FS_MAGIC 0xf2f52010u

int probe_f2fs(const struct probe_src *src, struct probe_info *out)
{
	uint8_t sb[F2FS_SB_LEN];
	uint32_t csum_off;
	int rc = probe_read(src, F2FS_SB_OFF, sb, sizeof(sb));

	if (rc)
		return probe_miss(rc);
	if (get_le32(sb) != F2FS_MAGIC)
		return 0;
	/* Version 1.0 had another layout: blkid names it but reads nothing. */
	if (get_le16(sb + 4) == 1 && get_le16(sb + 6) == 0) {
		probe_set_type(out, "f2fs");
		return 1;
	}
	csum_off = get_le32(sb + 0x20);
	if (csum_off) {
		if (!span_ok(sizeof(sb), csum_off, 4))
			return 0;
		if (crc32_update(F2FS_MAGIC, sb, csum_off) != get_le32(sb + csum_off))
			return 0;
	}
	probe_set_type(out, "f2fs");
	probe_uuid(out->uuid, sizeof(out->uuid), sb + 0x6c);
	/* blkid looks at the first byte only: a name starting with a
	 * character whose low byte is 0 counts as no name. */
	if (sb[0x7c])
		probe_label_utf16(out->label, sizeof(out->label), sb + 0x7c, 1024, 0);
	return 1;
}
