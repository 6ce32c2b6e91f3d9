// SPDX-License-Identifier: MIT
/* Filesystem probes on hand-built superblocks: each valid image is named
 * like blkid names it, and every damaged variant (truncated, wrong magic,
 * absurd geometry, bad checksum) is unknown rather than a crash. */
#include "unit.h"

#include "lib/bytes.h"
#include "probe/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IMG_MAX (72 * 1024)
static uint8_t img[IMG_MAX];

static uint32_t t_crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
	}
	return crc;
}

static uint32_t t_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
	}
	return crc;
}

static void be16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void be32(uint8_t *p, uint32_t v)
{
	be16(p, v >> 16);
	be16(p + 2, v & 0xffff);
}

static void be64(uint8_t *p, uint64_t v)
{
	be32(p, (uint32_t)(v >> 32));
	be32(p + 4, (uint32_t)v);
}

static void le16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

static const uint8_t uuid_bytes[16] = { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
					0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
#define UUID_STR "12345678-9abc-def0-0123-456789abcdef"

static int run(size_t len, struct probe_info *info)
{
	struct probe_src src;

	probe_src_buffer(&src, img, len);
	return probe_fs(&src, info);
}

/* ---- builders: each returns the image length ---- */

static size_t mk_ext(uint32_t compat, uint32_t incompat, uint32_t ro_compat)
{
	uint8_t *sb = img + 1024;

	memset(img, 0, IMG_MAX);
	le16(sb + 0x38, 0xef53);
	put_le32(sb + 0x5c, compat);
	put_le32(sb + 0x60, incompat);
	put_le32(sb + 0x64, ro_compat);
	memcpy(sb + 0x68, uuid_bytes, 16);
	memcpy(sb + 0x78, "rootfs", 6);
	if (ro_compat & 0x400)
		put_le32(sb + 0x3fc, t_crc32c(~0u, sb, 0x3fc));
	return 2048;
}

static size_t mk_squashfs(void)
{
	memset(img, 0, IMG_MAX);
	memcpy(img, "hsqs", 4);
	put_le32(img + 12, 131072);
	le16(img + 22, 17);
	le16(img + 28, 4);
	return 4096;
}

static size_t mk_xfs(int v5)
{
	memset(img, 0, IMG_MAX);
	memcpy(img, "XFSB", 4);
	be32(img + 4, 4096);
	be64(img + 8, 4 * 16384);
	memcpy(img + 32, uuid_bytes, 16);
	be32(img + 80, 1);
	be32(img + 84, 16384);
	be32(img + 88, 4);
	be16(img + 100, v5 ? 0xb4a5 : 0xb4a4);
	be16(img + 102, 512);
	be16(img + 104, 512);
	memcpy(img + 108, "xfsroot", 7);
	img[120] = 12;
	img[121] = 9;
	img[122] = 9;
	img[123] = 3;
	img[127] = 25;
	if (v5)
		put_le32(img + 224, ~t_crc32c(~0u, img, 512));
	return 4096;
}

static size_t mk_f2fs(int csum)
{
	uint8_t *sb = img + 1024;
	static const char name[] = "data";

	memset(img, 0, IMG_MAX);
	put_le32(sb, 0xf2f52010u);
	le16(sb + 4, 1);
	le16(sb + 6, 15);
	memcpy(sb + 0x6c, uuid_bytes, 16);
	for (size_t i = 0; i < sizeof(name) - 1; i++)
		le16(sb + 0x7c + 2 * i, (unsigned char)name[i]);
	if (csum) {
		put_le32(sb + 0x20, 3068);
		put_le32(sb + 3068, t_crc32(0xf2f52010u, sb, 3068));
	}
	return 1024 + 4096;
}

static size_t mk_erofs(int csum)
{
	uint8_t *sb = img + 1024;

	memset(img, 0, IMG_MAX);
	put_le32(sb, 0xe0f5e1e2u);
	sb[12] = 12;
	memcpy(sb + 48, uuid_bytes, 16);
	memcpy(sb + 64, "ro-image", 8);
	if (csum) {
		put_le32(sb + 8, 1);
		put_le32(sb + 4, t_crc32c(~0u, sb, 4096 - 1024));
	}
	return 4096;
}

static size_t mk_btrfs(void)
{
	uint8_t *sb = img + 0x10000;

	memset(img, 0, IMG_MAX);
	memcpy(sb + 32, uuid_bytes, 16);
	le64(sb + 48, 0x10000);
	memcpy(sb + 64, "_BHRfS_M", 8);
	memcpy(sb + 299, "btrfs-root", 10);
	put_le32(sb, ~t_crc32c(~0u, sb + 32, 4096 - 32));
	return 0x10000 + 4096;
}

static size_t mk_luks(unsigned version, uint64_t at)
{
	uint8_t *h = img + at;

	memset(img, 0, IMG_MAX);
	memcpy(h, at ? "SKUL\xba\xbe" : "LUKS\xba\xbe", 6);
	be16(h + 6, version);
	memcpy(h + 168, UUID_STR, 36);
	if (version == 2) {
		memcpy(h + 24, "crypt-label", 11);
		be64(h + 256, at);
	}
	return at + 4096 > 0x8000 ? at + 4096 : 0x8000;
}

static void iso_date(uint8_t *d, const char *digits)
{
	memcpy(d, digits, 16);
	d[16] = 4;
}

static size_t mk_iso(const char *pvd_label, const char *joliet_label)
{
	uint8_t *pvd = img + 0x8000, *svd = img + 0x8800, *end = img + 0x9000;

	memset(img, 0, IMG_MAX);
	pvd[0] = 1;
	memcpy(pvd + 1, "CD001", 5);
	memset(pvd + 40, ' ', 32);
	memcpy(pvd + 40, pvd_label, strlen(pvd_label));
	iso_date(pvd + 813, "2024010203040506");
	iso_date(pvd + 830, "2024060708091011");
	if (joliet_label) {
		svd[0] = 2;
		memcpy(svd + 1, "CD001", 5);
		memcpy(svd + 88, "%/E", 3);
		uint8_t *name = svd + 40;

		for (int i = 0; i < 16; i++)
			be16(name + 2 * i, ' ');
		for (const char *c = joliet_label; *c && name < svd + 40 + 32; c++, name += 2)
			be16(name, (unsigned char)*c);
	} else {
		svd[0] = 255;
		memcpy(svd + 1, "CD001", 5);
	}
	end[0] = 255;
	memcpy(end + 1, "CD001", 5);
	return 0x9800;
}

/* FAT16: 512-byte sectors, 4 sectors a cluster, 1 reserved, 2 FATs of 32
 * sectors, 512 root entries (32 sectors), 20000 sectors: 4975 clusters. */
static size_t mk_fat16(const char *boot_label, const char *root_label)
{
	uint8_t *rootdir = img + (1 + 64) * 512;

	memset(img, 0, IMG_MAX);
	img[0] = 0xeb;
	img[1] = 0x3c;
	img[2] = 0x90;
	le16(img + 0x0b, 512);
	img[0x0d] = 4;
	le16(img + 0x0e, 1);
	img[0x10] = 2;
	le16(img + 0x11, 512);
	le16(img + 0x13, 20000);
	img[0x15] = 0xf8;
	le16(img + 0x16, 32);
	img[0x26] = 0x29;
	put_le32(img + 0x27, 0xa1b2c3d4);
	memcpy(img + 0x2b, boot_label, 11);
	memcpy(img + 0x36, "FAT16   ", 8);
	img[0x1fe] = 0x55;
	img[0x1ff] = 0xaa;
	if (root_label) {
		/* a deleted entry and a long-name entry come first */
		rootdir[0] = 0xe5;
		rootdir[11] = 0x08;
		rootdir[32] = 'A';
		rootdir[32 + 11] = 0x0f;
		memcpy(rootdir + 64, root_label, 11);
		rootdir[64 + 11] = 0x08;
	}
	return (1 + 64 + 32) * 512 + 4096;
}

/* FAT32: 512-byte sectors, 1 sector a cluster, 32 reserved, 1 FAT of 4
 * sectors (500 clusters), root directory chain 2 -> 3 -> end. */
static size_t mk_fat32(const char *root_label, int loop)
{
	uint8_t *fat = img + 32 * 512;
	uint32_t data = 32 + 4;

	memset(img, 0, IMG_MAX);
	img[0] = 0xeb;
	le16(img + 0x0b, 512);
	img[0x0d] = 1;
	le16(img + 0x0e, 32);
	img[0x10] = 1;
	img[0x15] = 0xf8;
	put_le32(img + 0x20, 32 + 4 + 500);
	put_le32(img + 0x24, 4);
	put_le32(img + 0x2c, 2);
	le16(img + 0x30, 1);
	put_le32(img + 0x43, 0x0badcafe);
	memcpy(img + 0x47, "BOOT32     ", 11);
	memcpy(img + 0x52, "FAT32   ", 8);
	img[0x1fe] = 0x55;
	img[0x1ff] = 0xaa;
	memcpy(img + 512, "RRaA", 4);
	memcpy(img + 512 + 484, "rrAa", 4);
	put_le32(fat + 2 * 4, 3);
	put_le32(fat + 3 * 4, loop ? 2 : 0x0fffffff);
	/* cluster 2 full of ordinary files, the label in cluster 3 */
	for (int i = 0; i < 16; i++) {
		uint8_t *e = img + data * 512 + i * 32;

		memcpy(e, "FILE    TXT", 11);
		e[11] = 0x20;
		le16(e + 26, 5);
	}
	if (root_label) {
		memcpy(img + (data + 1) * 512, root_label, 11);
		img[(data + 1) * 512 + 11] = 0x08;
	}
	return (data + 2) * 512;
}

/* ---- cases ---- */

static void ext_family_named_like_blkid(void)
{
	struct probe_info info;

	CHECK_INT(run(mk_ext(0, 0x2, 0x3), &info), 1);
	CHECK_STR(info.type, "ext2");
	CHECK_STR(info.uuid, UUID_STR);
	CHECK_STR(info.label, "rootfs");
	CHECK_INT(run(mk_ext(0x4, 0x2, 0x3), &info), 1);
	CHECK_STR(info.type, "ext3");
	CHECK_INT(run(mk_ext(0x4, 0x2 | 0x40, 0x3), &info), 1); /* extents */
	CHECK_STR(info.type, "ext4");
	CHECK_INT(run(mk_ext(0, 0x2 | 0x200, 0x3), &info), 1); /* flex_bg, no journal */
	CHECK_STR(info.type, "ext4");
	CHECK_INT(run(mk_ext(0x4, 0x2 | 0x80, 0x3 | 0x400), &info), 1); /* 64bit + csum */
	CHECK_STR(info.type, "ext4");
	CHECK_INT(run(mk_ext(0, 0x8, 0), &info), 1);
	CHECK_STR(info.type, "jbd");
	/* needs_recovery without a journal: blkid names nothing either */
	CHECK_INT(run(mk_ext(0, 0x2 | 0x4, 0), &info), 0);
	CHECK_STR(info.type, "");
}

static void ext4_with_a_bad_checksum_is_unknown(void)
{
	struct probe_info info;
	size_t len = mk_ext(0x4, 0x2 | 0x40, 0x400);

	img[1024 + 0x78] = 'R'; /* label changed after the checksum */
	CHECK_INT(run(len, &info), 0);
}

static void ext_label_of_sixteen_bytes_has_no_nul_on_disk(void)
{
	struct probe_info info;
	size_t len = mk_ext(0, 0x2, 0);

	memcpy(img + 1024 + 0x78, "0123456789abcdef", 16);
	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.label, "0123456789abcdef");
}

