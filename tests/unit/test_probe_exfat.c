// SPDX-License-Identifier: MIT
/* The exFAT probe on the bytes `mkfs.exfat -b 4096 -c 512 -L "Stick ÄB"`
 * (exfatprogs 1.2.0) wrote to a 1 MiB file: its boot sector, boot-region
 * checksum, FAT and root directory, copied here as they were on disk. */
#include <stdint.h>
#include <stdio.h>

#include "lib/bytes.h"
#include "probe/parttab.h"
#include "probe/probe.h"
#include "unit.h"

#define IMG_LEN 0x8000
#define ROOT_DIR 0x6a00 /* cluster 15: heap at sector 40, 512-byte clusters */
#define FAT_OFF (24 * 512)
#define BOOT_SUM 0x129d1241u /* sector 11, repeated */

static uint8_t img[IMG_LEN];

static const char boot_hex[] =
	"eb76904558464154202020000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"00000000000000000008000000000000180000001000000028000000d8070000"
	"0f000000d164137b00010000090001800000000000000000";
static const char root_hex[] =
	"830853007400690063006b002000c40042000000000000000000000000000000"
	"810000000000000000000000000000000000000002000000fb00000000000000"
	"820000000dd319e600000000000000000000000003000000cc16000000000000";

static void unhex(uint8_t *dst, const char *hex)
{
	for (size_t i = 0; hex[2 * i]; i++) {
		unsigned v;

		sscanf(hex + 2 * i, "%2x", &v);
		dst[i] = (uint8_t)v;
	}
}

static void mk_exfat(void)
{
	memset(img, 0, sizeof(img));
	unhex(img, boot_hex);
	for (int s = 0; s <= 8; s++) { /* main and extended boot sectors */
		img[s * 512 + 510] = 0x55;
		img[s * 512 + 511] = 0xaa;
	}
	memset(img + 9 * 512, 0xff, 512); /* OEM parameters: unused */
	for (int i = 0; i < 512; i += 4)
		put_le32(img + 11 * 512 + i, BOOT_SUM);
	unhex(img + FAT_OFF, "f8ffffffffffffffffffffff0400000005000000");
	unhex(img + ROOT_DIR, root_hex);
}

/* The boot region's sum as the exFAT specification defines it (section
 * 3.4), to write sector 11 anew after a change. */
static uint32_t boot_sum(void)
{
	uint32_t sum = 0;

	for (int i = 0; i < 11 * 512; i++)
		if (i != 106 && i != 107 && i != 112)
			sum = ((sum & 1) ? 0x80000000u : 0) + (sum >> 1) + img[i];
	return sum;
}

static void resum(void)
{
	uint32_t sum = boot_sum();

	for (int i = 0; i < 512; i += 4)
		put_le32(img + 11 * 512 + i, sum);
}

static int run(struct probe_info *info)
{
	struct probe_src src;

	probe_src_buffer(&src, img, sizeof(img));
	return probe_fs(&src, info);
}

static void mkfs_exfat_output_is_named_like_blkid(void)
{
	struct probe_info info;

	mk_exfat();
	CHECK_INT(boot_sum(), BOOT_SUM);
	CHECK_INT(run(&info), 1);
	CHECK_STR(info.type, "exfat");
	CHECK_STR(info.label, "Stick \xc3\x84" "B");
	CHECK_STR(info.uuid, "7B13-64D1");
	CHECK_INT(info.encrypted, 0);
}

static void a_flipped_bit_in_the_boot_region_is_unknown(void)
{
	struct probe_info info;

	mk_exfat();
	img[3 * 512 + 100] ^= 1; /* the kernel refuses to mount it */
	CHECK_INT(run(&info), 0);
	mk_exfat();
	img[11 * 512 + 40] ^= 1;
	CHECK_INT(run(&info), 0);
	/* VolumeFlags and PercentInUse change at run time: not summed */
	mk_exfat();
	img[106] |= 2;
	img[112] = 42;
	CHECK_INT(run(&info), 1);
	CHECK_STR(info.type, "exfat");
}

static void absurd_geometry_is_unknown(void)
{
	static const struct {
		size_t off;
		uint8_t val;
	} bad[] = {
		{ 108, 8 },   /* 256-byte sectors */
		{ 108, 13 },  /* 8 KiB sectors */
		{ 109, 17 },  /* clusters over 32 MiB */
		{ 110, 0 },   /* no FAT */
		{ 110, 3 },   /* three FATs */
		{ 0x10, 2 },  /* a FAT BPB where exFAT has zeros */
		{ 96, 0 },    /* root directory in cluster 0 */
		{ 80, 0 },    /* FAT inside the boot region */
		{ 510, 0 },   /* no boot signature */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct probe_info info;

		mk_exfat();
		img[bad[i].off] = bad[i].val;
		resum(); /* the geometry itself, not the checksum, must refuse */
		CHECK_INT(run(&info), 0);
	}
}

static void a_volume_without_label_entry_has_no_label(void)
{
	struct probe_info info;

	mk_exfat();
	memset(img + ROOT_DIR, 0, 32); /* end of directory before the label */
	CHECK_INT(run(&info), 1);
	CHECK_STR(info.type, "exfat");
	CHECK_STR(info.label, "");
	CHECK_STR(info.uuid, "7B13-64D1");
}

static void the_label_is_found_down_the_fat_chain(void)
{
	struct probe_info info;

	mk_exfat();
	/* the root directory's first cluster full of bitmap entries, the label
	 * in cluster 16, which the FAT chains after 15 */
	for (int i = 0; i < 512; i += 32)
		img[ROOT_DIR + i] = 0x81;
	put_le32(img + FAT_OFF + 15 * 4, 16);
	unhex(img + ROOT_DIR + 512, "8303610062006300");
	CHECK_INT(run(&info), 1);
	CHECK_STR(info.label, "abc");
	/* a chain pointing back at itself ends: no label, no endless loop */
	put_le32(img + FAT_OFF + 15 * 4, 15);
	CHECK_INT(run(&info), 1);
	CHECK_STR(info.label, "");
}

static void an_exfat_boot_sector_is_no_partition_table(void)
{
	struct part_entry parts[4];
	struct probe_src src;

	mk_exfat();
	img[446 + 4] = 0x83; /* boot code that looks like an MBR entry */
	img[446 + 8] = 64;
	img[446 + 12] = 1;
	resum(); /* boot code is part of the checksummed region */
	probe_src_buffer(&src, img, sizeof(img));
	CHECK_INT(parttab_read(&src, 512, parts, 4), 0);
}

UNIT_SUITE(probe_exfat,
	{ "mkfs.exfat's output is exfat with blkid's LABEL and UUID", mkfs_exfat_output_is_named_like_blkid },
	{ "a flipped bit in the checksummed boot region is unknown", a_flipped_bit_in_the_boot_region_is_unknown },
	{ "exFAT with absurd sector, cluster, FAT or root values is unknown", absurd_geometry_is_unknown },
	{ "an exFAT volume without a label entry has no label", a_volume_without_label_entry_has_no_label },
	{ "the label entry is found down the root directory's FAT chain, a loop ends", the_label_is_found_down_the_fat_chain },
	{ "an exFAT boot sector is not read as a partition table", an_exfat_boot_sector_is_no_partition_table });
