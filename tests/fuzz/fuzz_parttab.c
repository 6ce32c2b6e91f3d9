// SPDX-License-Identifier: MIT
/* libFuzzer target for parttab_read: the first byte picks the sector size
 * (512 or 4096) and a small output capacity, the rest is the disk. */
#include "parttab.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct part_entry parts[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe_src src;
	unsigned ss, max;
	int rc;

	if (size < 1)
		return 0;
	ss = data[0] & 1 ? 4096 : 512;
	max = (data[0] >> 1) % 65;
	probe_src_buffer(&src, data + 1, size - 1);
	rc = parttab_read(&src, ss, parts, max);
	if (rc < 0 && rc != -ENOBUFS && rc != -ERANGE)
		__builtin_trap();
	if (rc > (int)max)
		__builtin_trap();
	for (int i = 0; i < rc; i++)
		if (!memchr(parts[i].partuuid, 0, sizeof(parts[i].partuuid)) ||
		    !memchr(parts[i].partlabel, 0, sizeof(parts[i].partlabel)) || !parts[i].num)
			__builtin_trap();
	return 0;
}
