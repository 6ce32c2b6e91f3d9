// SPDX-License-Identifier: MIT
/* LUKS1 and LUKS2 headers (TYPE crypto_LUKS). The UUID is stored as text;
 * LUKS2 adds a label. A damaged LUKS2 primary header is found through its
 * secondary copy at one of the offsets cryptsetup may put it. */
#include "lib/bytes.h"
#include "probe/probe.h"

#include <string.h>

#define LUKS_HDR_LEN 512

static const uint64_t luks2_secondary[] = {
	0x4000, 0x8000, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000, 0x200000, 0x400000,
};

static int luks_header_ok(const uint8_t *h, const char *magic, uint64_t off)
{
	if (memcmp(h, magic, 6) != 0)
		return 0;
	/* A LUKS2 header names its own offset: a copy elsewhere (e.g. inside
	 * an image stored on this device) is not this device's header. */
	if (get_be16(h + 6) == 2 && get_be64(h + 256) != off)
		return 0;
	return 1;
}

static void luks_fill(const uint8_t *h, struct probe_info *out)
{
	unsigned version = get_be16(h + 6);

	probe_set_type(out, "crypto_LUKS");
	out->encrypted = 1;
	if (version == 1 || version == 2)
		probe_label_bytes(out->uuid, sizeof(out->uuid), h + 168, 40);
	if (version == 2)
		probe_label_bytes(out->label, sizeof(out->label), h + 24, 48);
}

int probe_luks(const struct probe_src *src, struct probe_info *out)
{
	uint8_t h[LUKS_HDR_LEN];
	int rc = probe_read(src, 0, h, sizeof(h));

	if (rc)
		return probe_miss(rc);
	if (luks_header_ok(h, "LUKS\xba\xbe", 0)) {
		luks_fill(h, out);
		return 1;
	}
	for (size_t i = 0; i < sizeof(luks2_secondary) / sizeof(luks2_secondary[0]); i++) {
		rc = probe_read(src, luks2_secondary[i], h, sizeof(h));
		if (rc)
			return probe_miss(rc);
		if (luks_header_ok(h, "SKUL\xba\xbe", luks2_secondary[i])) {
			luks_fill(h, out);
			return 1;
		}
	}
	return 0;
}