static void squashfs_v4_and_older(void)
{
	struct probe_info info;
	size_t len = mk_squashfs();

	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.type, "squashfs");
	CHECK_STR(info.uuid, "");
	le16(img + 28, 3);
	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.type, "squashfs3");
	le16(img + 28, 4);
	le16(img + 22, 40); /* block_log that is no shift at all */
	CHECK_INT(run(len, &info), 0);
}

static void xfs_v4_and_v5_with_crc(void)
{
	struct probe_info info;
	size_t len = mk_xfs(0);

	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.type, "xfs");
	CHECK_STR(info.uuid, UUID_STR);
	CHECK_STR(info.label, "xfsroot");
	len = mk_xfs(1);
	CHECK_INT(run(len, &info), 1);
	img[300] ^= 1;
	CHECK_INT(run(len, &info), 0);
}

static void xfs_with_absurd_geometry_is_unknown(void)
{
	struct probe_info info;

	mk_xfs(0);
	be32(img + 88, 0); /* no allocation groups */
	CHECK_INT(run(4096, &info), 0);
	mk_xfs(0);
	be16(img + 102, 65535); /* sector size */
	CHECK_INT(run(4096, &info), 0);
	mk_xfs(0);
	be64(img + 8, UINT64_MAX); /* more blocks than the groups hold */
	CHECK_INT(run(4096, &info), 0);
}

