// SPDX-License-Identifier: MIT
/* FAT12/16/32 (TYPE vfat). LABEL as blkid prints it: the volume-label entry
 * of the root directory wins over the boot sector's copy, and "NO NAME"
 * means none. UUID is the volume serial as "XXXX-XXXX". */
#include "lib/bytes.h"
#include "probe/probe.h"

#include <string.h>

#define FAT12_MAX 0xff4u
#define FAT16_MAX 0xfff4u
#define FAT32_MAX 0x0ffffff6u
#define FAT32_MAX_CHAIN 99 /* root directory clusters we follow, as blkid */
#define FAT_MAX_SCAN 65536 /* directory entries read at most (2 MiB) */

#define ATTR_VOLUME_ID 0x08
#define ATTR_DIR 0x10
#define ATTR_LONG_NAME 0x0f
#define ATTR_MASK 0x3f

static const uint8_t no_name[11] = "NO NAME    ";

struct fat_geo {
	uint32_t sector_size, cluster_sectors, reserved, fat_sectors;
	uint32_t root_entries, cluster_count;
	int fat16, fat32; /* FAT12/16 length field, else FAT32's; maybe neither */
};

/* The boot-sector checks blkid does, with 64-bit arithmetic: 0 when this
 * is no FAT boot sector. */
static int fat_geometry(const uint8_t *bs, struct fat_geo *g)
{
	int has_magic = memcmp(bs + 0x52, "MSWIN", 5) == 0 ||
			memcmp(bs + 0x52, "FAT32   ", 8) == 0 ||
			memcmp(bs + 0x36, "MSDOS", 5) == 0 ||
			memcmp(bs + 0x36, "FAT16   ", 8) == 0 ||
			memcmp(bs + 0x36, "FAT12   ", 8) == 0 ||
			memcmp(bs + 0x36, "FAT     ", 8) == 0;
	uint32_t sectors, fat_len, dir_sectors, fats = bs[0x10], media = bs[0x15];
	uint64_t meta;

	if (!has_magic) {
		/* Only the x86 jump or the 0x55AA mark: demand the mark, and
		 * rule out the FAT-like headers JFS and HPFS leave there. */
		if (bs[0x1fe] != 0x55 || bs[0x1ff] != 0xaa)
			return 0;
		if (memcmp(bs + 0x36, "JFS     ", 8) == 0 || memcmp(bs + 0x36, "HPFS    ", 8) == 0)
			return 0;
	}
	g->sector_size = get_le16(bs + 0x0b);
	g->cluster_sectors = bs[0x0d];
	g->reserved = get_le16(bs + 0x0e);
	g->root_entries = get_le16(bs + 0x11);
	if (!fats || !g->reserved || !(media >= 0xf8 || media == 0xf0))
		return 0;
	if (!is_pow2(g->cluster_sectors))
		return 0;
	if (!is_pow2(g->sector_size) || g->sector_size < 512 || g->sector_size > 4096)
		return 0;
	sectors = get_le16(bs + 0x13);
	if (!sectors)
		sectors = get_le32(bs + 0x20);
	fat_len = get_le16(bs + 0x16);
	g->fat16 = fat_len != 0;
	g->fat32 = !fat_len && get_le32(bs + 0x24);
	if (!fat_len)
		fat_len = get_le32(bs + 0x24);
	g->fat_sectors = fat_len * fats;
	if ((uint64_t)fat_len * fats > UINT32_MAX)
		return 0;
	dir_sectors = (g->root_entries * 32 + g->sector_size - 1) / g->sector_size;
	meta = (uint64_t)g->reserved + g->fat_sectors + dir_sectors;
	if (meta > sectors)
		return 0;
	g->cluster_count = (uint32_t)((sectors - meta) / g->cluster_sectors);
	if (g->fat32 ? g->cluster_count > FAT32_MAX
		     : g->cluster_count > (g->cluster_count > FAT12_MAX ? FAT16_MAX : FAT12_MAX))
		return 0;
	return 1;
}

/* Scans n directory entries at off for the volume label. 1 found (name
 * copied), 0 not found, -errno. Stops at the end-of-directory mark. */
