// SPDX-License-Identifier: MIT
/* A partition added behind a disk's last one, in an MBR or a GPT, computed
 * in memory for the caller to write in the order parttab.h gives. */
#include "probe/parttab.h"

#include <errno.h>
#include <string.h>

#include "lib/bytes.h"

#define MBR_MAX_SECTORS 0xffffffffull

/* The new partition's place: from the first boundary at or after from,
 * want sectors (0: all up to end, exclusive), at least min. */
static int place(uint64_t from, uint64_t end, uint64_t align, uint64_t want, uint64_t min,
		 struct part_new *out)
{
	uint64_t start = (from + align - 1) / align * align;

	if (start < from || start >= end || end - start < (min ? min : 1) ||
	    (want && end - start < want))
		return -ENOSPC;
	out->start = start;
	out->sectors = want ? want : end - start;
	return 0;
}

int parttab_add_mbr(uint8_t mbr[512], uint64_t disk_sectors, uint64_t want, uint64_t min,
		    struct part_new *out)
{
	uint64_t last = 1;
	uint8_t *new_e;
	int slot = -1;

	if (mbr[510] != 0x55 || mbr[511] != 0xaa)
		return -EINVAL;
	for (int i = 3; i >= 0; i--) {
		uint8_t *e = mbr + 446 + i * 16;
		uint64_t end = (uint64_t)get_le32(e + 8) + get_le32(e + 12);

		if (e[4] == 0xee)
			return -EINVAL; /* a GPT's protective entry: its table is the GPT */
		if (e[4] == 0 || !get_le32(e + 12))
			slot = i; /* the first free one, counted from 1 */
		else if (end > last)
			last = end; /* an extended partition holds its logical ones */
	}
	if (slot < 0)
		return -ENOSPC;
	if (place(last, disk_sectors < MBR_MAX_SECTORS ? disk_sectors : MBR_MAX_SECTORS,
		  PARTADD_ALIGN, want, min, out) < 0)
		return -ENOSPC;
	new_e = mbr + 446 + slot * 16;
	memset(new_e, 0, 16);
	/* CHS fields past 1023 cylinders say so, as fdisk writes them */
	new_e[1] = new_e[5] = 0xfe;
	new_e[2] = new_e[6] = 0xff;
	new_e[3] = new_e[7] = 0xff;
	new_e[4] = 0x83;
	put_le32(new_e + 8, (uint32_t)out->start);
	put_le32(new_e + 12, (uint32_t)out->sectors);
	out->num = (unsigned)slot + 1;
	return 0;
}

/* Linux file system data, as the GPT stores a GUID */
static const uint8_t linux_data[16] = {
	0xaf, 0x3d, 0xc6, 0x0f, 0x83, 0x84, 0x72, 0x47,
	0x8e, 0x79, 0x3d, 0x69, 0xd8, 0x47, 0x7d, 0xe4,
};

static uint32_t header_crc(uint8_t *h)
{
	put_le32(h + 16, 0);
	put_le32(h + 16, ~crc32_update(~0u, h, get_le32(h + 12)));
	return get_le32(h + 16);
}

/* A header and array as parttab_read takes them, small enough to rewrite;
 * hdr comes back as it was. */
static int gpt_valid(uint8_t *hdr, const uint8_t *array, size_t array_bytes, unsigned ss)
{
	uint32_t hsize = get_le32(hdr + 12), esize = get_le32(hdr + 84);
	uint32_t crc = get_le32(hdr + 16);
	int ok;

	if (memcmp(hdr, "EFI PART", 8) != 0 || hsize < 92 || hsize > ss || esize < 128 ||
	    !is_pow2(esize) || (uint64_t)get_le32(hdr + 80) * esize != array_bytes ||
	    array_bytes > PARTADD_ARRAY_MAX)
		return 0;
	ok = header_crc(hdr) == crc && ~crc32_update(~0u, array, array_bytes) == get_le32(hdr + 88);
	put_le32(hdr + 16, crc);
	return ok;
}

int parttab_add_gpt(uint8_t *hdr, uint8_t *backup, uint8_t *array, size_t array_bytes,
		    unsigned ss, uint64_t disk_sectors, uint64_t want, uint64_t min,
		    const uint8_t guid[16], const char *label, struct part_new *out,
		    uint64_t *backup_lba)
{
	static const uint8_t zero[16];
	uint32_t esize = get_le32(hdr + 84);
	uint64_t array_sectors, last = get_le64(hdr + 40), align = PARTADD_ALIGN * 512u / ss;
	uint8_t *e, *free_e = NULL;

	if (!gpt_valid(hdr, array, array_bytes, ss))
		return -EINVAL;
	array_sectors = (array_bytes + ss - 1) / ss;
	if (disk_sectors < array_sectors + 3 || get_le64(hdr + 72) + array_sectors > get_le64(hdr + 40))
		return -EINVAL;
	for (size_t off = 0; off < array_bytes; off += esize) {
		e = array + off;
		if (!memcmp(e, zero, 16))
			free_e = free_e ? free_e : e;
		else if (get_le64(e + 40) + 1 > last)
			last = get_le64(e + 40) + 1;
	}
	*backup_lba = disk_sectors - 1 - array_sectors;
	if (!free_e || place(last, *backup_lba, align ? align : 1, want, min, out) < 0)
		return -ENOSPC;
	memset(free_e, 0, esize);
	memcpy(free_e, linux_data, 16);
	memcpy(free_e + 16, guid, 16);
	put_le64(free_e + 32, out->start);
	put_le64(free_e + 40, out->start + out->sectors - 1);
	for (unsigned i = 0; i < 36 && label[i]; i++)
		free_e[56 + 2 * i] = (uint8_t)label[i]; /* ASCII as UTF-16LE */
	out->num = (unsigned)((free_e - array) / esize) + 1;

	put_le64(hdr + 32, disk_sectors - 1);     /* the backup at the disk's end */
	put_le64(hdr + 48, *backup_lba - 1);      /* the last usable sector before its array */
	put_le32(hdr + 88, ~crc32_update(~0u, array, array_bytes));
	(void)header_crc(hdr);
	memcpy(backup, hdr, ss);
	put_le64(backup + 24, disk_sectors - 1);
	put_le64(backup + 32, 1);
	put_le64(backup + 72, *backup_lba);
	(void)header_crc(backup);
	return 0;
}
