// SPDX-License-Identifier: MIT
/* ISO 9660 with the Joliet extension: volume descriptors from sector 16.
 * UUID is the modification (else creation) date, as blkid derives it; LABEL
 * merges the Joliet name (UTF-16BE, 16 characters) with the primary one
 * (ASCII, 32 characters) the way blkid does. */
#include "lib/bytes.h"
#include "probe/probe.h"

#include <string.h>

#define ISO_SECTOR 2048
#define ISO_VD_FIRST (16 * ISO_SECTOR)
#define ISO_VD_MAX 16
#define ISO_VD_LEN 900 /* through the modification date */

#define VD_BOOT 0
#define VD_PRIMARY 1
#define VD_SUPPLEMENTARY 2
#define VD_END 255

#define VD_VOLUME_ID 40
#define VD_SPACE_SIZE 80 /* blocks, both byte orders: the little-endian half */
#define VD_BLOCK_SIZE 128
#define VD_ESCAPES 88
#define VD_CREATED 813
#define VD_MODIFIED 830

/* "YYYY-MM-DD-HH-MM-SS-cc" from a 17-byte date; 0 when the date is unset
 * (all sixteen digits '0' and a zero time zone). */
static int iso_date_uuid(char *dst, size_t dstsz, const uint8_t *d)
{
	static const uint8_t group[] = { 4, 2, 2, 2, 2, 2, 2 };
	size_t o = 0, i = 0;
	int zeros = 0;

	for (int k = 0; k < 16; k++)
		zeros += d[k] == '0';
	if (zeros == 16 && d[16] == 0)
		return 0;
	if (dstsz < 23)
		return 0;
	for (size_t g = 0; g < sizeof(group); g++) {
		if (g)
			dst[o++] = '-';
		for (int k = 0; k < group[g]; k++) {
			/* blkid prints the bytes with %c: keep them, but a NUL
			 * would end the string early, so do the same. */
			dst[o++] = (char)d[i++];
		}
	}
	dst[o] = 0;
	return 1;
}

static int up(int c)
{
	return c >= 'a' && c <= 'z' ? c - 32 : c;
}

/*
 * Joliet keeps 16 UTF-16 characters, the primary descriptor 32 ASCII ones
 * with '_' for what ASCII cannot hold. When the Joliet name is the start of
 * the ASCII one (case-insensitively, '_' matching anything), rebuild the
 * long name: Joliet's characters first, then the rest of the ASCII name.
 * Returns the UTF-16BE length in out, 0 when they do not match.
 */
static size_t iso_merge(uint8_t *out, size_t outsz, const uint8_t *u16, const uint8_t *ascii)
{
	size_t o = 0, a = 0, u = 0;
	const size_t len = 32;

	for (; u + 1 < len && a < len; a++, u += 2) {
		if (o + 4 > outsz)
			return 0;
		if (u16[u] >= 0xd8 && u16[u] <= 0xdb && u + 3 < len &&
		    u16[u + 2] >= 0xdc && u16[u + 2] <= 0xdf) {
			out[o++] = u16[u++];
			out[o++] = u16[u++];
		}
		if (ascii[a] == '_') {
			out[o] = u16[u];
			out[o + 1] = u16[u + 1];
		} else if (u16[u] == 0 && u16[u + 1] == '_') {
			out[o] = 0;
			out[o + 1] = ascii[a];
		} else if (u16[u] == 0 && up(ascii[a]) == up(u16[u + 1])) {
			out[o] = 0;
			out[o + 1] = (ascii[a] >= 'A' && ascii[a] <= 'Z') ? u16[u + 1] : ascii[a];
		} else {
			return 0;
		}
		o += 2;
	}
	for (; a < len && o + 2 <= outsz; a++, o += 2) {
		out[o] = 0;
		out[o + 1] = ascii[a];
	}
	return o;
}

static int joliet_escape(const uint8_t *vd)
{
	const uint8_t *e = vd + VD_ESCAPES;

	return e[0] == '%' && e[1] == '/' && (e[2] == '@' || e[2] == 'C' || e[2] == 'E');
}

int probe_iso9660(const struct probe_src *src, struct probe_info *out)
{
	uint8_t pvd[ISO_VD_LEN], jol[ISO_VD_LEN], vd[ISO_VD_LEN];
	int have_pvd = 0, have_jol = 0, rc;

	rc = probe_read(src, ISO_VD_FIRST, vd, 8);
	if (rc)
		return probe_miss(rc);
	if (memcmp(vd + 1, "CD001", 5) != 0)
		return 0;
	for (unsigned i = 0; i < ISO_VD_MAX && !(have_pvd && have_jol); i++) {
		rc = probe_read(src, ISO_VD_FIRST + (uint64_t)i * ISO_SECTOR, vd, sizeof(vd));
		if (rc)
			break; /* like blkid: a short image ends the list */
		if (vd[0] == VD_END)
			break;
		if (vd[0] == VD_PRIMARY && !have_pvd) {
			memcpy(pvd, vd, sizeof(pvd));
			have_pvd = 1;
		} else if (vd[0] == VD_SUPPLEMENTARY && !have_jol && joliet_escape(vd)) {
			memcpy(jol, vd, sizeof(jol));
			have_jol = 1;
		}
	}
	if (!have_pvd)
		return 0;
	probe_set_type(out, "iso9660");
	out->bytes = (uint64_t)get_le32(pvd + VD_SPACE_SIZE) * get_le16(pvd + VD_BLOCK_SIZE);
	if (!iso_date_uuid(out->uuid, sizeof(out->uuid), pvd + VD_MODIFIED))
		(void)iso_date_uuid(out->uuid, sizeof(out->uuid), pvd + VD_CREATED);
	if (have_jol) {
		uint8_t merged[2 * 48];
		size_t n = iso_merge(merged, sizeof(merged), jol + VD_VOLUME_ID, pvd + VD_VOLUME_ID);

		if (n)
			probe_label_utf16(out->label, sizeof(out->label), merged, n, 1);
		else
			probe_label_utf16(out->label, sizeof(out->label), jol + VD_VOLUME_ID, 32, 1);
	} else {
		probe_label_bytes(out->label, sizeof(out->label), pvd + VD_VOLUME_ID, 32);
	}
	return 1;
}
