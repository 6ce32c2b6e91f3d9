// SPDX-License-Identifier: MIT
/* GPT (checked: protective MBR, header and entry CRCs, backup header when
 * the primary is bad) and MBR with the EBR chain of logical partitions. */
#include "probe/parttab.h"

#include "lib/bytes.h"

#include <string.h>

#define GPT_HDR_MIN 92
/* The entry array is streamed through a 4 KiB chunk, so its size costs
 * reading time, not memory: 8192 entries of 128 bytes, 64 times the usual
 * 128. A header claiming more is refused as a corrupt one is (the backup is
 * tried): without the whole array its CRC cannot be checked, and which of
 * the two tables the kernel took cannot be told. The kernel refuses one over
 * KMALLOC_MAX_SIZE (4 MiB with 4 KiB pages, block/partitions/efi.c). */
#define GPT_ENTRIES_MAX_BYTES (1024 * 1024)
#define MBR_MAX_EBR 128 /* logical partitions we follow; a loop ends here too */

static int is_extended(uint8_t type)
{
	return type == 0x05 || type == 0x0f || type == 0x85;
}

static int mbr_sector(const struct probe_src *src, uint64_t off, uint8_t s[512])
{
	int rc = probe_read(src, off, s, 512);

	if (rc)
		return probe_miss(rc);
	return s[510] == 0x55 && s[511] == 0xaa;
}

/* Where the partitions found go: the first max of them in table order, or
 * with want set only partition number want. count counts every partition
 * that went in or would have, so an overflow is known. */
struct part_sink {
	struct part_entry *parts;
	unsigned max;
	unsigned want; /* 0: all of them */
	unsigned count;
};

/* The zeroed slot of one partition with its place filled in, or NULL when it
 * is not the one wanted or there is no room (then it is still counted). */
static struct part_entry *add_part(struct part_sink *sink, unsigned num, uint64_t start,
				   uint64_t nr)
{
	struct part_entry *p;

	if (sink->want && num != sink->want)
		return NULL;
	if (sink->count++ >= sink->max)
		return NULL;
	p = &sink->parts[sink->count - 1];
	memset(p, 0, sizeof(*p));
	p->num = num;
	p->start_lba = start;
	p->nr_lba = nr;
	return p;
}

/* "ssssssss-pp" as blkid makes it (%08x-%02x); none without a signature. */
static void mbr_partuuid(struct part_entry *p, uint32_t sig)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (!p || !sig)
		return;
	for (int sh = 28; sh >= 0; sh -= 4)
		p->partuuid[o++] = hex[sig >> sh & 15];
	p->partuuid[o++] = '-';
	if (p->num > 0xff)
		p->partuuid[o++] = hex[p->num >> 8 & 15];
	p->partuuid[o++] = hex[p->num >> 4 & 15];
	p->partuuid[o++] = hex[p->num & 15];
	p->partuuid[o] = 0;
}

/* ---- GPT ---- */

/* Validates the header at lba; 1 valid (hdr filled), 0 not, -errno. */
static int gpt_header(const struct probe_src *src, unsigned ss, uint64_t lba, uint8_t *hdr)
{
	uint32_t hsize, crc, esize, nent;
	uint64_t first, last, elba;
	int rc = probe_read(src, lba * ss, hdr, ss);

	if (rc)
		return probe_miss(rc);
	if (memcmp(hdr, "EFI PART", 8) != 0)
		return 0;
	hsize = get_le32(hdr + 12);
	if (hsize < GPT_HDR_MIN || hsize > ss)
		return 0;
	crc = get_le32(hdr + 16);
	put_le32(hdr + 16, 0);
	if (~crc32_update(~0u, hdr, hsize) != crc)
		return 0;
	put_le32(hdr + 16, crc);
	if (get_le64(hdr + 24) != lba)
		return 0;
	first = get_le64(hdr + 40);
	last = get_le64(hdr + 48);
	elba = get_le64(hdr + 72);
	nent = get_le32(hdr + 80);
	esize = get_le32(hdr + 84);
	if (first > last || elba < 2 || elba > UINT64_MAX / ss)
		return 0;
	/* UEFI: 128 << n bytes an entry; ours stay inside one 4 KiB chunk */
	if (esize < 128 || esize > 4096 || !is_pow2(esize))
		return 0;
	if (!nent || (uint64_t)nent * esize > GPT_ENTRIES_MAX_BYTES)
		return 0;
	return 1;
}

