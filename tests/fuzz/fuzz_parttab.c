// SPDX-License-Identifier: MIT
/* libFuzzer target for parttab_read and parttab_find: the first byte picks
 * the sector size (512 or 4096) and a small output capacity, the rest is
 * the disk. What parttab_find answers for a number must be what the whole
 * list says of it. */
#include "probe/parttab.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct part_entry parts[64];

/* parttab_find(num) versus the list: the same entry, or 0 when not in it */
static void check_find(const struct probe_src *src, unsigned ss, unsigned num, int n)
{
	struct part_entry one;
	int rc = parttab_find(src, ss, num, &one);

	for (int i = 0; i < n; i++)
		if (parts[i].num == num) {
			if (rc != 1 || memcmp(&one, &parts[i], sizeof(one)) != 0)
				__builtin_trap();
			return;
		}
	if (rc != 0)
		__builtin_trap();
}

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
	/* with the whole list known: its last partition, and the number after */
	if (rc > 0) {
		check_find(&src, ss, parts[rc - 1].num, rc);
		check_find(&src, ss, parts[rc - 1].num + 1, rc);
	} else if (rc == 0) {
		check_find(&src, ss, 1, 0);
	}
	return 0;
}
