// SPDX-License-Identifier: MIT
/* squashfs: "hsqs" at offset 0. Version 4 is what Linux mounts; older
 * images are reported as blkid does ("squashfs3"). No UUID, no label. */
#include "lib/bytes.h"
#include "probe/probe.h"

#include <string.h>

int probe_squashfs(const struct probe_src *src, struct probe_info *out)
{
	uint8_t sb[96];
	unsigned major;
	int rc = probe_read(src, 0, sb, sizeof(sb));

	if (rc)
		return probe_miss(rc);
	if (memcmp(sb, "hsqs", 4) == 0) {
		major = get_le16(sb + 28);
	} else if (memcmp(sb, "sqsh", 4) == 0) {
		/* big-endian images exist only before version 4 */
		major = get_be16(sb + 28);
	} else {
		return 0;
	}
	/* s_block_log must agree with s_block_size (v4 has both). */
	if (major >= 4) {
		uint32_t bsize = get_le32(sb + 12);
		unsigned blog = get_le16(sb + 22);

		if (major > 4 || blog < 12 || blog > 20 || bsize != 1u << blog)
			return 0;
		probe_set_type(out, "squashfs");
	} else {
		if (major == 0)
			return 0;
		probe_set_type(out, "squashfs3");
	}
	return 1;
}
