// SPDX-License-Identifier: MIT
/* Module load order from modules.dep and modules.softdep, as depmod writes
 * them for the Debian kernel. */
#include <errno.h>

#include "kmod/moddep.h"
#include "lib/lines.h"
#include "unit.h"

#define POOL 700

static const char dep_text[] =
	"kernel/fs/ext4/ext4.ko: kernel/lib/crc16.ko kernel/fs/mbcache.ko kernel/fs/jbd2/jbd2.ko\n"
	"kernel/lib/crc16.ko:\n"
	"kernel/fs/mbcache.ko:\n"
	"kernel/fs/jbd2/jbd2.ko:\n"
	"kernel/crypto/crc32c_generic.ko:\n"
	"kernel/arch/x86/crypto/crc32c-intel.ko:\n"
	"kernel/drivers/virtio/virtio_ring.ko:\n"
	"kernel/drivers/virtio/virtio.ko: kernel/drivers/virtio/virtio_ring.ko\n"
	"kernel/drivers/block/virtio_blk.ko: kernel/drivers/virtio/virtio.ko kernel/drivers/virtio/virtio_ring.ko\n"
	"kernel/fs/overlayfs/overlay.ko:\n"
	"kernel/a.ko: kernel/b.ko\n"
	"kernel/b.ko: kernel/a.ko\n"
	"kernel/dangling.ko: kernel/missing.ko\n";

static const char softdep_text[] =
	"# Soft dependencies extracted from modules themselves.\n"
	"softdep ext4 pre: crc32c_generic crc32c_intel\n"
	"softdep jbd2 pre: crc32c_generic\n"
	"softdep virtio_blk pre: nosuchmodule post: overlay\n";

/* As PID 1 has them: tables as long as the files have lines, or shorter
 * ones where a test says so. */
static struct moddep_entry entries[POOL];
static struct softdep_entry softdeps[8];
static struct moddep md = { .e = entries, .cap = POOL, .s = softdeps, .scap = ARRAY_SIZE(softdeps) };
static char dep[sizeof(dep_text)], soft[sizeof(softdep_text)];

static int load(void)
{
	memcpy(dep, dep_text, sizeof(dep));
	memcpy(soft, softdep_text, sizeof(soft));
	return moddep_parse(&md, dep, soft);
}

static const char *name_at(const unsigned *order, unsigned i)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "%.*s", (int)md.e[order[i]].name_len, md.e[order[i]].name);
	return buf;
}

static int pos(const unsigned *order, unsigned count, const char *name)
{
	for (unsigned i = 0; i < count; i++)
		if (strcmp(name_at(order, i), name) == 0)
			return (int)i;
	return -1;
}

static void ext4_loads_after_its_dependencies_and_crc32c(void)
{
	unsigned order[POOL], count = 0;

	CHECK_INT(load(), 0);
	CHECK_INT(moddep_resolve(&md, "ext4", order, &count, POOL), 0);
	CHECK_INT(count, 6);
	CHECK_STR(name_at(order, count - 1), "ext4");
	CHECK(pos(order, count, "crc32c_generic") < pos(order, count, "jbd2"));
	CHECK(pos(order, count, "crc32c-intel") >= 0);
	CHECK(pos(order, count, "crc16") >= 0);
	CHECK(pos(order, count, "mbcache") >= 0);
	/* modprobe's order: the dependency list walked backwards */
	CHECK(pos(order, count, "jbd2") < pos(order, count, "mbcache"));
	CHECK(pos(order, count, "mbcache") < pos(order, count, "crc16"));
}

static void shared_dependencies_load_once(void)
{
	unsigned order[POOL], count = 0;

	CHECK_INT(load(), 0);
	CHECK_INT(moddep_resolve(&md, "virtio_blk", order, &count, POOL), 0);
	CHECK_INT(moddep_resolve(&md, "virtio", order, &count, POOL), 0);
	CHECK_INT(count, 4);
	CHECK_STR(name_at(order, 0), "virtio_ring");
	CHECK_STR(name_at(order, 1), "virtio");
	CHECK_STR(name_at(order, 2), "virtio_blk");
	CHECK_STR(name_at(order, 3), "overlay"); /* post: softdep */
}

