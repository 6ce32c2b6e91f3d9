// SPDX-License-Identifier: MIT
/* libFuzzer target for probe_fs and every probe row, and for what a UBI
 * volume is judged to hold from the same bytes. The first byte puts the
 * rest of the input at one of the offsets where signatures live, on an
 * otherwise zero device, so small inputs reach the 32 KiB and 64 KiB ones. */
#include "media/ubi.h"
#include "probe/probe.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint64_t bases[] = { 0, 0x8000, 0x10000, 0x4000 };

struct window {
	const uint8_t *data;
	size_t len;
	uint64_t base;
};

static int window_read(const struct probe_src *src, uint64_t off, void *dst, size_t len)
{
	const struct window *w = src->ctx;
	uint8_t *out = dst;

	if (off > src->size || len > src->size - off)
		return -ERANGE;
	for (size_t i = 0; i < len; i++) {
		uint64_t o = off + i;

		out[i] = o >= w->base && o - w->base < w->len ? w->data[o - w->base] : 0;
	}
	return 0;
}

static void check(const struct probe_info *info, int rc)
{
	if (rc < 0 || rc > 1)
		__builtin_trap();
	if (!memchr(info->type, 0, sizeof(info->type)) || !memchr(info->uuid, 0, sizeof(info->uuid)) ||
	    !memchr(info->label, 0, sizeof(info->label)))
		__builtin_trap();
	if (rc == 1 && !info->type[0])
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct window w;
	struct probe_src src;
	struct probe_info info;
	int rc;

	if (size < 1)
		return 0;
	w.base = bases[data[0] % (sizeof(bases) / sizeof(bases[0]))];
	w.data = data + 1;
	w.len = size - 1;
	src.read = window_read;
	src.size = w.base + w.len;
	src.ctx = &w;
	memset(&info, 0, sizeof(info));
	check(&info, probe_fs(&src, &info));
	/* as the boot judges a UBI volume: what the probe found wins */
	rc = ubi_holds(w.data, w.len, info.type);
	if (rc < UBI_HOLDS_UBIFS || rc > UBI_HOLDS_UNKNOWN || (info.type[0] && rc != UBI_HOLDS_BLOCKFS))
		__builtin_trap();
	for (size_t i = 0; i < probe_table_len; i++) {
		memset(&info, 0x55, sizeof(info));
		info.type[0] = 0;
		info.uuid[sizeof(info.uuid) - 1] = 0;
		info.label[sizeof(info.label) - 1] = 0;
		info.type[sizeof(info.type) - 1] = 0;
		check(&info, probe_table[i].fn(&src, &info));
	}
	return 0;
}
