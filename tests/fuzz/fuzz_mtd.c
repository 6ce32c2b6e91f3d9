// SPDX-License-Identifier: MIT
/* libFuzzer target for raw flash's parsers (media/mtd.h): the input as the
 * text of /proc/mtd, searched by a name and an index, and as the heads of
 * eraseblocks of a partition (16 bytes each, the reading a scan does),
 * classified and folded as flash.c does, up to the first block holding
 * OpenWrt's end-of-image marker. A found partition's name is terminated and
 * fits; every verdict is a content; a head that starts with the marker is
 * the marker. */
#include "media/mtd.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TEXT_MAX 8192
#define HEAD 16

static void proc_mtd(const uint8_t *data, size_t size)
{
	static char text[TEXT_MAX + 1];
	struct mtd_part p;
	size_t n = size < TEXT_MAX ? size : TEXT_MAX;

	memcpy(text, data, n);
	text[n] = '\0';
	if (mtd_find(text, "rootfs_data", &p) == 0 && strcmp(p.name, "rootfs_data") != 0)
		abort();
	if (mtd_find(text, "3", &p) == 0 && (p.index != 3 || strlen(p.name) >= MTD_NAME_MAX))
		abort();
}

static void heads(const uint8_t *data, size_t size)
{
	unsigned counts[FLASH_KINDS] = { 0 };
	int v;

	for (size_t at = 0; at + HEAD <= size; at += HEAD) {
		int kind = flash_classify(data + at, HEAD);

		if (kind < 0 || kind >= FLASH_KINDS)
			abort();
		if (memcmp(data + at, FLASH_MARKER_BYTES, 4) == 0 && kind != FLASH_MARKER)
			abort();
		counts[kind]++;
		if (kind == FLASH_DATA || kind == FLASH_MARKER)
			break;
	}
	v = flash_verdict(counts);
	if (v < 0 || v >= FLASH_KINDS || (counts[FLASH_DATA] && v != FLASH_DATA))
		abort();
	if (counts[FLASH_MARKER] && !counts[FLASH_UBI] && !counts[FLASH_DATA] && v != FLASH_MARKER)
		abort();
	if (size)
		(void)flash_classify(data, size); /* any length, 0xFF runs and all */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	proc_mtd(data, size);
	heads(data, size);
	return 0;
}