static void f2fs_label_is_utf16(void)
{
	struct probe_info info;
	size_t len = mk_f2fs(0);

	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.type, "f2fs");
	CHECK_STR(info.uuid, UUID_STR);
	CHECK_STR(info.label, "data");
	len = mk_f2fs(1);
	CHECK_INT(run(len, &info), 1);
	img[1024 + 0x7c] = 'D';
	CHECK_INT(run(len, &info), 0);
}

static void f2fs_checksum_offset_past_the_superblock_is_unknown(void)
{
	struct probe_info info;
	size_t len = mk_f2fs(0);

	put_le32(img + 1024 + 0x20, 0xfffffff0u);
	CHECK_INT(run(len, &info), 0);
}

static void f2fs_long_label_is_cut_on_a_character_boundary(void)
{
	struct probe_info info;
	size_t len = mk_f2fs(0);

	/* 512 x U+00E9: 1024 bytes of UTF-8 into a 256-byte field */
	for (int i = 0; i < 512; i++)
		le16(img + 1024 + 0x7c + 2 * i, 0xe9);
	CHECK_INT(run(len, &info), 1);
	CHECK_INT(strlen(info.label), 254);
	CHECK(memcmp(info.label + 252, "\xc3\xa9", 2) == 0);
}

static void lone_utf16_surrogate_becomes_replacement_character(void)
{
	struct probe_info info;
	size_t len = mk_f2fs(0);

	le16(img + 1024 + 0x7c + 2, 0xd800);
	le16(img + 1024 + 0x7c + 4, 'x');
	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.label, "d\xef\xbf\xbdxa");
}