static int fat_dir_label(const struct probe_src *src, uint64_t off, uint32_t n, uint8_t name[11],
			 uint32_t *budget)
{
	uint8_t buf[512];

	for (uint32_t i = 0; i < n; i++) {
		if (!(*budget)--)
			return 0;
		const uint8_t *e;

		if (i % 16 == 0) {
			size_t len = (n - i) >= 16 ? sizeof(buf) : (size_t)(n - i) * 32;
			int rc = probe_read(src, off + (uint64_t)i * 32, buf, len);

			if (rc)
				return rc;
		}
		e = buf + (i % 16) * 32;
		if (e[0] == 0)
			return 0;
		if (e[0] == 0xe5 || get_le16(e + 20) || get_le16(e + 26) ||
		    (e[11] & ATTR_MASK) == ATTR_LONG_NAME)
			continue;
		if ((e[11] & (ATTR_VOLUME_ID | ATTR_DIR)) == ATTR_VOLUME_ID) {
			memcpy(name, e, 11);
			return 1;
		}
	}
	return 0;
}

/* FAT32: the root directory is a cluster chain; follow it a bounded number
 * of steps (a looping chain ends there). */
static int fat32_root_label(const struct probe_src *src, const struct fat_geo *g,
			    const uint8_t *bs, uint8_t name[11])
{
	uint32_t cluster_bytes = g->cluster_sectors * g->sector_size;
	uint32_t fat_entries = (uint32_t)((uint64_t)get_le32(bs + 0x24) * g->sector_size / 4);
	uint64_t data = (uint64_t)g->reserved + g->fat_sectors;
	uint32_t next = get_le32(bs + 0x2c), budget = FAT_MAX_SCAN;

	for (int loop = 0; loop < FAT32_MAX_CHAIN && next >= 2 && next < fat_entries; loop++) {
		uint64_t off = (data + (uint64_t)(next - 2) * g->cluster_sectors) * g->sector_size;
		uint8_t ent[4];
		int rc = fat_dir_label(src, off, cluster_bytes / 32, name, &budget);

		if (rc)
			return rc;
		rc = probe_read(src, (uint64_t)g->reserved * g->sector_size + (uint64_t)next * 4,
				ent, sizeof(ent));
		if (rc)
			return 0;
		next = get_le32(ent) & 0x0fffffff;
	}
	return 0;
}

static int fsinfo_ok(const struct probe_src *src, const struct fat_geo *g, const uint8_t *bs)
{
	static const uint8_t zero[4];
	uint8_t fi[512];
	unsigned sect = get_le16(bs + 0x30);

	if (!sect)
		return 1;
	if (probe_read(src, (uint64_t)sect * g->sector_size, fi, sizeof(fi)))
		return 0;
	/* some formatters leave the signatures zero */
	if (memcmp(fi, "RRaA", 4) && memcmp(fi, "RRdA", 4) && memcmp(fi, zero, 4))
		return 0;
	if (memcmp(fi + 484, "rrAa", 4) && memcmp(fi + 484, zero, 4))
		return 0;
	return 1;
}

int probe_vfat(const struct probe_src *src, struct probe_info *out)
{
	uint8_t bs[512], name[11];
	const uint8_t *label = NULL, *serial = NULL;
	struct fat_geo g;
	int rc = probe_read(src, 0, bs, sizeof(bs));

	if (rc)
		return probe_miss(rc);
	if (!fat_geometry(bs, &g))
		return 0;
	if (g.fat16) {
		uint64_t root = ((uint64_t)g.reserved + g.fat_sectors) * g.sector_size;
		uint32_t budget = FAT_MAX_SCAN;

		rc = fat_dir_label(src, root, g.root_entries, name, &budget);
		label = bs + 0x2b;
		serial = bs + 0x27;
	} else if (g.fat32) {
		rc = fat32_root_label(src, &g, bs, name);
		label = bs + 0x47;
		serial = bs + 0x43;
		if (!fsinfo_ok(src, &g, bs))
			return 0;
	} else {
		/* no FAT length at all: blkid names the type, reads nothing */
		probe_set_type(out, "vfat");
		return 1;
	}
	if (rc < 0 && rc != -ERANGE)
		return rc;
	if (rc == 1 && memcmp(name, no_name, 11) != 0)
		label = name;
	probe_set_type(out, "vfat");
	if (memcmp(label, no_name, 11) != 0)
		probe_label_bytes(out->label, sizeof(out->label), label, 11);
	if (get_le32(serial)) {
		static const char hex[] = "0123456789ABCDEF";
		const uint8_t b[4] = { serial[3], serial[2], serial[1], serial[0] };
		size_t o = 0;

		for (int i = 0; i < 4; i++) {
			if (i == 2)
				out->uuid[o++] = '-';
			out->uuid[o++] = hex[b[i] >> 4];
			out->uuid[o++] = hex[b[i] & 15];
		}
		out->uuid[o] = 0;
	}
	return 1;
}
