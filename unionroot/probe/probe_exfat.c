// SPDX-License-Identifier: MIT
/* exFAT (TYPE exfat): the boot sector's geometry checked as the kernel and
 * blkid check it, with the boot region's checksum; LABEL from the root
 * directory's label entry (UTF-16LE), UUID the volume serial "XXXX-XXXX". */
#include "lib/bytes.h"
#include "probe/probe.h"

#include <string.h>

#define EXFAT_BOOT_SECTORS 11  /* the checksummed boot region; sector 11 holds the sum */
#define EXFAT_MAX_ENTRIES 10000 /* root directory entries read at most, as blkid */
#define EXFAT_ENTRY_EOD 0x00
#define EXFAT_ENTRY_LABEL 0x83
#define EXFAT_FIRST_CLUSTER 2u
#define EXFAT_LAST_CLUSTER 0xfffffff6u

struct exfat_geo {
	uint32_t sector_bits, cluster_bits; /* cluster_bits: of sectors */
	uint32_t fat_off, heap_off, clusters, root;
};

static int exfat_geometry(const uint8_t *bs, struct exfat_geo *g)
{
	uint32_t fat_len = get_le32(bs + 84), nfats = bs[110];

	if (memcmp(bs, "\xeb\x76\x90" "EXFAT   ", 11) != 0 || get_le16(bs + 510) != 0xaa55)
		return 0;
	for (size_t i = 11; i < 64; i++) /* MustBeZero: where FAT's BPB would be */
		if (bs[i])
			return 0;
	g->sector_bits = bs[108];
	g->cluster_bits = bs[109];
	g->fat_off = get_le32(bs + 80);
	g->heap_off = get_le32(bs + 88);
	g->clusters = get_le32(bs + 92);
	g->root = get_le32(bs + 96);
	if (nfats < 1 || nfats > 2 || g->sector_bits < 9 || g->sector_bits > 12 ||
	    g->cluster_bits > 25 - g->sector_bits)
		return 0;
	if (g->fat_off < 24 || (uint64_t)g->fat_off + (uint64_t)fat_len * nfats > g->heap_off)
		return 0;
	return g->clusters && g->clusters <= EXFAT_LAST_CLUSTER - 1 &&
	       g->root >= EXFAT_FIRST_CLUSTER && g->root <= g->clusters + 1;
}

/* The kernel refuses a volume whose boot region does not match its sum
 * (exfat_verify_boot_region): VolumeFlags and PercentInUse are left out. */
static int exfat_checksum_ok(const struct probe_src *src, const struct exfat_geo *g)
{
	static uint8_t sec[4096];
	uint32_t len = 1u << g->sector_bits, sum = 0;

	for (uint32_t s = 0; s <= EXFAT_BOOT_SECTORS; s++) {
		int rc = probe_read(src, (uint64_t)s * len, sec, len);

		if (rc)
			return rc;
		for (uint32_t i = 0; i < len && s < EXFAT_BOOT_SECTORS; i++)
			if (s || (i != 106 && i != 107 && i != 112))
				sum = ((sum & 1) ? 0x80000000u : 0) + (sum >> 1) + sec[i];
	}
	for (uint32_t i = 0; i < len; i += 4)
		if (get_le32(sec + i) != sum)
			return 0;
	return 1;
}

static uint64_t cluster_offset(const struct exfat_geo *g, uint32_t cluster)
{
	return (((uint64_t)(cluster - EXFAT_FIRST_CLUSTER) << g->cluster_bits) + g->heap_off)
	       << g->sector_bits;
}

/* The label entry of the root directory, followed down its FAT chain a
 * bounded number of entries. 1 found (entry copied), 0 none, -errno. */
static int exfat_label_entry(const struct probe_src *src, const struct exfat_geo *g,
			     uint8_t entry[32])
{
	uint64_t cluster_bytes = 1ull << (g->cluster_bits + g->sector_bits);
	uint32_t cluster = g->root;
	uint64_t off = cluster_offset(g, cluster);

	for (unsigned i = 0; i < EXFAT_MAX_ENTRIES; i++) {
		uint8_t next[4];
		int rc = probe_read(src, off, entry, 32);

		if (rc)
			return rc;
		if (entry[0] == EXFAT_ENTRY_EOD)
			return 0;
		if (entry[0] == EXFAT_ENTRY_LABEL)
			return 1;
		off += 32;
		if (off % cluster_bytes)
			continue;
		rc = probe_read(src, ((uint64_t)g->fat_off << g->sector_bits) + (uint64_t)cluster * 4,
				next, sizeof(next));
		if (rc)
			return rc;
		cluster = get_le32(next);
		if (cluster < EXFAT_FIRST_CLUSTER || cluster > g->clusters + 1)
			return 0;
		off = cluster_offset(g, cluster);
	}
	return 0;
}

int probe_exfat(const struct probe_src *src, struct probe_info *out)
{
	static const char hex[] = "0123456789ABCDEF";
	uint8_t bs[512], entry[32];
	struct exfat_geo g;
	size_t o = 0;
	int rc = probe_read(src, 0, bs, sizeof(bs));

	if (rc)
		return probe_miss(rc);
	if (!exfat_geometry(bs, &g))
		return 0;
	rc = exfat_checksum_ok(src, &g);
	if (rc <= 0)
		return probe_miss(rc);
	probe_set_type(out, "exfat");
	rc = exfat_label_entry(src, &g, entry);
	if (rc < 0 && rc != -ERANGE)
		return rc;
	if (rc == 1)
		probe_label_utf16(out->label, sizeof(out->label), entry + 2,
				  entry[1] < 11 ? (size_t)entry[1] * 2 : 22, 0);
	for (int i = 3; i >= 0; i--) { /* blkid: "%02X%02X-%02X%02X" of bytes 3..0 */
		out->uuid[o++] = hex[bs[100 + i] >> 4];
		out->uuid[o++] = hex[bs[100 + i] & 15];
		if (i == 2)
			out->uuid[o++] = '-';
	}
	out->uuid[o] = 0;
	return 1;
}
