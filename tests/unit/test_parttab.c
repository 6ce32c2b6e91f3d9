// SPDX-License-Identifier: MIT
/* Partition tables built in memory with correct CRCs, then damaged: GPT with
 * its backup, MBR with primary and logical partitions, hostile EBR chains. */
#include "unit.h"

#include "lib/bytes.h"
#include "probe/parttab.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* room for a GPT whose entry array is at the 1 MiB bound, twice */
#define DISK_MAX (4 * 1024 * 1024)
static uint8_t disk[DISK_MAX];
static struct part_entry parts[300];

static uint32_t t_crc32(const uint8_t *p, size_t n)
{
	uint32_t crc = ~0u;

	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
	}
	return ~crc;
}

static void le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

static int run(size_t len, unsigned ss, unsigned max)
{
	struct probe_src src;

	probe_src_buffer(&src, disk, len);
	return parttab_read(&src, ss, parts, max);
}

/* Partition num alone, as the boot asks for a partition's identity. */
static int find(size_t len, unsigned num, struct part_entry *out)
{
	struct probe_src src;

	probe_src_buffer(&src, disk, len);
	memset(out, 0x7e, sizeof(*out)); /* what a found entry must overwrite */
	return parttab_find(&src, 512, num, out);
}

static void mbr_entry(uint8_t *sector, int i, uint8_t type, uint32_t start, uint32_t nr)
{
	uint8_t *e = sector + 446 + i * 16;

	e[4] = type;
	put_le32(e + 8, start);
	put_le32(e + 12, nr);
	sector[510] = 0x55;
	sector[511] = 0xaa;
}

/* Writes a header at lba describing nent entries of 128 bytes at elba. */
static void gpt_header_n(unsigned ss, uint64_t lba, uint64_t alt, uint64_t elba,
			 uint64_t last_lba, uint32_t nent)
{
	uint8_t *h = disk + lba * ss;

	memset(h, 0, ss);
	memcpy(h, "EFI PART", 8);
	put_le32(h + 8, 0x10000);
	put_le32(h + 12, 92);
	le64(h + 24, lba);
	le64(h + 32, alt);
	le64(h + 40, 34);
	le64(h + 48, last_lba - 33);
	memset(h + 56, 0x5a, 16);
	le64(h + 72, elba);
	put_le32(h + 80, nent);
	put_le32(h + 84, 128);
	put_le32(h + 88, t_crc32(disk + elba * ss, (size_t)nent * 128));
	put_le32(h + 16, t_crc32(h, 92));
}

static void gpt_header(unsigned ss, uint64_t lba, uint64_t alt, uint64_t elba, uint64_t last_lba)
{
	gpt_header_n(ss, lba, alt, elba, last_lba, 128);
}

static void utf16(uint8_t *p, const char *ascii)
{
	for (size_t i = 0; ascii[i]; i++) {
		p[2 * i] = (uint8_t)ascii[i];
		p[2 * i + 1] = 0;
	}
}

/* Two partitions (1: "EFI system", 3: "root" with a u-umlaut), slot 2
 * empty; primary and backup tables. Returns the disk size. */
static size_t mk_gpt(unsigned ss)
{
	size_t size = ss == 512 ? 512 * 1024 : 1024 * 1024;
	uint64_t last = size / ss - 1;
	uint8_t ents[128 * 128];
	uint64_t belba = last - (128 * 128) / ss;

	memset(disk, 0, DISK_MAX);
	memset(ents, 0, sizeof(ents));
	mbr_entry(disk, 0, 0xee, 1, (uint32_t)last);
	/* entry 1 */
	memset(ents, 0x11, 16);
	for (int i = 0; i < 16; i++)
		ents[16 + i] = (uint8_t)(0xa0 + i);
	le64(ents + 32, 40);
	le64(ents + 40, 99);
	utf16(ents + 56, "EFI system");
	/* entry 3 */
	memset(ents + 256, 0x22, 16);
	memset(ents + 256 + 16, 0xcd, 16);
	le64(ents + 256 + 32, 100);
	le64(ents + 256 + 40, 199);
	utf16(ents + 256 + 56, "r?ot");
	ents[256 + 56 + 2] = 0xfc; /* U+00FC */
	memcpy(disk + 2 * ss, ents, sizeof(ents));
	memcpy(disk + belba * ss, ents, sizeof(ents));
	gpt_header(ss, 1, last, 2, last);
	gpt_header(ss, last, 1, belba, last);
	return size;
}

