// SPDX-License-Identifier: MIT
/* Raw flash parsers on buffers: /proc/mtd, eraseblock contents, UBI sysfs
 * names and numbers, and blank detection. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "branch/blank.h"
#include "media/mtd.h"
#include "media/ubi.h"
#include "unit.h"

static const char proc_mtd[] =
	"dev:    size   erasesize  name\n"
	"mtd0: 00040000 00010000 \"u-boot\"\n"
	"mtd1: 00e00000 00010000 \"firmware\"\n"
	"mtd2: 00300000 00010000 \"rootfs\"\n"
	"mtd3: 00b00000 00020000 \"rootfs_data\"\n"
	"mtd10: 00800000 00020000 \"block2mtd: /dev/vdb\"\n";

static void proc_mtd_by_name_and_index(void)
{
	struct mtd_part p;

	CHECK_INT(mtd_find(proc_mtd, "rootfs_data", &p), 0);
	CHECK_INT(p.index, 3);
	CHECK_INT(p.size, 0xb00000);
	CHECK_INT(p.erasesize, 0x20000);
	CHECK_STR(p.name, "rootfs_data");
	CHECK_INT(mtd_find(proc_mtd, "rootfs", &p), 0); /* not a prefix match */
	CHECK_INT(p.index, 2);
	CHECK_INT(mtd_find(proc_mtd, "10", &p), 0);
	CHECK_STR(p.name, "block2mtd: /dev/vdb");
	CHECK_INT(mtd_find(proc_mtd, "block2mtd: /dev/vdb", &p), 0);
	CHECK_INT(p.index, 10);
	CHECK_INT(mtd_find(proc_mtd, "1", &p), 0);
	CHECK_STR(p.name, "firmware");
	CHECK_INT(mtd_find(proc_mtd, "4", &p), -ENOENT);
	CHECK_INT(mtd_find(proc_mtd, "data", &p), -ENOENT);
	CHECK_INT(mtd_find("dev:    size   erasesize  name\n", "rootfs_data", &p), -ENOENT);
	CHECK_INT(mtd_find("", "0", &p), -ENOENT);
}

static void proc_mtd_malformed_lines(void)
{
	static const char *const bad[] = {
		"mtd0 00040000 00010000 \"x\"\n",        /* no colon */
		"mtd: 00040000 00010000 \"x\"\n",        /* no index */
		"mtd0: zz 00010000 \"x\"\n",             /* not hex */
		"mtd0: 00040000 00010000 x\n",           /* unquoted */
		"mtd0: 00040000 00010000 \"x\n",         /* one quote */
		"mtd0: 00040000\n",                      /* short */
		"mtd0: 00040000 10000000000 \"x\"\n",    /* erasesize > 32 bit */
		"mtd0: 00040000 00010000 junk \"x\"\n",  /* text before the name */
		"mtd9999999: 00040000 00010000 \"x\"\n", /* absurd index */
	};
	struct mtd_part p;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT(mtd_find(bad[i], "x", &p), -EINVAL);
}