static void dash_and_underscore_find_the_same_module(void)
{
	CHECK_INT(load(), 0);
	CHECK(moddep_find(&md, "crc32c_intel", 12) >= 0);
	CHECK(moddep_find(&md, "virtio-blk", 10) >= 0);
	CHECK_INT(moddep_find(&md, "virtio", 3), -1);
}

static void unknown_and_broken_entries_are_errors_not_crashes(void)
{
	unsigned order[POOL], count = 0;

	CHECK_INT(load(), 0);
	CHECK_INT(moddep_resolve(&md, "nosuch", order, &count, POOL), -ENOENT);
	CHECK_INT(moddep_resolve(&md, "dangling", order, &count, POOL), -ENOENT);
	count = 0;
	CHECK_INT(moddep_resolve(&md, "a", order, &count, POOL), -ELOOP);
	count = 0;
	CHECK_INT(moddep_resolve(&md, "ext4", order, &count, 2), -E2BIG);
}

static void malformed_index_lines_are_refused(void)
{
	char bad1[] = "no colon here\n";
	char bad2[] = ": starts with colon\n";
	char badsoft[] = "softdep \t\n"; /* no module named */
	char ok[] = "a.ko:\n";

	CHECK_INT(moddep_parse(&md, bad1, NULL), -EINVAL);
	CHECK_INT(moddep_parse(&md, bad2, NULL), -EINVAL);
	CHECK_INT(moddep_parse(&md, ok, badsoft), -EINVAL);
}

/* Words before pre: or post: are skipped as kmod skips them: depmod writes
 * "softdep cifs gcm" for a MODULE_SOFTDEP without a keyword (a generic
 * dracut initrd carries cifs), and the rest of the index must still load. */
static void softdep_words_without_a_keyword_are_skipped(void)
{
	char ok[] = "a.ko:\nb.ko:\n";
	char hints[] = "softdep a gcm ccm\nsoftdep b sideways: c pre: a\n";

	CHECK_INT(moddep_parse(&md, ok, hints), 0);
	CHECK_INT((int)md.ns, 2);
	CHECK_STR(md.s[0].pre, "");
	CHECK_STR(md.s[0].post, "");
	CHECK_STR(md.s[1].pre, "a");
}

/* A 634-module pool versus a table of the old fixed 512: the first 512
 * are kept and resolve, the 122 others are counted for the boot to say so. */
static void a_full_table_keeps_what_fits_and_counts_the_rest(void)
{
	static char big[634 * 24], hints[] = "softdep m1 pre: m600\nsoftdep m3 pre: m4\n";
	unsigned order[POOL], count = 0;
	size_t off = 0;
	int rc;

	off += (size_t)snprintf(big, sizeof(big), "m0.ko:\n");
	for (int i = 1; i < 634; i++)
		off += (size_t)snprintf(big + off, sizeof(big) - off, "m%d.ko: m%d.ko\n", i, i - 1);
	md.cap = 512;
	md.scap = 1;
	rc = moddep_parse(&md, big, hints);
	md.cap = POOL;
	md.scap = ARRAY_SIZE(softdeps);
	CHECK_INT(rc, -E2BIG);
	CHECK_INT(md.n, 512);
	CHECK_INT(md.dropped, 122);
	CHECK_INT(md.ns, 1);
	CHECK_INT(md.sdropped, 1);
	/* m1's softdep names a module past the table: a hint, skipped */
	CHECK_INT(moddep_resolve(&md, "m2", order, &count, POOL), 0);
	CHECK_INT(count, 3);
	CHECK_STR(name_at(order, 0), "m0");
	CHECK_INT(moddep_find(&md, "m512", 4), -1);
	/* the next parse starts over */
	CHECK_INT(load(), 0);
	CHECK_INT(md.dropped, 0);
	CHECK_INT(md.sdropped, 0);
}

