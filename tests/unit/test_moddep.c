// SPDX-License-Identifier: MIT
/* Module load order from modules.dep and modules.softdep, as depmod writes
 * them for the Debian kernel. */
#include <errno.h>

#include "moddep.h"
#include "unit.h"

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

static struct moddep md;
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
	unsigned order[MODDEP_MAX], count = 0;

	CHECK_INT(load(), 0);
	CHECK_INT(moddep_resolve(&md, "ext4", order, &count, MODDEP_MAX), 0);
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
	unsigned order[MODDEP_MAX], count = 0;

	CHECK_INT(load(), 0);
	CHECK_INT(moddep_resolve(&md, "virtio_blk", order, &count, MODDEP_MAX), 0);
	CHECK_INT(moddep_resolve(&md, "virtio", order, &count, MODDEP_MAX), 0);
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
	unsigned order[MODDEP_MAX], count = 0;

	CHECK_INT(load(), 0);
	CHECK_INT(moddep_resolve(&md, "nosuch", order, &count, MODDEP_MAX), -ENOENT);
	CHECK_INT(moddep_resolve(&md, "dangling", order, &count, MODDEP_MAX), -ENOENT);
	count = 0;
	CHECK_INT(moddep_resolve(&md, "a", order, &count, MODDEP_MAX), -ELOOP);
	count = 0;
	CHECK_INT(moddep_resolve(&md, "ext4", order, &count, 2), -E2BIG);
}

static void malformed_index_lines_are_refused(void)
{
	char bad1[] = "no colon here\n";
	char bad2[] = ": starts with colon\n";
	char badsoft[] = "softdep x sideways: y\n";
	char ok[] = "a.ko:\n";

	CHECK_INT(moddep_parse(&md, bad1, NULL), -EINVAL);
	CHECK_INT(moddep_parse(&md, bad2, NULL), -EINVAL);
	CHECK_INT(moddep_parse(&md, ok, badsoft), -EINVAL);
}

static void a_full_table_is_reported(void)
{
	static char big[(MODDEP_MAX + 1) * 16];
	size_t off = 0;

	for (int i = 0; i <= MODDEP_MAX; i++)
		off += (size_t)snprintf(big + off, sizeof(big) - off, "m%d.ko:\n", i);
	CHECK_INT(moddep_parse(&md, big, NULL), -E2BIG);
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
	   { "a full table is reported", a_full_table_is_reported });