static void eraseblocks_are_classified(void)
{
	uint8_t b[64];
	unsigned counts[FLASH_KINDS] = { 0 };

	memset(b, 0xff, sizeof(b));
	CHECK_INT(flash_classify(b, sizeof(b)), FLASH_ERASED);
	b[63] = 0xfe;
	CHECK_INT(flash_classify(b, sizeof(b)), FLASH_DATA);
	memset(b, 0xff, sizeof(b));
	b[0] = 0x85, b[1] = 0x19, b[2] = 0x03, b[3] = 0x20; /* LE cleanmarker */
	CHECK_INT(flash_classify(b, sizeof(b)), FLASH_JFFS2);
	b[0] = 0x19, b[1] = 0x85, b[2] = 0xe0, b[3] = 0x01; /* BE dirent */
	CHECK_INT(flash_classify(b, sizeof(b)), FLASH_JFFS2);
	b[2] = 0xc0; /* obsolete dirent: the accurate bit cleared in place */
	CHECK_INT(flash_classify(b, sizeof(b)), FLASH_JFFS2);
	b[2] = 0x00, b[3] = 0x77; /* not a node type */
	CHECK_INT(flash_classify(b, sizeof(b)), FLASH_DATA);
	memcpy(b, "UBI#", 4);
	CHECK_INT(flash_classify(b, sizeof(b)), FLASH_UBI);
	memset(b, 0, sizeof(b));
	CHECK_INT(flash_classify(b, sizeof(b)), FLASH_DATA); /* zeros are not erased */
	CHECK_INT(flash_classify(b, 4), FLASH_DATA);          /* too short to tell */

	CHECK_INT(flash_verdict(counts), FLASH_ERASED); /* no block at all */
	counts[FLASH_ERASED] = 60;
	CHECK_INT(flash_verdict(counts), FLASH_ERASED);
	counts[FLASH_JFFS2] = 4;
	CHECK_INT(flash_verdict(counts), FLASH_JFFS2);
	counts[FLASH_UBI] = 1;
	CHECK_INT(flash_verdict(counts), FLASH_DATA); /* both: not ours to judge */
	counts[FLASH_JFFS2] = 0;
	CHECK_INT(flash_verdict(counts), FLASH_UBI);
	counts[FLASH_DATA] = 1;
	CHECK_INT(flash_verdict(counts), FLASH_DATA);
	CHECK_STR(flash_content_name(FLASH_ERASED), "erased");
	CHECK_STR(flash_content_name(FLASH_MARKER), "OpenWrt's end-of-image marker");
	CHECK_STR(flash_content_name(99), "?");
}

/* What OpenWrt's image builder leaves at the head of rootfs_data: the
 * marker, then the rest of the eraseblock as the flash was. */
static void openwrt_marker_heads(void)
{
	uint8_t b[64];

	memset(b, 0xff, sizeof(b));
	memcpy(b, "\xde\xad\xc0\xde", 4); /* a fresh flash: 0xFF behind it */
	CHECK_INT(flash_classify(b, sizeof(b)), FLASH_MARKER);
	CHECK_INT(flash_classify(b, 16), FLASH_MARKER); /* what a scan reads of a block */
	for (size_t i = 4; i < sizeof(b); i++)
		b[i] = (uint8_t)(i * 37); /* leftovers of an earlier firmware */
	CHECK_INT(flash_classify(b, sizeof(b)), FLASH_MARKER);
	b[4] = 0x85, b[5] = 0x19, b[6] = 0x03, b[7] = 0x20; /* a jffs2 node right behind it */
	CHECK_INT(flash_classify(b, sizeof(b)), FLASH_MARKER);
	/* fstools compares the big-endian word on every CPU: the bytes are
	 * de ad c0 de on either byte order, and no other order is the marker */
	memcpy(b, "\xde\xc0\xad\xde", 4);
	CHECK_INT(flash_classify(b, sizeof(b)), FLASH_DATA);
	memcpy(b, "\xad\xde\xde\xc0", 4);
	CHECK_INT(flash_classify(b, sizeof(b)), FLASH_DATA);
	memcpy(b, "\xde\xad\xc0\xdf", 4);
	CHECK_INT(flash_classify(b, sizeof(b)), FLASH_DATA);
	memset(b, 0xff, sizeof(b));
	b[1] = 0xde, b[2] = 0xad, b[3] = 0xc0, b[4] = 0xde; /* not at the head */
	CHECK_INT(flash_classify(b, sizeof(b)), FLASH_DATA);
	memcpy(b, "\xde\xad\xc0\xde", 4);
	CHECK_INT(flash_classify(b, 11), FLASH_DATA); /* too short to tell */
}

/* A partition's verdict: the scan stops at the first marker, so its counts
 * are of the blocks before it, and the marker's own. */