/* Reads the whole entry array of a valid header in chunks, each entry into
 * sink as it passes, and checks the array's CRC. 0, -EBADMSG on a CRC
 * mismatch, -errno; sink then holds what it read, for the caller to drop. */
static int gpt_entries(const struct probe_src *src, unsigned ss, const uint8_t *hdr,
		       struct part_sink *sink)
{
	uint8_t chunk[4096];
	uint64_t first = get_le64(hdr + 40), last = get_le64(hdr + 48);
	uint64_t off = get_le64(hdr + 72) * ss;
	uint32_t nent = get_le32(hdr + 80), esize = get_le32(hdr + 84);
	uint64_t total = (uint64_t)nent * esize;
	uint32_t crc = ~0u;
	unsigned idx = 0;

	for (uint64_t done = 0; done < total;) {
		size_t n = total - done < sizeof(chunk) ? (size_t)(total - done) : sizeof(chunk);
		int rc = probe_read(src, off + done, chunk, n);

		if (rc)
			return rc;
		crc = crc32_update(crc, chunk, n);
		for (size_t e = 0; e + esize <= n; e += esize, idx++) {
			const uint8_t *ent = chunk + e;
			uint64_t start = get_le64(ent + 32), end = get_le64(ent + 40);
			static const uint8_t zero[16];
			struct part_entry *p;

			/* unused slots, and ones the kernel would refuse */
			if (!memcmp(ent, zero, 16) || start > end || start < first || end > last)
				continue;
			p = add_part(sink, idx + 1, start, end - start + 1);
			if (p) {
				probe_guid(p->partuuid, sizeof(p->partuuid), ent + 16);
				probe_label_utf16(p->partlabel, sizeof(p->partlabel), ent + 56, 72, 0);
			}
		}
		done += n;
	}
	return ~crc == get_le32(hdr + 88) ? 0 : -EBADMSG;
}

/* 1 when sector 0 is a protective (or hybrid) MBR: a 0xEE entry at LBA 1. */
static int has_pmbr(const uint8_t *mbr)
{
	for (int i = 0; i < 4; i++) {
		const uint8_t *e = mbr + 446 + i * 16;

		if (e[4] == 0xee && get_le32(e + 8) == 1)
			return 1;
	}
	return 0;
}

static int gpt_read(const struct probe_src *src, unsigned ss, struct part_sink *sink)
{
	uint8_t hdr[4096];
	uint64_t lbas[2] = { 1, 0 };
	int tries = 1;

	if (src->size / ss > 2) {
		lbas[1] = src->size / ss - 1; /* the backup header */
		tries = 2;
	}
	for (int t = 0; t < tries; t++) {
		int rc = gpt_header(src, ss, lbas[t], hdr);

		if (rc < 0)
			return rc;
		if (!rc)
			continue;
		sink->count = 0;
		rc = gpt_entries(src, ss, hdr, sink);
		if (rc == -EBADMSG || rc == -ERANGE)
			continue;
		return rc;
	}
	sink->count = 0; /* what a bad array held is no table */
	return 0;
}

/* ---- MBR ---- */