static void erofs_with_and_without_checksum(void)
{
	struct probe_info info;
	size_t len = mk_erofs(0);

	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.type, "erofs");
	CHECK_STR(info.label, "ro-image");
	len = mk_erofs(1);
	CHECK_INT(run(len, &info), 1);
	img[3000] = 1;
	CHECK_INT(run(len, &info), 0);
	mk_erofs(0);
	img[1024 + 12] = 40; /* 2^40-byte blocks */
	CHECK_INT(run(len, &info), 0);
}

static void btrfs_needs_its_checksum(void)
{
	struct probe_info info;
	size_t len = mk_btrfs();

	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.type, "btrfs");
	CHECK_STR(info.uuid, UUID_STR);
	CHECK_STR(info.label, "btrfs-root");
	img[0x10000 + 2000] ^= 0x40;
	CHECK_INT(run(len, &info), 0);
}

static void btrfs_label_of_256_bytes_is_truncated_and_terminated(void)
{
	struct probe_info info;
	size_t len = mk_btrfs();
	uint8_t *sb = img + 0x10000;

	memset(sb + 299, 'L', 256);
	put_le32(sb, ~t_crc32c(~0u, sb + 32, 4096 - 32));
	CHECK_INT(run(len, &info), 1);
	CHECK_INT(strlen(info.label), sizeof(info.label) - 1);
}

static void luks1_and_luks2_are_encrypted(void)
{
	struct probe_info info;
	size_t len = mk_luks(1, 0);

	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.type, "crypto_LUKS");
	CHECK_STR(info.uuid, UUID_STR);
	CHECK_STR(info.label, "");
	CHECK_INT(info.encrypted, 1);
	len = mk_luks(2, 0);
	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.label, "crypt-label");
}

