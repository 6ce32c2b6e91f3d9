// SPDX-License-Identifier: MIT
/* Blank detection on a buffer. A partition that merely lost its superblock
 * still has data behind it: it is not blank, so it is never formatted. */
#include <string.h>

#include "branch/blank.h"

int blank_bytes(const uint8_t *buf, size_t len)
{
	if (!len || (buf[0] != 0x00 && buf[0] != 0xff))
		return 0;
	for (size_t i = 1; i < len; i++)
		if (buf[i] != buf[0])
			return 0;
	return 1;
}

int format_mark_is(const uint8_t *buf, size_t len)
{
	return len >= sizeof(FORMAT_MARK) - 1 && memcmp(buf, FORMAT_MARK, sizeof(FORMAT_MARK) - 1) == 0;
}