static int mbr_logical(const struct probe_src *src, unsigned ss, uint64_t ext_start,
		       uint64_t ext_nr, uint32_t sig, unsigned *next_num, struct part_sink *sink)
{
	uint64_t visited[MBR_MAX_EBR] = { 0 };
	uint64_t cur = ext_start, ext_end = ext_start + ext_nr;
	uint8_t s[512];

	for (unsigned n = 0; n < MBR_MAX_EBR; n++) {
		uint64_t link = 0;
		int rc;

		for (unsigned v = 0; v < n; v++)
			if (visited[v] == cur)
				return 0; /* a chain that loops back */
		visited[n] = cur;
		rc = mbr_sector(src, cur * ss, s);
		if (rc <= 0)
			return rc;
		for (int i = 0; i < 4; i++) {
			const uint8_t *e = s + 446 + i * 16;
			uint64_t start = get_le32(e + 8), nr = get_le32(e + 12);

			if (!e[4] || !nr)
				continue;
			if (is_extended(e[4])) {
				if (!link)
					link = start;
				continue;
			}
			/* a data partition is relative to its EBR and must stay
			 * inside the extended partition */
			if (cur + start < ext_start || cur + start + nr > ext_end)
				continue;
			mbr_partuuid(add_part(sink, (*next_num)++, cur + start, nr), sig);
		}
		/* the link is relative to the extended partition's start */
		if (!link || link >= ext_nr)
			return 0;
		cur = ext_start + link;
	}
	return 0;
}

static int mbr_read(const struct probe_src *src, unsigned ss, const uint8_t *mbr,
		    struct part_sink *sink)
{
	struct probe_info fat;
	uint32_t sig = get_le32(mbr + 440);
	unsigned next_num = 5;
	int rc;

	for (int i = 0; i < 4; i++) {
		uint8_t boot = mbr[446 + i * 16];

		if (boot != 0 && boot != 0x80)
			return 0;
	}
	/* A FAT boot sector ends in 0x55AA too: it is a filesystem, not a
	 * table (blkid makes the same check). */
	rc = probe_vfat(src, &fat);
	if (rc == 0)
		rc = probe_exfat(src, &fat); /* its boot code may look like entries */
	if (rc < 0)
		return rc;
	if (rc > 0)
		return 0;
	for (int i = 0; i < 4; i++) {
		const uint8_t *e = mbr + 446 + i * 16;
		uint64_t start = get_le32(e + 8), nr = get_le32(e + 12);

		/* numbers are slots: an empty slot keeps its number */
		if (!e[4] || !nr)
			continue;
		mbr_partuuid(add_part(sink, (unsigned)i + 1, start, nr), sig);
	}
	for (int i = 0; i < 4; i++) {
		const uint8_t *e = mbr + 446 + i * 16;
		uint64_t start = get_le32(e + 8), nr = get_le32(e + 12);

		if (!is_extended(e[4]) || !nr || !start)
			continue;
		rc = mbr_logical(src, ss, start, nr, sig, &next_num, sink);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The table on src into sink: 0, or -errno. */
static int table_read(const struct probe_src *src, unsigned sector_size, struct part_sink *sink)
{
	uint8_t mbr[512];
	int rc;

	if (sector_size < 512 || sector_size > 4096 || !is_pow2(sector_size))
		return -EINVAL;
	rc = mbr_sector(src, 0, mbr);
	if (rc <= 0)
		return rc;
	/* With a protective entry the disk is GPT or nothing: the MBR
	 * entries then only describe the GPT area. */
	if (has_pmbr(mbr))
		return gpt_read(src, sector_size, sink);
	for (int i = 0; i < 4; i++)
		if (mbr[446 + i * 16 + 4] == 0xee)
			return 0;
	return mbr_read(src, sector_size, mbr, sink);
}

int parttab_read(const struct probe_src *src, unsigned sector_size,
		 struct part_entry *parts, unsigned max)
{
	struct part_sink sink = { .parts = parts, .max = max };
	int rc = table_read(src, sector_size, &sink);

	if (rc < 0)
		return rc;
	return sink.count > max ? -ENOBUFS : (int)sink.count;
}

int parttab_find(const struct probe_src *src, unsigned sector_size, unsigned num,
		 struct part_entry *out)
{
	struct part_sink sink = { .parts = out, .max = 1, .want = num };
	int rc;

	if (!num)
		return 0; /* no table numbers a partition 0 */
	rc = table_read(src, sector_size, &sink);
	if (rc < 0)
		return rc;
	return sink.count > 0;
}
