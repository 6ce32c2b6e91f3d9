// SPDX-License-Identifier: MIT
/* The status record as a struct: PID 1's writer spells it as it always has,
 * `unionroot status`'s parser reads back what the writer wrote, skips keys
 * it does not know and names the line it cannot read. */
#include <errno.h>
#include <string.h>

#include "lib/runstate.h"
#include "unit.h"

/* A failsafe boot from a verified stick with one message: every kind of line. */
static const char golden[] =
	"backend=overlay\n"
	"lower1=LABEL=LIVE:/live/fs.squashfs /dev/loop0 squashfs /run/unionroot/lower/0\n"
	"lower1_image=/dev/sr0:/live/fs.squashfs (direct I/O)\n"
	"lower1_verity=verified sha256 root hash 0123\n"
	"lower1_driver=sr_mod\n"
	"lower2=/dev/vdb /dev/vdb ext4 /run/unionroot/lower/1\n"
	"lower2_verity=off (union.verity not set)\n"
	"upper=LABEL=data /dev/vda1 ext4 /run/unionroot/rw\n"
	"upper_driver=virtio_blk\n"
	"upper_state=persistent on /dev/vda1 (ext4)\n"
	"drivers_left=none\n"
	"root_flags=nodev,nosuid\n"
	"warnfull=90\n"
	"overlay_options=lowerdir=/run/unionroot/lower/0,redirect_dir=off\n"
	"reset=applied\n"
	"reset_why=requested by 'unionroot reset'\n"
	"reset_kept=2\n"
	"reset_refused=0\n"
	"failsafe=3 boots without boot-ok\n"
	"saved=/run/unionroot/saved\n"
	"maxfails=3\n"
	"boots_at_boot=4\n"
	"lower1_id=size=1,mkfs=2,hash=0123456789abcdef\n"
	"lower2_id=size=3,mkfs=4,hash=fedcba9876543210\n"
	"lower_changed=yes\n"
	"upgrade=kept the writable branch\n"
	"pid1_ms=812 modules=120 devices=300 mounts=200\n"
	"fsck_ms=45\n"
	"message=unionroot: a\\nb \\\\ \\x01\n"
	"handoff_ms=12 rss_kib=640 memfree_before_kib=100000\n";

static void fill(struct runstate *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->backend = "overlay";
	rs->nlower = 2;
	rs->lower[0] = (struct runstate_lower){ .spec = "LABEL=LIVE:/live/fs.squashfs", .dev = "/dev/loop0",
		.type = "squashfs", .image = "/dev/sr0:/live/fs.squashfs (direct I/O)",
		.verity = "verified sha256 root hash 0123", .driver = "sr_mod" };
	rs->lower[1] = (struct runstate_lower){ .spec = "/dev/vdb", .dev = "/dev/vdb", .type = "ext4",
		.verity = "off (union.verity not set)" };
	rs->upper_kind = RUNSTATE_UPPER_DEVICE;
	rs->upper_spec = "LABEL=data";
	rs->upper_dev = "/dev/vda1";
	rs->upper_type = "ext4";
	rs->upper_driver = "virtio_blk";
	rs->upper_state = "persistent on /dev/vda1 (ext4)";
	rs->drivers_left = "none";
	rs->root_flags = "nodev,nosuid";
	rs->warnfull = 90;
	rs->overlay_options = "lowerdir=/run/unionroot/lower/0,redirect_dir=off";
	rs->reset_applied = 1;
	rs->reset_why = "requested by 'unionroot reset'";
	rs->reset_kept = 2;
	rs->failsafe = "3 boots without boot-ok";
	rs->saved = 1;
	rs->maxfails = 3;
	rs->boots_at_boot = 4;
	rs->nlower_id = 2;
	rs->lower_id[0] = "size=1,mkfs=2,hash=0123456789abcdef";
	rs->lower_id[1] = "size=3,mkfs=4,hash=fedcba9876543210";
	rs->lower_changed = 1;
	rs->upgrade = "kept the writable branch";
	rs->pid1_ms = 812;
	rs->modules_ms = 120;
	rs->devices_ms = 300;
	rs->mounts_ms = 200;
	rs->fsck_ms = 45;
	rs->nmessage = 1;
	rs->message[0] = "unionroot: a\nb \\ \x01";
	rs->handoff = 1;
	rs->handoff_ms = 12;
	rs->rss_kib = 640;
	rs->memfree_before_kib = 100000;
}