/* A GPT on 512-byte sectors with nent entries, the first n of them used:
 * partition i is named "part<i>", its GUID c0de<i as 4 hex digits>-5a5a-...,
 * one sector at LBA 34 + (i - 1) % 64 (the reader does not mind overlaps).
 * Primary and backup tables; returns the disk size. */
static size_t mk_gpt_many(uint32_t nent, uint32_t n)
{
	uint64_t es = ((uint64_t)nent * 128 + 511) / 512; /* sectors of entries */
	uint64_t last = 2 * es + 200, belba = last - es;
	uint8_t *ents = disk + 2 * 512;

	memset(disk, 0, DISK_MAX);
	mbr_entry(disk, 0, 0xee, 1, (uint32_t)last);
	for (uint32_t i = 1; i <= n; i++) {
		uint8_t *e = ents + (size_t)(i - 1) * 128;
		char name[16];

		memset(e, 0x11, 16);
		put_le32(e + 16, 0xc0de0000u + i);
		memset(e + 20, 0x5a, 12);
		le64(e + 32, 34 + (i - 1) % 64);
		le64(e + 40, 34 + (i - 1) % 64);
		snprintf(name, sizeof(name), "part%u", (unsigned)i);
		utf16(e + 56, name);
	}
	memcpy(disk + belba * 512, ents, (size_t)nent * 128);
	gpt_header_n(512, 1, last, 2, last, nent);
	gpt_header_n(512, last, 1, belba, last, nent);
	return (size_t)(last + 1) * 512;
}

static void gpt_partitions_past_16_are_found_by_number(void)
{
	size_t len = mk_gpt_many(128, 40);
	struct part_entry p;

	CHECK_INT(find(len, 17, &p), 1);
	CHECK_INT(p.num, 17);
	CHECK_INT(p.start_lba, 50);
	CHECK_INT(p.nr_lba, 1);
	CHECK_STR(p.partlabel, "part17");
	CHECK_STR(p.partuuid, "c0de0011-5a5a-5a5a-5a5a-5a5a5a5a5a5a");
	CHECK_INT(find(len, 40, &p), 1);
	CHECK_STR(p.partlabel, "part40");
	CHECK_STR(p.partuuid, "c0de0028-5a5a-5a5a-5a5a-5a5a5a5a5a5a");
	CHECK_INT(find(len, 1, &p), 1);
	CHECK_STR(p.partlabel, "part1");
	/* unused entries, numbers past the array and 0 are no partition */
	CHECK_INT(find(len, 41, &p), 0);
	CHECK_INT(find(len, 129, &p), 0);
	CHECK_INT(find(len, 0, &p), 0);
	/* the whole list needs room for all 40 */
	CHECK_INT(run(len, 512, 40), 40);
	CHECK_STR(parts[39].partlabel, "part40");
}

static void gpt_with_all_128_entries_used_names_the_last(void)
{
	size_t len = mk_gpt_many(128, 128);
	struct part_entry p;

	CHECK_INT(find(len, 128, &p), 1);
	CHECK_STR(p.partlabel, "part128");
	CHECK_STR(p.partuuid, "c0de0080-5a5a-5a5a-5a5a-5a5a5a5a5a5a");
	CHECK_INT(run(len, 512, 128), 128);
	CHECK_INT(parts[127].num, 128);
}