static void luks2_found_through_its_secondary_header(void)
{
	struct probe_info info;
	size_t len = mk_luks(2, 0x4000);

	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.type, "crypto_LUKS");
	CHECK_STR(info.label, "crypt-label");
	be64(img + 0x4000 + 256, 0x8000); /* claims to live elsewhere */
	CHECK_INT(run(len, &info), 0);
}

static void iso9660_uuid_is_the_modification_date(void)
{
	struct probe_info info;
	size_t len = mk_iso("PLAIN_LABEL", NULL);

	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.type, "iso9660");
	CHECK_STR(info.uuid, "2024-06-07-08-09-10-11");
	CHECK_STR(info.label, "PLAIN_LABEL");
	CHECK_INT(info.bytes, 0); /* mk_iso leaves the volume space size 0 */
	put_le32(img + 0x8000 + 80, 1024); /* blocks */
	img[0x8000 + 128 + 1] = 0x08;      /* of 2048 bytes (le16) */
	CHECK_INT(run(len, &info), 1);
	CHECK_INT(info.bytes, 2u << 20);
	memset(img + 0x8000 + 830, '0', 16);
	img[0x8000 + 830 + 16] = 0;
	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.uuid, "2024-01-02-03-04-05-06");
}

static void iso9660_joliet_label_keeps_case_and_the_long_ascii_tail(void)
{
	struct probe_info info;
	size_t len = mk_iso("LIVE MEDIUM LABEL 2024 EXTRA", "Live Medium Labe");

	CHECK_INT(run(len, &info), 1);
	/* blkid's rule: the tail after Joliet's 16 characters is the upper-case
	 * ASCII one ("LabeL"); xorriso images confirm it in probe-vs-blkid. */
	CHECK_STR(info.label, "Live Medium LabeL 2024 EXTRA");
	/* Joliet that is not a prefix of the primary name wins on its own */
	len = mk_iso("SOMETHING_ELSE", "Other");
	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.label, "Other");
}

static void fat16_root_directory_label_wins_over_boot_sector(void)
{
	struct probe_info info;
	size_t len = mk_fat16("BOOTLABEL  ", "ROOTLABEL  ");

	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.type, "vfat");
	CHECK_STR(info.uuid, "A1B2-C3D4");
	CHECK_STR(info.label, "ROOTLABEL");
	len = mk_fat16("BOOTLABEL  ", NULL);
	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.label, "BOOTLABEL");
	len = mk_fat16("NO NAME    ", NULL);
	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.label, "");
}

static void fat16_with_absurd_geometry_is_unknown(void)
{
	struct probe_info info;

	mk_fat16("X          ", NULL);
	img[0x0d] = 0; /* no sectors per cluster: no division by zero */
	CHECK_INT(run(65536, &info), 0);
	mk_fat16("X          ", NULL);
	le16(img + 0x0b, 0xffff);
	CHECK_INT(run(65536, &info), 0);
	mk_fat16("X          ", NULL);
	le16(img + 0x16, 0xffff); /* FATs larger than the volume */
	CHECK_INT(run(65536, &info), 0);
}

static void fat32_label_found_down_the_root_cluster_chain(void)
{
	struct probe_info info;
	size_t len = mk_fat32("CHAINED    ", 0);

	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.type, "vfat");
	CHECK_STR(info.uuid, "0BAD-CAFE");
	CHECK_STR(info.label, "CHAINED");
}

static void fat32_root_chain_that_loops_ends(void)
{
	struct probe_info info;
	size_t len = mk_fat32(NULL, 1);

	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.label, "BOOT32");
}