/* A pool of 700 modules: the last line's module and its dependencies
 * resolve. */
static void the_last_of_700_modules_resolves(void)
{
	static char big[700 * 48];
	static unsigned order[POOL];
	unsigned count = 0;
	size_t off = 0;

	for (int i = 0; i < 699; i++)
		off += (size_t)snprintf(big + off, sizeof(big) - off, "kernel/drivers/m%d.ko:\n", i);
	snprintf(big + off, sizeof(big) - off,
		 "kernel/drivers/m699.ko: kernel/drivers/m698.ko kernel/drivers/m0.ko\n");
	CHECK_INT(lines_count(big), POOL);
	CHECK_INT(moddep_parse(&md, big, NULL), 0);
	CHECK_INT(md.n, POOL);
	CHECK_INT(moddep_resolve(&md, "m699", order, &count, md.n), 0);
	CHECK_INT(count, 3);
	CHECK_STR(name_at(order, 0), "m0");
	CHECK_STR(name_at(order, 1), "m698");
	CHECK_STR(name_at(order, 2), "m699");
}

/* Every row of the need table, and what is needed at every boot. */
static void listed_modules_wait_for_what_they_serve(void)
{
	CHECK_INT(moddep_need("kernel/fs/ext4/ext4.ko"), NEED_MOUNT);
	CHECK_INT(moddep_need("kernel/fs/overlayfs/overlay.ko.xz"), NEED_MOUNT);
	CHECK_INT(moddep_need("kernel/drivers/block/loop.ko"), NEED_LOOP);
	CHECK_INT(moddep_need("kernel/drivers/mtd/devices/block2mtd.ko"), NEED_FLASH);
	CHECK_INT(moddep_need("kernel/drivers/mtd/ubi/ubi.ko"), NEED_FLASH);
	CHECK_INT(moddep_need("kernel/crypto/zstd.ko"), NEED_FLASH);
	/* the network's: nbd and every NIC, matched by modalias only then */
	CHECK_INT(moddep_need("kernel/drivers/block/nbd.ko.xz"), NEED_NET);
	CHECK_INT(moddep_need("kernel/drivers/net/ethernet/intel/e1000/e1000.ko"), NEED_NET);
	CHECK_INT(moddep_need("kernel/drivers/net/usb/r8152.ko"), NEED_NET);
	CHECK_INT(moddep_need("kernel/drivers/block/nbdx.ko"), NEED_BOOT);
	/* the boot's own: drivers, libraries, look-alike names */
	CHECK_INT(moddep_need("kernel/drivers/block/virtio_blk.ko"), NEED_BOOT);
	CHECK_INT(moddep_need("kernel/drivers/block/loophole.ko"), NEED_BOOT);
	CHECK_INT(moddep_need("kernel/lib/zstd/zstd_compress.ko"), NEED_BOOT);
	CHECK_INT(moddep_need("kernel/crypto/crc32c_generic.ko"), NEED_BOOT);
	CHECK_INT(moddep_need("fs/ext4.ko"), NEED_BOOT);
	CHECK_INT(moddep_need(""), NEED_BOOT);
}

UNIT_SUITE(moddep,
	   { "listed modules wait for what they serve", listed_modules_wait_for_what_they_serve },
	   { "ext4 loads after its dependencies and crc32c", ext4_loads_after_its_dependencies_and_crc32c },
	   { "shared dependencies load once", shared_dependencies_load_once },
	   { "- and _ find the same module", dash_and_underscore_find_the_same_module },
	   { "unknown and broken entries are errors, not crashes", unknown_and_broken_entries_are_errors_not_crashes },
	   { "malformed index lines are refused", malformed_index_lines_are_refused },
	   { "softdep words without a keyword are skipped", softdep_words_without_a_keyword_are_skipped },
	   { "a full table keeps what fits and counts the rest",
	     a_full_table_keeps_what_fits_and_counts_the_rest },
	   { "the last of 700 modules resolves", the_last_of_700_modules_resolves });
