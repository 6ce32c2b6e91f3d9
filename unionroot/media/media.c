// SPDX-License-Identifier: MIT
/* Media rules: pure functions over names and numbers. */
#include "media.h"

#include <errno.h>
#include <string.h>

#include "config.h"
#include "strnum.h"

int media_mountable(const char *type)
{
	return str_has_word("iso9660 vfat exfat ext4 ext3 ext2 f2fs erofs btrfs xfs squashfs", type);
}

const char *media_mount_options(const char *type)
{
	/* exfat: utf8 is its own code, no nls module needed */
	return strcmp(type, "vfat") == 0 || strcmp(type, "exfat") == 0 ? "iocharset=utf8" : NULL;
}

int media_holds_images(const char *type)
{
	return str_has_word("iso9660 vfat exfat", type);
}

int media_scan_candidate(const struct blkdev *d, int scan)
{
	if (d->probed != 1 || d->info.encrypted || !media_mountable(d->info.type))
		return 0;
	return scan != SCAN_REMOVABLE || d->removable;
}

int toram_fits(uint64_t size, uint64_t avail, uint64_t *need)
{
	*need = size > UINT64_MAX - TORAM_HEADROOM ? UINT64_MAX : size + TORAM_HEADROOM;
	return *need <= avail ? 0 : -ENOMEM;
}