static void gpt_partition_found_in_a_bad_primary_comes_from_the_backup(void)
{
	size_t len = mk_gpt_many(128, 40);
	uint8_t *label17 = disk + 2 * 512 + 16 * 128 + 56;
	struct part_entry p;

	/* the primary's entry 17 changed after its CRC was made */
	label17[0] = 'X';
	CHECK_INT(find(len, 17, &p), 1);
	CHECK_STR(p.partlabel, "part17");
	/* without the backup the changed entry is no answer either */
	disk[len - 512 + 60] ^= 1;
	CHECK_INT(find(len, 17, &p), 0);
	CHECK_INT(run(len, 512, 128), 0);
}

static void gpt_entry_array_is_read_whole_up_to_1_mib(void)
{
	size_t len = mk_gpt_many(8192, 8192);
	uint8_t *h = disk + 512;
	struct part_entry p;

	CHECK(len <= DISK_MAX);
	CHECK_INT(find(len, 8192, &p), 1);
	CHECK_STR(p.partlabel, "part8192");
	/* a primary header claiming one entry more is refused whole: the
	 * backup's table answers, and without it there is none */
	len = mk_gpt_many(8192, 40);
	put_le32(h + 80, 8193);
	put_le32(h + 16, 0);
	put_le32(h + 16, t_crc32(h, 92));
	CHECK_INT(find(len, 17, &p), 1);
	CHECK_STR(p.partlabel, "part17");
	disk[len - 512 + 60] ^= 1;
	CHECK_INT(find(len, 17, &p), 0);
}

static void gpt_partitions_with_guid_and_utf8_names(void)
{
	size_t len = mk_gpt(512);

	CHECK_INT(run(len, 512, 128), 2);
	CHECK_INT(parts[0].num, 1);
	CHECK_INT(parts[0].start_lba, 40);
	CHECK_INT(parts[0].nr_lba, 60);
	CHECK_STR(parts[0].partuuid, "a3a2a1a0-a5a4-a7a6-a8a9-aaabacadaeaf");
	CHECK_STR(parts[0].partlabel, "EFI system");
	CHECK_INT(parts[1].num, 3);
	CHECK_STR(parts[1].partuuid, "cdcdcdcd-cdcd-cdcd-cdcd-cdcdcdcdcdcd");
	CHECK_STR(parts[1].partlabel, "r\xc3\xbcot");
}

static void gpt_on_4k_sectors(void)
{
	size_t len = mk_gpt(4096);

	CHECK_INT(run(len, 4096, 128), 2);
	CHECK_STR(parts[0].partlabel, "EFI system");
	/* read with the wrong sector size it is no table */
	CHECK_INT(run(len, 512, 128), 0);
}

static void gpt_with_a_corrupt_primary_header_falls_back_to_the_backup(void)
{
	size_t len = mk_gpt(512);

	disk[512 + 60] ^= 1; /* disk GUID: header CRC now wrong */
	CHECK_INT(run(len, 512, 128), 2);
	CHECK_STR(parts[0].partlabel, "EFI system");
	len = mk_gpt(512);
	disk[2 * 512 + 60] ^= 1; /* primary entries: entries CRC wrong */
	CHECK_INT(run(len, 512, 128), 2);
	CHECK_STR(parts[0].partlabel, "EFI system");
}

static void gpt_with_both_headers_corrupt_is_no_table(void)
{
	size_t len = mk_gpt(512);

	disk[512 + 60] ^= 1;
	disk[len - 512 + 60] ^= 1;
	CHECK_INT(run(len, 512, 128), 0);
	/* and without the backup (size unknown to the reader) likewise */
	len = mk_gpt(512);
	disk[512 + 60] ^= 1;
	CHECK_INT(run(len / 2, 512, 128), 0);
}

static void gpt_without_protective_mbr_is_read_as_the_mbr_it_is(void)
{
	size_t len = mk_gpt(512);

	disk[446 + 4] = 0x83;
	CHECK_INT(run(len, 512, 128), 1);
	CHECK_STR(parts[0].partlabel, "");
	/* an 0xEE entry that does not start at LBA 1 is neither */
	disk[446 + 4] = 0xee;
	put_le32(disk + 446 + 8, 2);
	CHECK_INT(run(len, 512, 128), 0);
}