static void openwrt_marker_verdicts(void)
{
	unsigned counts[FLASH_KINDS] = { 0 };

	counts[FLASH_MARKER] = 1; /* at offset 0: a freshly flashed rootfs_data */
	CHECK_INT(flash_verdict(counts), FLASH_MARKER);
	counts[FLASH_ERASED] = 3; /* erased blocks before it: still blank */
	CHECK_INT(flash_verdict(counts), FLASH_MARKER);
	/* jffs2 before it: what sysupgrade's "mtd -j" leaves (the saved
	 * settings as a jffs2 file, the marker in the next block), which
	 * OpenWrt's kernel mounts, erasing from the marker on */
	counts[FLASH_JFFS2] = 2;
	CHECK_INT(flash_verdict(counts), FLASH_MARKER);
	counts[FLASH_UBI] = 1; /* UBI is never erased for a marker */
	CHECK_INT(flash_verdict(counts), FLASH_DATA);
	counts[FLASH_UBI] = 0;
	counts[FLASH_DATA] = 1; /* foreign data before it: not ours to erase */
	CHECK_INT(flash_verdict(counts), FLASH_DATA);
	counts[FLASH_DATA] = 0;
	counts[FLASH_MARKER] = 0; /* the erase done: the jffs2 before it is what is left */
	CHECK_INT(flash_verdict(counts), FLASH_JFFS2);
}

static void ubi_sysfs_names_and_numbers(void)
{
	char name[16];
	uint64_t v;
	int dev = -1, vol = -1;

	CHECK_INT(ubi_entry("ubi0", &dev, &vol), UBI_DEVICE);
	CHECK_INT(dev, 0);
	CHECK_INT(ubi_entry("ubi12_3", &dev, &vol), UBI_VOLUME);
	CHECK_INT(dev, 12);
	CHECK_INT(vol, 3);
	CHECK_INT(ubi_entry("ubi_ctrl", &dev, &vol), UBI_NOT_OURS);
	CHECK_INT(ubi_entry("ubi", &dev, &vol), UBI_NOT_OURS);
	CHECK_INT(ubi_entry("ubi0_", &dev, &vol), UBI_NOT_OURS);
	CHECK_INT(ubi_entry("ubi0_1x", &dev, &vol), UBI_NOT_OURS);
	CHECK_INT(ubi_entry("ubi1234567", &dev, &vol), UBI_NOT_OURS);
	CHECK_INT(ubi_entry("mtd0", &dev, &vol), UBI_NOT_OURS);

	CHECK_INT(ubi_parse_u64("130944\n", &v), 0);
	CHECK_INT(v, 130944);
	CHECK_INT(ubi_parse_u64("7", &v), 0);
	CHECK_INT(ubi_parse_u64("", &v), -EINVAL);
	CHECK_INT(ubi_parse_u64("12 \n", &v), -EINVAL);
	CHECK_INT(ubi_parse_u64("-1\n", &v), -EINVAL);
	CHECK_INT(ubi_parse_u64("99999999999999999999\n", &v), -EINVAL);

	CHECK_INT(ubi_parse_name("rootfs_data\n", name, sizeof(name)), 0);
	CHECK_STR(name, "rootfs_data");
	CHECK_INT(ubi_parse_name("\n", name, sizeof(name)), -EINVAL);
	CHECK_INT(ubi_parse_name("a\nb\n", name, sizeof(name)), -EINVAL);
	CHECK_INT(ubi_parse_name("with\ttab\n", name, sizeof(name)), -EINVAL);
	CHECK_INT(ubi_parse_name("sixteen-chars-xx\n", name, sizeof(name)), -EINVAL);

	CHECK_INT(ubi_free_bytes(60, 130944), 60 * 130944);
	CHECK_INT(ubi_free_bytes(0, 130944), 0);
	CHECK_INT(ubi_free_bytes(UINT64_MAX / 2, 4), 0);
}