static struct runstate want, got;
static char text[RECORD_MAX + RECORD_TAIL_MAX];

static void the_writer_spells_the_record_as_ever(void)
{
	struct sbuf sb;

	fill(&want);
	sbuf_init(&sb, text, sizeof(text));
	CHECK_INT(runstate_write(&want, &sb), 0);
	CHECK_STR(text, golden);
}

static void the_parser_reads_back_what_the_writer_wrote(void)
{
	char why[160], twice[sizeof(text)];
	struct sbuf sb;

	fill(&want);
	CHECK_INT(runstate_parse(golden, &got, why, sizeof(why)), 0);
	CHECK_STR(why, "");
	CHECK_INT(got.nlower, 2);
	CHECK_STR(got.lower[0].spec, want.lower[0].spec);
	CHECK_STR(got.lower[0].dev, "/dev/loop0");
	CHECK_STR(got.lower[0].type, "squashfs");
	CHECK_STR(got.lower[1].image, "");
	CHECK_STR(got.lower[1].driver, "");
	CHECK_INT(got.upper_kind, RUNSTATE_UPPER_DEVICE);
	CHECK_STR(got.upper_spec, "LABEL=data");
	CHECK_STR(got.upper_image, "");
	CHECK_INT(got.warnfull, 90);
	CHECK_INT(got.reset_applied, 1);
	CHECK_INT(got.reset_kept, 2);
	CHECK_INT(got.saved, 1);
	CHECK_INT(got.nlower_id, 2);
	CHECK_STR(got.lower_id[1], want.lower_id[1]);
	CHECK_INT(got.lower_changed, 1);
	CHECK(got.pid1_ms == 812 && got.modules_ms == 120 && got.devices_ms == 300 && got.mounts_ms == 200);
	CHECK(got.fsck_ms == 45);
	CHECK_INT(got.nmessage, 1);
	CHECK_STR(got.message[0], want.message[0]);
	CHECK(got.handoff && got.handoff_ms == 12 && got.rss_kib == 640 && got.memfree_before_kib == 100000);
	sbuf_init(&sb, twice, sizeof(twice));
	CHECK_INT(runstate_write(&got, &sb), 0);
	CHECK_STR(twice, golden);
}

static void tmpfs_and_none_upper_and_the_smallest_record(void)
{
	static const char tmpfs[] = "upper=tmpfs - tmpfs /run/unionroot/rw\n";
	char why[160];

	CHECK_INT(runstate_parse(tmpfs, &got, why, sizeof(why)), 0);
	CHECK_INT(got.upper_kind, RUNSTATE_UPPER_TMPFS);
	CHECK_STR(got.upper_dev, "");
	CHECK_STR(got.backend, "");
	CHECK_INT(runstate_parse("upper=none\n", &got, why, sizeof(why)), 0);
	CHECK_INT(got.upper_kind, RUNSTATE_UPPER_NONE);
	CHECK_INT(runstate_parse("", &got, why, sizeof(why)), 0);
	CHECK_INT(got.nlower, 0);
	CHECK(!got.handoff);
}

static void keys_of_a_later_version_are_skipped(void)
{
	char why[160];

	CHECK_INT(runstate_parse("backend=overlay\nlower_fancy=1\nlower0=x\nzram=on\nlower1_x=2\n"
				 "upper_state=volatile\n",
				 &got, why, sizeof(why)),
		  0);
	CHECK_STR(got.backend, "overlay");
	CHECK_STR(got.upper_state, "volatile");
	CHECK_INT(got.nlower, 0);
}