static void gpt_with_absurd_entry_counts_is_refused_quickly(void)
{
	static const uint32_t counts[][2] = {
		{ 0xffffffffu, 128 }, { 0, 128 }, { 128, 0 }, { 128, 100 }, { 128, 1u << 31 }, { 4, 8192 },
	};

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		size_t len = mk_gpt(512);
		uint8_t *h = disk + 512;

		put_le32(h + 80, counts[i][0]);
		put_le32(h + 84, counts[i][1]);
		put_le32(h + 16, 0);
		put_le32(h + 16, t_crc32(h, 92));
		/* the backup still answers */
		CHECK_INT(run(len, 512, 128), 2);
		disk[len - 512 + 60] ^= 1;
		CHECK_INT(run(len, 512, 128), 0);
	}
}

static void gpt_header_size_beyond_the_sector_is_refused(void)
{
	size_t len = mk_gpt(512);
	uint8_t *h = disk + 512;

	put_le32(h + 12, 0xffffffffu);
	disk[len - 512 + 60] ^= 1;
	CHECK_INT(run(len, 512, 128), 0);
}

static void more_partitions_than_room_is_enobufs_with_the_first_filled(void)
{
	size_t len = mk_gpt(512);

	CHECK_INT(run(len, 512, 1), -ENOBUFS);
	CHECK_STR(parts[0].partlabel, "EFI system");
	CHECK_INT(run(len, 512, 0), -ENOBUFS);
}

static void a_sector_size_that_is_no_power_of_two_is_einval(void)
{
	CHECK_INT(run(1024, 520, 4), -EINVAL);
	CHECK_INT(run(1024, 256, 4), -EINVAL);
	CHECK_INT(run(1024, 8192, 4), -EINVAL);
}

/* MBR: 1 and 2 primary, 3 extended at 1000 (size 5000) holding logical
 * partitions 5 and 6; disk signature 0x1234abcd. */
static size_t mk_mbr(void)
{
	memset(disk, 0, DISK_MAX);
	put_le32(disk + 440, 0x1234abcdu);
	mbr_entry(disk, 0, 0x83, 100, 400);
	mbr_entry(disk, 1, 0x0c, 500, 400);
	mbr_entry(disk, 2, 0x05, 1000, 5000);
	mbr_entry(disk + 1000 * 512, 0, 0x83, 10, 90);
	mbr_entry(disk + 1000 * 512, 1, 0x05, 200, 300);
	mbr_entry(disk + 1200 * 512, 0, 0x83, 10, 190);
	return 6000 * 512;
}

static void mbr_primary_and_logical_partitions(void)
{
	size_t len = mk_mbr();

	CHECK_INT(run(len, 512, 16), 5);
	CHECK_INT(parts[0].num, 1);
	CHECK_STR(parts[0].partuuid, "1234abcd-01");
	CHECK_STR(parts[0].partlabel, "");
	CHECK_INT(parts[2].num, 3);
	CHECK_INT(parts[2].nr_lba, 5000);
	CHECK_INT(parts[3].num, 5);
	CHECK_INT(parts[3].start_lba, 1010);
	CHECK_INT(parts[3].nr_lba, 90);
	CHECK_STR(parts[3].partuuid, "1234abcd-05");
	CHECK_INT(parts[4].num, 6);
	CHECK_INT(parts[4].start_lba, 1210);
	CHECK_STR(parts[4].partuuid, "1234abcd-06");
}

/* a hybrid ISO's MBR (isohdpfx.bin, Debian's): partition 1 from sector 0
 * over the ISO, then the partition added after it with fdisk */
static void mbr_of_a_hybrid_iso_starts_partition_1_at_sector_0(void)
{
	memset(disk, 0, DISK_MAX);
	mbr_entry(disk, 0, 0x17, 0, 4096);
	mbr_entry(disk, 1, 0x83, 4096, 8192);
	CHECK_INT(run(12288 * 512, 512, 8), 2);
	CHECK_INT(parts[0].num, 1);
	CHECK_INT(parts[0].start_lba, 0);
	CHECK_INT(parts[0].nr_lba, 4096);
	CHECK_INT(parts[1].start_lba, 4096);
}