static void ubi_volume_contents(void)
{
	static uint8_t head[64];

	/* an ubifs superblock node starts with the node magic, little-endian */
	memset(head, 0, sizeof(head));
	head[0] = 0x31, head[1] = 0x18, head[2] = 0x10, head[3] = 0x06;
	CHECK_INT(ubi_holds(head, sizeof(head), ""), UBI_HOLDS_UBIFS);
	CHECK_INT(ubi_holds(head, sizeof(head), NULL), UBI_HOLDS_UBIFS);
	head[0] = 0x06, head[3] = 0x31; /* big-endian: not ubifs */
	CHECK_INT(ubi_holds(head, sizeof(head), ""), UBI_HOLDS_UNKNOWN);
	/* a new volume reads as erased flash: ubifs formats it */
	memset(head, 0xff, sizeof(head));
	CHECK_INT(ubi_holds(head, sizeof(head), ""), UBI_HOLDS_UBIFS);
	head[63] = 0;
	CHECK_INT(ubi_holds(head, sizeof(head), ""), UBI_HOLDS_UNKNOWN);
	/* what the probe table names goes through ubiblock */
	memcpy(head, "hsqs", 4);
	CHECK_INT(ubi_holds(head, sizeof(head), "squashfs"), UBI_HOLDS_BLOCKFS);
	CHECK_INT(ubi_holds(head, sizeof(head), "erofs"), UBI_HOLDS_BLOCKFS);
	CHECK_INT(ubi_holds(head, 0, ""), UBI_HOLDS_UNKNOWN);
	CHECK_INT(ubi_holds(head, 3, ""), UBI_HOLDS_UNKNOWN);
}

static void blank_media(void)
{
	static uint8_t buf[4096];

	memset(buf, 0, sizeof(buf));
	CHECK_INT(blank_bytes(buf, sizeof(buf)), 1);
	buf[4095] = 1;
	CHECK_INT(blank_bytes(buf, sizeof(buf)), 0); /* one byte of data */
	memset(buf, 0xff, sizeof(buf));
	CHECK_INT(blank_bytes(buf, sizeof(buf)), 1);
	buf[0] = 0;
	CHECK_INT(blank_bytes(buf, sizeof(buf)), 0); /* zeros and 0xFF mixed */
	memset(buf, 0xe5, sizeof(buf));
	CHECK_INT(blank_bytes(buf, sizeof(buf)), 0); /* uniform, but not blank */
	CHECK_INT(blank_bytes(buf, 0), 0);
}

static void format_marks(void)
{
	static uint8_t buf[FORMAT_MARK_BLOCK];

	memset(buf, 0, sizeof(buf));
	CHECK_INT(format_mark_is(buf, sizeof(buf)), 0);
	memcpy(buf, FORMAT_MARK, sizeof(FORMAT_MARK) - 1);
	CHECK_INT(format_mark_is(buf, sizeof(buf)), 1);
	CHECK_INT(format_mark_is(buf, sizeof(FORMAT_MARK) - 2), 0); /* cut short */
	buf[3] ^= 0x20;
	CHECK_INT(format_mark_is(buf, sizeof(buf)), 0);
}

UNIT_SUITE(flash,
	   { "/proc/mtd finds partitions by name and by index", proc_mtd_by_name_and_index },
	   { "/proc/mtd refuses malformed lines", proc_mtd_malformed_lines },
	   { "eraseblocks: erased, jffs2, UBI or data", eraseblocks_are_classified },
	   { "OpenWrt's end-of-image marker at a block's head, 0xFF or leftovers behind it", openwrt_marker_heads },
	   { "a partition up to OpenWrt's marker: blank, or jffs2 saved before it", openwrt_marker_verdicts },
	   { "UBI sysfs names and numbers", ubi_sysfs_names_and_numbers },
	   { "UBI volumes: ubifs, empty, a block file system or unknown", ubi_volume_contents },
	   { "blank detection: all 0x00 or all 0xFF only", blank_media },
	   { "the mark of a format in progress", format_marks });
