// SPDX-License-Identifier: MIT
/* /sys/class/ubi names and numbers, parsed from strings, and a volume's
 * content judged from its first bytes: no I/O here. */
#include "media/ubi.h"

#include <errno.h>
#include <string.h>

#include "lib/bytes.h"

/* Digits at *p up to a non-digit; -1 when none or more than six. */
static int number(const char **p)
{
	int v = 0, n = 0;

	for (; **p >= '0' && **p <= '9'; (*p)++, n++) {
		if (n >= 6)
			return -1;
		v = v * 10 + (**p - '0');
	}
	return n ? v : -1;
}

int ubi_entry(const char *name, int *dev, int *vol)
{
	const char *p = name;
	int d, v;

	if (strncmp(p, "ubi", 3) != 0)
		return UBI_NOT_OURS;
	p += 3;
	d = number(&p);
	if (d < 0)
		return UBI_NOT_OURS;
	if (*p == '\0') {
		*dev = d;
		return UBI_DEVICE;
	}
	if (*p++ != '_')
		return UBI_NOT_OURS;
	v = number(&p);
	if (v < 0 || *p)
		return UBI_NOT_OURS;
	*dev = d;
	*vol = v;
	return UBI_VOLUME;
}

int ubi_parse_u64(const char *text, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0;

	for (; *text >= '0' && *text <= '9'; text++, n++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*text - '0');
	}
	if (!n || (*text && strcmp(text, "\n") != 0))
		return -EINVAL;
	*out = v;
	return 0;
}

int ubi_parse_name(const char *text, char *out, unsigned cap)
{
	size_t len = strcspn(text, "\n");

	if (!len || len >= cap || (text[len] && strcmp(text + len, "\n") != 0))
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)text[i] < 0x20)
			return -EINVAL;
	memcpy(out, text, len);
	out[len] = '\0';
	return 0;
}

uint64_t ubi_free_bytes(uint64_t avail_ebs, uint64_t eb_size)
{
	if (!avail_ebs || !eb_size || avail_ebs > INT64_MAX / eb_size)
		return 0;
	return avail_ebs * eb_size;
}

/* UBIFS_NODE_MAGIC (fs/ubifs/ubifs-media.h), little-endian on the media:
 * every ubifs node starts with it, the superblock node at LEB 0 first. */
#define UBIFS_NODE_MAGIC 0x06101831u

int ubi_holds(const uint8_t *head, size_t len, const char *probed)
{
	size_t i;

	if (probed && probed[0])
		return UBI_HOLDS_BLOCKFS;
	if (len >= 4 && get_le32(head) == UBIFS_NODE_MAGIC)
		return UBI_HOLDS_UBIFS;
	for (i = 0; i < len && head[i] == 0xff; i++)
		;
	return len && i == len ? UBI_HOLDS_UBIFS : UBI_HOLDS_UNKNOWN;
}