static void mbr_without_disk_signature_has_no_partuuid(void)
{
	size_t len = mk_mbr();

	put_le32(disk + 440, 0);
	CHECK_INT(run(len, 512, 16), 5);
	CHECK_STR(parts[0].partuuid, "");
}

static void mbr_partitions_are_found_by_number(void)
{
	size_t len = mk_mbr();
	struct part_entry p;

	CHECK_INT(find(len, 6, &p), 1);
	CHECK_INT(p.start_lba, 1210);
	CHECK_STR(p.partuuid, "1234abcd-06");
	CHECK_STR(p.partlabel, "");
	CHECK_INT(find(len, 2, &p), 1);
	CHECK_STR(p.partuuid, "1234abcd-02");
	CHECK_INT(find(len, 4, &p), 0); /* an empty slot */
	CHECK_INT(find(len, 7, &p), 0);
}

static void ebr_chain_pointing_back_to_itself_ends(void)
{
	size_t len = mk_mbr();

	/* the EBR at 1200 links to 1000 + 200: itself */
	mbr_entry(disk + 1200 * 512, 1, 0x05, 200, 100);
	CHECK_INT(run(len, 512, 16), 5);
}

static void ebr_link_of_zero_ends_the_chain(void)
{
	size_t len = mk_mbr();

	/* the first EBR's link is relative 0, i.e. none */
	put_le32(disk + 1000 * 512 + 446 + 16 + 8, 0);
	CHECK_INT(run(len, 512, 16), 4);
}

static void endless_ebr_chain_is_cut_at_the_bound(void)
{
	size_t len;

	memset(disk, 0, DISK_MAX);
	put_le32(disk + 440, 1);
	mbr_entry(disk, 0, 0x0f, 10, 2000);
	/* 1000 EBRs one sector apart would need 1000 reads: the bound cuts */
	for (uint32_t i = 0; i < 1000; i++) {
		uint8_t *s = disk + (10 + i) * 512;

		mbr_entry(s, 0, 0x83, 1, 1);
		mbr_entry(s, 1, 0x05, i + 1, 1);
	}
	len = 2010 * 512;
	CHECK_INT(run(len, 512, 300), 129);
	CHECK_INT(parts[128].num, 132);
	CHECK_STR(parts[128].partuuid, "00000001-84");
}

static void two_ebrs_linking_to_each_other_end(void)
{
	size_t len = mk_mbr();

	/* 1000 -> 1200 -> 1100 -> 1200 -> ... */
	mbr_entry(disk + 1200 * 512, 1, 0x05, 100, 100);
	mbr_entry(disk + 1100 * 512, 0, 0x83, 5, 5);
	mbr_entry(disk + 1100 * 512, 1, 0x05, 200, 100);
	CHECK_INT(run(len, 512, 16), 6);
}

static void logical_partition_outside_its_extended_one_is_skipped(void)
{
	size_t len = mk_mbr();

	put_le32(disk + 1200 * 512 + 446 + 12, 0xffffff00u);
	CHECK_INT(run(len, 512, 16), 4);
}

static void mbr_with_garbage_boot_flags_is_no_table(void)
{
	size_t len = mk_mbr();

	disk[446] = 0x12;
	CHECK_INT(run(len, 512, 16), 0);
}

static void fat_boot_sector_is_not_a_partition_table(void)
{
	memset(disk, 0, DISK_MAX);
	disk[0] = 0xeb;
	disk[0x0b + 1] = 2; /* 512-byte sectors */
	disk[0x0d] = 4;
	disk[0x0e] = 1;
	disk[0x10] = 2;
	disk[0x11 + 1] = 2; /* 512 root entries */
	put_le32(disk + 0x20, 20000);
	disk[0x15] = 0xf8;
	disk[0x16] = 32;
	memcpy(disk + 0x36, "FAT16   ", 8);
	mbr_entry(disk, 0, 0x83, 1, 100);
	CHECK_INT(run(DISK_MAX, 512, 16), 0);
}

