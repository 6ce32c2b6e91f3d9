// SPDX-License-Identifier: MIT
/* /proc/mtd and eraseblock contents, parsed from buffers: no I/O here. */
#include "media/mtd.h"

#include <errno.h>
#include <string.h>

#include "lib/bytes.h"
#include "lib/lines.h"

/* The index a string of at most six digits names, or -1. */
static int index_of(const char *s)
{
	int v = 0, n = 0;

	for (; *s; s++, n++) {
		if (*s < '0' || *s > '9' || n >= 6)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return n ? v : -1;
}

static int hex_field(const char **p, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0;

	while (**p == ' ')
		(*p)++;
	for (;; (*p)++, n++) {
		char c = **p;
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			break;
		if (n >= 16)
			return -EINVAL;
		v = v << 4 | d;
	}
	*out = v;
	return n ? 0 : -EINVAL;
}

/* One line: mtdN: SIZE ERASESIZE "NAME" (hex numbers, the name quoted and
 * free to hold spaces; the kernel does not escape quotes inside it, so the
 * name ends at the last quote of the line). */
static int parse_line(const char *line, size_t len, struct mtd_part *out)
{
	char buf[MTD_NAME_MAX + 64];
	const char *p = buf, *q1, *q2;
	uint64_t v;
	int idx = 0, digits = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, line, len);
	buf[len] = '\0';
	if (strncmp(p, "mtd", 3) != 0)
		return -EINVAL;
	for (p += 3; *p >= '0' && *p <= '9'; p++, digits++) {
		if (digits >= 6)
			return -EINVAL;
		idx = idx * 10 + (*p - '0');
	}
	if (!digits || *p++ != ':')
		return -EINVAL;
	if (hex_field(&p, &out->size) < 0 || hex_field(&p, &v) < 0 || v > UINT32_MAX)
		return -EINVAL;
	out->erasesize = (uint32_t)v;
	q1 = strchr(p, '"');
	q2 = strrchr(p, '"');
	if (!q1 || q2 == q1 || (size_t)(q2 - q1 - 1) >= sizeof(out->name))
		return -EINVAL;
	for (const char *s = p; s < q1; s++)
		if (*s != ' ')
			return -EINVAL;
	memcpy(out->name, q1 + 1, (size_t)(q2 - q1 - 1));
	out->name[q2 - q1 - 1] = '\0';
	out->index = idx;
	return 0;
}

int mtd_find(const char *proc_mtd, const char *want, struct mtd_part *out)
{
	int by_index = index_of(want);
	const char *p = proc_mtd;
	struct line l;

	while (line_next(&p, &l)) {
		struct mtd_part part;

		/* the header line "dev:    size   erasesize  name" */
		if (!l.len || strncmp(l.s, "dev:", 4) == 0)
			continue;
		if (parse_line(l.s, l.len, &part) < 0)
			return -EINVAL;
		if (by_index >= 0 ? part.index == by_index : strcmp(part.name, want) == 0) {
			*out = part;
			return 0;
		}
	}
	return -ENOENT;
}

int flash_classify(const uint8_t *head, size_t len)
{
	size_t i;

	if (len < 12)
		return FLASH_DATA;
	for (i = 0; i < len && head[i] == 0xff; i++)
		;
	if (i == len)
		return FLASH_ERASED;
	/* jffs2 node: magic 0x1985 in the CPU's order, then the node type
	 * (cleanmarker 0x2003, dirent 0xe001, ...); the type's "accurate" bit
	 * is cleared in place when a node goes obsolete, so only its low bits
	 * are checked. */
	if ((get_le16(head) == 0x1985 && (get_le16(head + 2) & 0x1fff) <= 0x0f) ||
	    (get_be16(head) == 0x1985 && (get_be16(head + 2) & 0x1fff) <= 0x0f))
		return FLASH_JFFS2;
	if (memcmp(head, "UBI#", 4) == 0)
		return FLASH_UBI;
	/* a byte string, not a word: de ad c0 de on either byte order */
	if (memcmp(head, FLASH_MARKER_BYTES, 4) == 0)
		return FLASH_MARKER;
	return FLASH_DATA;
}

int flash_verdict(const unsigned counts[FLASH_KINDS])
{
	if (counts[FLASH_DATA] || (counts[FLASH_JFFS2] && counts[FLASH_UBI]))
		return FLASH_DATA;
	if (counts[FLASH_MARKER])
		return counts[FLASH_UBI] ? FLASH_DATA : FLASH_MARKER;
	if (counts[FLASH_JFFS2])
		return FLASH_JFFS2;
	if (counts[FLASH_UBI])
		return FLASH_UBI;
	return FLASH_ERASED;
}

const char *flash_content_name(int content)
{
	static const char names[][30] = { "erased", "jffs2", "UBI", "unknown data",
					  "OpenWrt's end-of-image marker" };

	return content >= 0 && content < (int)ARRAY_SIZE(names) ? names[content] : "?";
}