/* Every row, every prefix: never a crash, never a half-filled answer. */
static void truncated_images_are_unknown_not_a_crash(void)
{
	struct probe_info info;

	for (int which = 0; which < 14; which++) {
		size_t full;

		switch (which) {
		case 0: full = mk_ext(0x4, 0x2 | 0x40, 0x400); break;
		case 1: full = mk_squashfs(); break;
		case 2: full = mk_xfs(1); break;
		case 3: full = mk_f2fs(1); break;
		case 4: full = mk_erofs(1); break;
		case 5: full = mk_btrfs(); break;
		case 6: full = mk_luks(2, 0); break;
		case 7: full = mk_iso("A", "a"); break;
		case 8: full = mk_fat16("B          ", "R          "); break;
		case 9: full = mk_fat32("R          ", 0); break;
		case 10: full = mk_luks(2, 0x8000); break;
		case 11: full = mk_xfs(0); break;
		case 12: full = mk_ext(0, 0x8, 0); break;
		default: full = mk_erofs(0); break;
		}
		CHECK_INT(run(full, &info), 1);
		for (size_t len = 0; len < full; len += len < 8192 ? 1 : 509) {
			int rc = run(len, &info);

			CHECK(rc == 0 || rc == 1);
			if (rc == 0)
				CHECK_STR(info.type, "");
			else
				CHECK(info.type[0] && memchr(info.label, 0, sizeof(info.label)));
		}
	}
}

static void every_probe_row_rejects_an_empty_and_a_zeroed_device(void)
{
	struct probe_src src;
	struct probe_info info;

	memset(img, 0, IMG_MAX);
	for (size_t i = 0; i < probe_table_len; i++) {
		CHECK(probe_table[i].name && probe_table[i].fn);
		probe_src_buffer(&src, img, IMG_MAX);
		CHECK_INT(probe_table[i].fn(&src, &info), 0);
		probe_src_buffer(&src, NULL, 0);
		CHECK_INT(probe_table[i].fn(&src, &info), 0);
	}
	probe_src_buffer(&src, NULL, 0);
	CHECK_INT(probe_fs(&src, &info), 0);
}

static void flipped_magic_is_unknown(void)
{
	struct probe_info info;
	size_t len;

	len = mk_ext(0, 0x2, 0);
	CHECK_INT(run(len, &info), 1);
	img[1024 + 0x38] ^= 0xff;
	CHECK_INT(run(len, &info), 0);
	len = mk_squashfs();
	img[0] ^= 0xff;
	CHECK_INT(run(len, &info), 0);
	len = mk_btrfs();
	img[0x10000 + 64] ^= 0xff;
	CHECK_INT(run(len, &info), 0);
	len = mk_iso("X", NULL);
	img[0x8001] ^= 0xff;
	CHECK_INT(run(len, &info), 0);
	len = mk_luks(1, 0);
	img[0] ^= 0xff;
	CHECK_INT(run(len, &info), 0);
	len = mk_f2fs(0);
	img[1024] ^= 0xff;
	CHECK_INT(run(len, &info), 0);
}

static void label_bytes_are_kept_as_on_disk(void)
{
	struct probe_info info;
	size_t len = mk_ext(0, 0x2, 0);

	/* blkid keeps bytes: invalid UTF-8 and control bytes stay, cut at
	 * NUL, trailing blanks trimmed; display code escapes them. */
	memcpy(img + 1024 + 0x78, "a\x01\xff\"b  \0zz", 11);
	CHECK_INT(run(len, &info), 1);
	CHECK_STR(info.label, "a\x01\xff\"b");
}

static int eio_past_64k(const struct probe_src *src, uint64_t off, void *dst, size_t len)
{
	if (off + len > 0x10000)
		return -EIO;
	if (off + len > src->size)
		return -ERANGE;
	memcpy(dst, (const uint8_t *)src->ctx + off, len);
	return 0;
}

static void bad_sector_under_one_signature_does_not_hide_another(void)
{
	struct probe_src src = { eio_past_64k, IMG_MAX, img };
	struct probe_info info;

	mk_fat16("BOOTLABEL  ", NULL);
	CHECK_INT(probe_fs(&src, &info), 1);
	CHECK_STR(info.type, "vfat");
	memset(img, 0, IMG_MAX);
	CHECK_INT(probe_fs(&src, &info), -EIO);
	CHECK_STR(info.type, "");
}