static void no_signature_is_no_table(void)
{
	memset(disk, 0, DISK_MAX);
	CHECK_INT(run(DISK_MAX, 512, 16), 0);
	CHECK_INT(run(0, 512, 16), 0);
	CHECK_INT(run(100, 512, 16), 0);
}

static void truncated_tables_are_partial_or_none_never_a_crash(void)
{
	for (int kind = 0; kind < 2; kind++) {
		size_t full = kind ? mk_mbr() : mk_gpt(512);

		for (size_t len = 0; len <= full; len += len < 40000 ? 7 : 4093) {
			int rc = run(len, 512, 16);

			CHECK(rc >= 0 && rc <= 5);
			for (int i = 0; i < rc; i++)
				CHECK(memchr(parts[i].partlabel, 0, sizeof(parts[i].partlabel)) &&
				      memchr(parts[i].partuuid, 0, sizeof(parts[i].partuuid)));
		}
	}
}

/* ---- a partition added (parttab_add.c) ---- */

#define BIG_SECTORS 8192u /* the 4 MiB stick a 512 KiB image was written to */

/* the dd'd hybrid ISO's MBR: partition 1 over the image from sector 0, an
 * EFI partition inside it */
static void added_mbr_partition_follows_the_image_on_the_next_mib(void)
{
	struct part_new n;
	uint8_t mbr[512];

	memset(disk, 0, DISK_MAX);
	mbr_entry(disk, 0, 0x17, 0, 1000);
	mbr_entry(disk, 1, 0xef, 100, 50);
	memcpy(mbr, disk, 512);
	CHECK_INT(parttab_add_mbr(mbr, BIG_SECTORS, 0, 2048, &n), 0);
	CHECK_INT(n.num, 3);
	CHECK_INT(n.start, 2048);
	CHECK_INT(n.sectors, BIG_SECTORS - 2048);
	memcpy(disk, mbr, 512);
	CHECK_INT(run(BIG_SECTORS * 512, 512, 300), 3);
	CHECK_INT(parts[2].num, 3);
	CHECK_INT(parts[2].start_lba, 2048);
	CHECK_INT(parts[2].nr_lba, BIG_SECTORS - 2048);
	/* a second one follows the first; a fixed size is kept */
	CHECK_INT(parttab_add_mbr(mbr, BIG_SECTORS * 2, 2048, 2048, &n), 0);
	CHECK_INT(n.num, 4);
	CHECK_INT(n.start, BIG_SECTORS);
	CHECK_INT(n.sectors, 2048);
	/* no slot left; no room; not an MBR; a GPT's protective MBR */
	CHECK_INT(parttab_add_mbr(mbr, BIG_SECTORS * 4, 0, 2048, &n), -ENOSPC);
	memcpy(mbr, disk, 512);
	CHECK_INT(parttab_add_mbr(mbr, 2048 + 100, 0, 2048, &n), -ENOSPC);
	CHECK_INT(parttab_add_mbr(mbr, BIG_SECTORS, BIG_SECTORS, 0, &n), -ENOSPC);
	mbr[510] = 0;
	CHECK_INT(parttab_add_mbr(mbr, BIG_SECTORS, 0, 2048, &n), -EINVAL);
	mk_gpt(512);
	memcpy(mbr, disk, 512);
	CHECK_INT(parttab_add_mbr(mbr, BIG_SECTORS, 0, 2048, &n), -EINVAL);
}

static uint8_t g_hdr[512], g_backup[512], g_array[128 * 128];

/* mk_gpt's 512 KiB table on a 4 MiB stick, the new partition computed */
static int gpt_added(struct part_new *n, uint64_t *backup_lba)
{
	static const uint8_t guid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

	mk_gpt(512);
	memcpy(g_hdr, disk + 512, 512);
	memcpy(g_array, disk + 2 * 512, sizeof(g_array));
	return parttab_add_gpt(g_hdr, g_backup, g_array, sizeof(g_array), 512, BIG_SECTORS, 0, 2048,
			       guid, "persistence", n, backup_lba);
}