static void a_malformed_line_is_named(void)
{
	static const struct {
		const char *text, *why;
	} rows[] = {
		{ "backend=overlay\nno equals sign\n", "line 2: 'no equals sign' is no KEY=VALUE line" },
		{ "backend=overlay\nwarnfull=ninety\n", "line 2: 'warnfull' has a value it cannot have" },
		{ "warnfull=2147483648\n", "line 1: 'warnfull' has a value it cannot have" },
		{ "warnfull=-90\n", "" },
		{ "reset_kept=4294967296\n", "line 1: 'reset_kept' has a value it cannot have" },
		{ "lower_changed=maybe\n", "line 1: 'lower_changed' has a value it cannot have" },
		{ "backend=overlay\nbackend=copy-up\n", "line 2: 'backend' twice" },
		{ "lower2=/dev/a /dev/a ext4 /run/unionroot/lower/1\n", "line 1: 'lower2' out of order" },
		{ "lower1=/dev/a ext4 /run/unionroot/lower/0\n", "line 1: 'lower1' is not SPEC DEVICE TYPE PATH" },
		{ "lower1_image=/dev/sr0:/x\n", "line 1: 'lower1_image' comes before its layer's line" },
		{ "lower9=a b c /d\n", "line 1: 'lower9' names more layers than 8" },
		{ "upper=LABEL=x /dev/a ext4\n", "line 1: 'upper' has a value it cannot have" },
		{ "pid1_ms=1 modules=2 devices=3\n", "line 1: 'pid1_ms' has a value it cannot have" },
		{ "handoff_ms=1 rss_kib=2 memfree_before_kib=3 x=4\n", "line 1: 'handoff_ms' has a value it cannot have" },
		{ "backend=overlay\nupper_state=persis", "line 2: 'upper_state=persis' has no newline at its end: the record is cut" },
		{ "\x01\x02\n", "line 1: '?\?' is no KEY=VALUE line" },
	};
	char why[160];

	for (unsigned i = 0; i < ARRAY_SIZE(rows); i++) {
		CHECK_INT(runstate_parse(rows[i].text, &got, why, sizeof(why)), rows[i].why[0] ? -EINVAL : 0);
		CHECK_STR(why, rows[i].why);
	}
	CHECK_INT(got.warnfull, 0); /* the last row was refused: nothing carried over */
	CHECK_INT(runstate_parse("warnfull=-90\n", &got, why, sizeof(why)), 0);
	CHECK_INT(got.warnfull, -90);
}

static void values_are_escaped_and_read_back(void)
{
	char why[160];
	struct sbuf sb;

	memset(&want, 0, sizeof(want));
	want.nlower = 1;
	want.lower[0] = (struct runstate_lower){ .spec = "LABEL=a b\nbackend=evil\\x41", .dev = "/dev/sda",
		.type = "vfat", .verity = "\x7f\xff" };
	want.upper_state = "volatile: \"quoted\"\ttab";
	sbuf_init(&sb, text, sizeof(text));
	CHECK_INT(runstate_write(&want, &sb), 0);
	CHECK(strstr(text, "lower1=LABEL=a b\\nbackend=evil\\\\x41 /dev/sda vfat /run/unionroot/lower/0\n") != NULL);
	CHECK(strstr(text, "lower1_verity=\\x7f\xff\n") != NULL);
	CHECK(strstr(text, "upper_state=volatile: \"quoted\"\\x09tab\n") != NULL);
	CHECK_INT(runstate_parse(text, &got, why, sizeof(why)), 0);
	CHECK_STR(got.lower[0].spec, want.lower[0].spec);
	CHECK_STR(got.lower[0].verity, want.lower[0].verity);
	CHECK_STR(got.upper_state, want.upper_state);
	CHECK_STR(got.backend, "");
}

UNIT_SUITE(runstate,
	   { "the writer spells the status record byte for byte as before", the_writer_spells_the_record_as_ever },
	   { "the parser reads back what the writer wrote", the_parser_reads_back_what_the_writer_wrote },
	   { "a tmpfs or no writable branch, and the smallest record", tmpfs_and_none_upper_and_the_smallest_record },
	   { "keys of a later version are skipped", keys_of_a_later_version_are_skipped },
	   { "a malformed line is refused and named", a_malformed_line_is_named },
	   { "values are escaped and read back as written", values_are_escaped_and_read_back });