static void fd_source_reads_an_image_file(void)
{
	char path[512];
	struct probe_src src;
	struct probe_info info;
	FILE *f;
	int fd;
	size_t len = mk_ext(0x4, 0x2, 0);

	snprintf(path, sizeof(path), "%s/ext3.img", unit_tmpdir());
	f = fopen(path, "wb");
	CHECK(f);
	CHECK_INT(fwrite(img, 1, len, f), len);
	CHECK_INT(fclose(f), 0);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	CHECK_INT(probe_src_fd(&src, fd), 0);
	CHECK_INT(src.size, len);
	CHECK_INT(probe_fs(&src, &info), 1);
	CHECK_STR(info.type, "ext3");
	close(fd);
	CHECK_INT(probe_src_fd(&src, -1), -EBADF);
}

UNIT_SUITE(probe,
	{ "ext2, ext3, ext4 and jbd are named from the feature flags like blkid", ext_family_named_like_blkid },
	{ "an ext4 superblock whose checksum does not match is unknown", ext4_with_a_bad_checksum_is_unknown },
	{ "an ext label filling all 16 bytes (no NUL on disk) is read whole", ext_label_of_sixteen_bytes_has_no_nul_on_disk },
	{ "squashfs 4 is squashfs, older images squashfs3, a bad block size nothing", squashfs_v4_and_older },
	{ "xfs v4 and v5 are found, a v5 with a wrong CRC is not", xfs_v4_and_v5_with_crc },
	{ "xfs with zero groups, a huge sector or too many blocks is unknown", xfs_with_absurd_geometry_is_unknown },
	{ "an f2fs label is UTF-16 and its superblock checksum is checked", f2fs_label_is_utf16 },
	{ "an f2fs checksum offset past the superblock is unknown, not a wild read", f2fs_checksum_offset_past_the_superblock_is_unknown },
	{ "a 512-character f2fs label is cut on a UTF-8 character boundary", f2fs_long_label_is_cut_on_a_character_boundary },
	{ "a lone UTF-16 surrogate in a label becomes U+FFFD", lone_utf16_surrogate_becomes_replacement_character },
	{ "erofs with and without a superblock checksum; absurd block size is unknown", erofs_with_and_without_checksum },
	{ "a btrfs superblock with a flipped bit fails its crc32c", btrfs_needs_its_checksum },
	{ "a 256-byte btrfs label without NUL is truncated and terminated", btrfs_label_of_256_bytes_is_truncated_and_terminated },
	{ "LUKS1 and LUKS2 are crypto_LUKS, encrypted, LUKS2 with its label", luks1_and_luks2_are_encrypted },
	{ "a LUKS2 disk with a wiped primary header is found by its secondary", luks2_found_through_its_secondary_header },
	{ "an ISO's UUID is its modification date, else its creation date", iso9660_uuid_is_the_modification_date },
	{ "a Joliet label keeps its case and gets the long ASCII tail back", iso9660_joliet_label_keeps_case_and_the_long_ascii_tail },
	{ "a FAT16 root-directory label wins over the boot sector's, NO NAME is none", fat16_root_directory_label_wins_over_boot_sector },
	{ "a FAT boot sector with zero cluster size or huge sectors is unknown", fat16_with_absurd_geometry_is_unknown },
	{ "a FAT32 label in the second root-directory cluster is found", fat32_label_found_down_the_root_cluster_chain },
	{ "a FAT32 root-directory chain that loops ends, boot label used", fat32_root_chain_that_loops_ends },
	{ "every image truncated at every length is unknown or valid, never a crash", truncated_images_are_unknown_not_a_crash },
	{ "every probe row rejects an empty and an all-zero device", every_probe_row_rejects_an_empty_and_a_zeroed_device },
	{ "a superblock with a flipped magic is unknown", flipped_magic_is_unknown },
	{ "label bytes are kept as on disk, cut at NUL, trailing blanks trimmed", label_bytes_are_kept_as_on_disk },
	{ "a bad sector under one signature does not hide another, else -EIO", bad_sector_under_one_signature_does_not_hide_another },
	{ "the fd source sizes and reads an image file", fd_source_reads_an_image_file });