static void added_gpt_partition_moves_the_backup_to_the_disks_end(void)
{
	struct part_new n;
	uint64_t blba;

	CHECK_INT(gpt_added(&n, &blba), 0);
	CHECK_INT(n.num, 2); /* the free slot between 1 and 3 */
	CHECK_INT(n.start, 2048);
	CHECK_INT(blba, BIG_SECTORS - 1 - 32);
	CHECK_INT(n.sectors, blba - 2048);
	/* the writes in their order */
	memcpy(disk + blba * 512, g_array, sizeof(g_array));
	memcpy(disk + (BIG_SECTORS - 1) * 512, g_backup, 512);
	memcpy(disk + 2 * 512, g_array, sizeof(g_array));
	memcpy(disk + 512, g_hdr, 512);
	CHECK_INT(run(BIG_SECTORS * 512, 512, 300), 3);
	CHECK_INT(parts[1].num, 2);
	CHECK_INT(parts[1].start_lba, 2048);
	CHECK_INT(parts[1].nr_lba, blba - 2048);
	CHECK_STR(parts[1].partlabel, "persistence");
	CHECK_STR(parts[1].partuuid, "04030201-0605-0807-090a-0b0c0d0e0f10");
	/* the backup alone is the same table: the primary's loss costs nothing */
	memset(disk + 512, 0, 512);
	CHECK_INT(run(BIG_SECTORS * 512, 512, 300), 3);
	CHECK_INT(parts[1].start_lba, 2048);
}

/* A cut after each write: the old table, or the whole new one. */
static void added_gpt_partition_is_old_or_whole_after_a_cut_at_each_write(void)
{
	struct part_new n;
	uint64_t blba;

	for (int writes = 0; writes <= 4; writes++) {
		CHECK_INT(gpt_added(&n, &blba), 0);
		if (writes > 0)
			memcpy(disk + blba * 512, g_array, sizeof(g_array));
		if (writes > 1)
			memcpy(disk + (BIG_SECTORS - 1) * 512, g_backup, 512);
		if (writes > 2)
			memcpy(disk + 2 * 512, g_array, sizeof(g_array));
		if (writes > 3)
			memcpy(disk + 512, g_hdr, 512);
		/* before the primary's array changes, its old table; after, the new one */
		CHECK_INT(run(BIG_SECTORS * 512, 512, 300), writes > 2 ? 3 : 2);
		CHECK_INT(parts[1].num, writes > 2 ? 2 : 3);
	}
}

/* parttab_add_gpt over g_hdr and g_array (array_bytes of it) refuses, and
 * leaves the header as it was */
static void gpt_add_refused(size_t array_bytes)
{
	static const uint8_t guid[16];
	struct part_new n;
	uint64_t blba;
	uint8_t before[512];

	memcpy(before, g_hdr, 512);
	CHECK_INT(parttab_add_gpt(g_hdr, g_backup, g_array, array_bytes, 512, BIG_SECTORS, 0, 2048,
				  guid, "p", &n, &blba), -EINVAL);
	CHECK(memcmp(before, g_hdr, 512) == 0);
}

static void added_gpt_refuses_a_bad_table_and_leaves_it_as_it_was(void)
{
	static const uint8_t guid[16];
	struct part_new n;
	uint64_t blba;

	mk_gpt(512);
	memcpy(g_hdr, disk + 512, 512);
	memcpy(g_array, disk + 2 * 512, sizeof(g_array));
	g_array[40] ^= 1; /* the array's CRC fails */
	gpt_add_refused(sizeof(g_array));
	g_array[40] ^= 1;
	g_hdr[30] ^= 1;  /* the header's CRC fails */
	gpt_add_refused(sizeof(g_array));
	g_hdr[30] ^= 1;
	gpt_add_refused(64 * 128); /* the array's size is not the header's */
	/* no room behind the last partition on the image's own size */
	CHECK_INT(parttab_add_gpt(g_hdr, g_backup, g_array, sizeof(g_array), 512, 1024, 0, 2048,
				  guid, "p", &n, &blba), -ENOSPC);
}

UNIT_SUITE(parttab,
	{ "GPT partitions keep their numbers, lower-case GUIDs and UTF-8 names", gpt_partitions_with_guid_and_utf8_names },
	{ "a GPT on 4 KiB sectors is read with 4096, not with 512", gpt_on_4k_sectors },
	{ "a GPT with a corrupt primary header or entries falls back to the backup", gpt_with_a_corrupt_primary_header_falls_back_to_the_backup },
	{ "a GPT with both headers corrupt is no table", gpt_with_both_headers_corrupt_is_no_table },
	{ "a GPT without a protective MBR is read as the MBR it then is", gpt_without_protective_mbr_is_read_as_the_mbr_it_is },
	{ "a GPT header claiming absurd entry counts or sizes is refused quickly", gpt_with_absurd_entry_counts_is_refused_quickly },
	{ "a GPT header size beyond its sector is refused", gpt_header_size_beyond_the_sector_is_refused },
	{ "more partitions than room is -ENOBUFS with the first ones filled", more_partitions_than_room_is_enobufs_with_the_first_filled },
	{ "a GPT of 40 partitions names its 17th and 40th, asked for by number", gpt_partitions_past_16_are_found_by_number },
	{ "a GPT with all 128 entries used names the 128th", gpt_with_all_128_entries_used_names_the_last },
	{ "a partition asked for from a GPT whose primary entries are bad comes from the backup", gpt_partition_found_in_a_bad_primary_comes_from_the_backup },
	{ "a GPT entry array is read whole up to 1 MiB; a header claiming more is refused, its backup read", gpt_entry_array_is_read_whole_up_to_1_mib },
	{ "a sector size that is no power of two in 512..4096 is -EINVAL", a_sector_size_that_is_no_power_of_two_is_einval },
	{ "an MBR lists primary 1-4 and logical partitions from 5 with ssssssss-pp", mbr_primary_and_logical_partitions },
	{ "a hybrid ISO's MBR starts partition 1 at sector 0", mbr_of_a_hybrid_iso_starts_partition_1_at_sector_0 },
	{ "an MBR without a disk signature gives no PARTUUID", mbr_without_disk_signature_has_no_partuuid },
	{ "an MBR's primary and logical partitions are found by number", mbr_partitions_are_found_by_number },
	{ "an EBR chain pointing back at itself ends", ebr_chain_pointing_back_to_itself_ends },
	{ "an EBR link of zero ends the chain", ebr_link_of_zero_ends_the_chain },
	{ "an endless EBR chain is cut at 128 logical partitions", endless_ebr_chain_is_cut_at_the_bound },
	{ "EBRs that link to each other in a cycle end", two_ebrs_linking_to_each_other_end },
	{ "a logical partition reaching outside its extended partition is skipped", logical_partition_outside_its_extended_one_is_skipped },
	{ "an MBR with garbage boot flags is no table", mbr_with_garbage_boot_flags_is_no_table },
	{ "a FAT boot sector is a filesystem, not a partition table", fat_boot_sector_is_not_a_partition_table },
	{ "a disk without 0x55AA, empty or shorter than a sector has no table", no_signature_is_no_table },
	{ "a table truncated at every length is partial or none, never a crash", truncated_tables_are_partial_or_none_never_a_crash },
	{ "an added MBR partition follows the image on the next MiB", added_mbr_partition_follows_the_image_on_the_next_mib },
	{ "an added GPT partition moves the backup to the disk's end", added_gpt_partition_moves_the_backup_to_the_disks_end },
	{ "an added GPT partition is old or whole after a cut at each write", added_gpt_partition_is_old_or_whole_after_a_cut_at_each_write },
	{ "adding to a bad GPT is refused and leaves it as it was", added_gpt_refuses_a_bad_table_and_leaves_it_as_it_was });
