// SPDX-License-Identifier: MIT
/* dm-verity's pure parts: the superblock `veritysetup format` wrote (bytes
 * below from cryptsetup 2.6.1), union.verity= entries, the tree's start and
 * the kernel's table line. */
#include <errno.h>
#include <string.h>

#include "conf/config.h"
#include "lib/sbuf.h"
#include "media/verity.h"
#include "plan/plan.h"
#include "unit.h"

#define ROOT "7c8e0923c8e918b78a77d140a316800aafa5220208243a3bf4c03029b3b868d6"
#define SALT "0011223344556677889900aabbccddeeff0011223344556677889900aabbccdd"

/* `veritysetup format data hash --salt=SALT --uuid=12345678-1234-...` over
 * 64 KiB; the rest of the 512 bytes is zero. */
static const unsigned char real_sb[120] = {
	0x76, 0x65, 0x72, 0x69, 0x74, 0x79, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x12, 0x34, 0x56, 0x78, 0x12, 0x34, 0x12, 0x34,
	0x12, 0x34, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0x73, 0x68, 0x61, 0x32,
	0x35, 0x36, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00,
	0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
	0x88, 0x99, 0x00, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x11, 0x22,
	0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0x00, 0xaa, 0xbb, 0xcc, 0xdd
};

static void sb_of(uint8_t *sb)
{
	memset(sb, 0, VERITY_SB_SIZE);
	memcpy(sb, real_sb, sizeof(real_sb));
}

static void superblock_from_veritysetup_parses(void)
{
	uint8_t sb[VERITY_SB_SIZE];
	struct verity_geom g;
	const char *why;

	sb_of(sb);
	CHECK_INT(verity_sb_parse(sb, sizeof(sb), &g, &why), 0);
	CHECK_INT(g.hash_type, 1);
	CHECK_STR(g.alg, "sha256");
	CHECK_INT(g.data_bs, 4096);
	CHECK_INT(g.hash_bs, 4096);
	CHECK_INT(g.data_blocks, 16);
	CHECK_INT(g.salt_len, 32);
	CHECK_INT(g.salt[0], 0x00);
	CHECK_INT(g.salt[31], 0xdd);
}

static void bad_superblocks_are_refused(void)
{
	uint8_t sb[VERITY_SB_SIZE];
	struct verity_geom g;
	const char *why;

	sb_of(sb);
	CHECK_INT(verity_sb_parse(sb, 100, &g, &why), -ENOENT);   /* short */
	sb[6] = 'x';
	CHECK_INT(verity_sb_parse(sb, sizeof(sb), &g, &why), -ENOENT);
	sb_of(sb);
	sb[8] = 2; /* version */
	CHECK_INT(verity_sb_parse(sb, sizeof(sb), &g, &why), -EINVAL);
	sb_of(sb);
	sb[66] = 0x30; /* data block size 0x301000: not a power of two */
	CHECK_INT(verity_sb_parse(sb, sizeof(sb), &g, &why), -EINVAL);
	CHECK(strstr(why, "block size") != NULL);
	sb_of(sb);
	sb[81] = 0x02; /* salt size 0x220 > 256 */
	CHECK_INT(verity_sb_parse(sb, sizeof(sb), &g, &why), -EINVAL);
	sb_of(sb);
	memset(sb + 32, 'a', 32); /* unterminated algorithm */
	CHECK_INT(verity_sb_parse(sb, sizeof(sb), &g, &why), -EINVAL);
	sb_of(sb);
	memcpy(sb + 32, "sha 56", 6);
	CHECK_INT(verity_sb_parse(sb, sizeof(sb), &g, &why), -EINVAL);
	sb_of(sb);
	memset(sb + 72, 0, 8); /* no data blocks */
	CHECK_INT(verity_sb_parse(sb, sizeof(sb), &g, &why), -EINVAL);
}

static void the_tree_starts_after_the_superblock(void)
{
	CHECK_INT(verity_hash_start(0, 0, 4096), 1);
	CHECK_INT(verity_hash_start(8192 * 4096ull, 0, 4096), 8193);
	CHECK_INT(verity_hash_start(4096, 1, 4096), 1);
	CHECK_INT(verity_hash_start(1024, 0, 1024), 2);
}

static void appended_tree_follows_the_squashfs(void)
{
	uint8_t head[4096] = { 'h', 's', 'q', 's' };

	head[40] = 0x01; /* bytes_used 0x1001 */
	head[41] = 0x10;
	CHECK_INT(verity_data_end(head, sizeof(head)), 8192);
	head[40] = 0;
	CHECK_INT(verity_data_end(head, sizeof(head)), 4096);
	head[0] = 'x';
	CHECK_INT(verity_data_end(head, sizeof(head)), 0);
}

static void table_line_is_what_the_kernel_reads(void)
{
	uint8_t sb[VERITY_SB_SIZE];
	struct verity_geom g;
	const char *why;
	char line[VERITY_TABLE_MAX];
	struct verity_table t = { "/dev/loop0", "/dev/loop0", ROOT, &g, 17, VERITY_EIO };

	sb_of(sb);
	CHECK_INT(verity_sb_parse(sb, sizeof(sb), &g, &why), 0);
	CHECK_INT(verity_table_format(&t, line, sizeof(line)), 0);
	CHECK_STR(line, "1 /dev/loop0 /dev/loop0 4096 4096 16 17 sha256 " ROOT " " SALT);
	t.onerror = VERITY_RESTART;
	CHECK_INT(verity_table_format(&t, line, sizeof(line)), 0);
	CHECK(strstr(line, SALT " 1 restart_on_corruption") != NULL);
	t.onerror = VERITY_PANIC;
	CHECK_INT(verity_table_format(&t, line, sizeof(line)), 0);
	CHECK(strstr(line, SALT " 1 panic_on_corruption") != NULL);
	g.salt_len = 0;
	CHECK_INT(verity_table_format(&t, line, sizeof(line)), 0);
	CHECK(strstr(line, ROOT " - 1 panic") != NULL);
	CHECK_INT(verity_table_format(&t, line, 40), -ENAMETOOLONG);
	t.data_dev = "/dev/a b";
	CHECK_INT(verity_table_format(&t, line, sizeof(line)), -EINVAL);
	t.data_dev = "/dev/loop0";
	t.root = "7C8E";
	CHECK_INT(verity_table_format(&t, line, sizeof(line)), -EINVAL);
	t.root = ROOT;
	t.onerror = 3;
	CHECK_INT(verity_table_format(&t, line, sizeof(line)), -EINVAL);
}

static void union_verity_entries_parse(void)
{
	struct verity_arg a[SPEC_LIST_MAX];
	char why[200];

	CHECK_INT(verity_args_parse(ROOT, a, SPEC_LIST_MAX, why, sizeof(why)), 1);
	CHECK_INT(a[0].layer, 1);
	CHECK_STR(a[0].root, ROOT);
	CHECK(a[0].offset == VERITY_OFFSET_AUTO);
	CHECK_STR(a[0].hashdev, "");
	CHECK_INT(verity_args_parse("2:ABCD:hash=/dev/vdc:offset=4096,1:" ROOT, a, SPEC_LIST_MAX,
				    why, sizeof(why)), 2);
	CHECK_INT(a[0].layer, 2);
	CHECK_STR(a[0].root, "abcd");
	CHECK_STR(a[0].hashdev, "/dev/vdc");
	CHECK_INT(a[0].offset, 4096);
	CHECK_INT(verity_args_parse("abcd:nosb:alg=sha1:bs=1024:salt=-:blocks=9:hash=/dev/vdc", a,
				    SPEC_LIST_MAX, why, sizeof(why)), 1);
	CHECK(a[0].nosb);
	CHECK_STR(a[0].geom.alg, "sha1");
	CHECK_INT(a[0].geom.data_bs, 1024);
	CHECK_INT(a[0].geom.data_blocks, 9);
	CHECK_INT(a[0].offset, 0);
	CHECK_INT(verity_args_parse("abcd:nosb:salt=A0ff", a, SPEC_LIST_MAX, why, sizeof(why)), 1);
	CHECK_INT(a[0].geom.salt_len, 2);
	CHECK_INT(a[0].geom.salt[0], 0xa0);
}

static void bad_union_verity_values_are_named(void)
{
	static const char *const bad[] = {
		"", "xyz", "abc", "9:abcd", "0:abcd", "abcd:offset=100", "abcd:hash=vdc",
		"abcd:bogus", "abcd:salt=00", "abcd,1:abcd", "abcd:bs=12x", ",", "abcd,",
		"abcd:offset=99999999999999999999999", "1:",
	};
	struct verity_arg a[SPEC_LIST_MAX];
	char why[200];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = verity_args_parse(bad[i], a, SPEC_LIST_MAX, why, sizeof(why));

		if (bad[i][0] == '\0') {
			CHECK_INT(rc, 0);
			continue;
		}
		if (rc >= 0)
			unit_failf(__FILE__, __LINE__, "\"%s\" was accepted", bad[i]);
		CHECK(rc < 0);
		CHECK(strncmp(why, "entry ", 6) == 0);
	}
}

/* The board's words, applied as /etc/unionroot.conf is. */
static void apply(struct config *c, const char *text)
{
	char buf[256];

	IGNORE(strcopy(buf, sizeof(buf), text));
	config_apply_text(c, buf, 1, NULL, NULL);
}

static void plan_names_what_is_verified(void)
{
	struct config c;
	struct plan_facts f;
	struct plan p;
	static char text[PLAN_TEXT_MAX];

	config_defaults(&c);
	apply(&c, "union.lower=LABEL=a,LABEL=b union.verity=2:abcd");
	c.onfail = ONFAIL_HALT;
	memset(&f, 0, sizeof(f));
	f.cfg = &c;
	plan_build(&f, &p);
	CHECK_INT(p.nverity, 1);
	CHECK(plan_verity(&p, 1) == NULL);
	CHECK(plan_verity(&p, 2) != NULL);
	CHECK_INT(p.verity_fail, VFAIL_HALT);
	CHECK_STR(p.verity_refused, "");
	CHECK_INT(plan_format(&p, text, sizeof(text)), 0);
	CHECK(strstr(text, "layer 2: root hash abcd, hash tree appended to the image") != NULL);
	CHECK(strstr(text, "power off (union.onfail=halt)") != NULL);
	/* a rescue shell is a root shell: only union.onfail=shell opens it */
	c.onfail = ONFAIL_TMPFS;
	plan_build(&f, &p);
	CHECK_INT(p.verity_fail, VFAIL_REBOOT);
	c.onfail = ONFAIL_SHELL;
	plan_build(&f, &p);
	CHECK_INT(p.verity_fail, VFAIL_RESCUE);
	/* a layer the boot does not have: every layer is refused */
	apply(&c, "union.verity=2:abcd,3:abcd");
	plan_build(&f, &p);
	CHECK_INT(p.nverity, 0);
	CHECK_STR(p.verity_refused, "union.verity names read-only layer 3, and the boot has 2");
	CHECK_INT(p.backend, PLAN_STOP);
}

/* union.verity fails closed: every value config refuses (cut short, a
 * trailing comma, a layer named twice, a bad offset=, a field a newer build
 * knows, none at all) refuses the layers, never boots them unverified. */
static void a_refused_value_refuses_the_layers(void)
{
	static char text[PLAN_TEXT_MAX];
	static const char *const bad[] = {
		"union.verity=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde",
		"union.verity=abcd,", "union.verity=abcd,1:abcd", "union.verity=abcd:offset=1000",
		"union.verity=abcd:offset=1024:newfield=1", "union.verity=", "union.verity",
		"union.verity=abcd:hash=/dev/sdb:hash=/dev/sdc9",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct config c;
		struct plan_facts f;
		struct plan p;
		char line[128];

		config_defaults(&c);
		apply(&c, "union.lower=/dev/vda");
		IGNORE(strcopy(line, sizeof(line), bad[i]));
		config_apply_text(&c, line, 0, NULL, NULL);
		memset(&f, 0, sizeof(f));
		f.cfg = &c;
		plan_build(&f, &p);
		if (!p.verity_refused[0] || p.backend != PLAN_STOP || p.nverity)
			unit_failf(__FILE__, __LINE__, "\"%s\": the layers are not refused", bad[i]);
		CHECK(strncmp(p.verity_refused, "union.verity cannot be honoured (", 33) == 0);
		CHECK_INT(plan_format(&p, text, sizeof(text)), 0);
		CHECK(strstr(text, "every read-only layer is refused, never booted unverified: reboot\n") != NULL);
	}
}

static void count_err(const char *msg, void *ctx)
{
	int *n = ctx;

	if (strstr(msg, "union.verity"))
		(*n)++;
}

static void config_takes_union_verity(void)
{
	struct config c;
	int errs = 0;

	config_defaults(&c);
	CHECK_INT(c.verity_onerror, VERITY_EIO);
	CHECK_INT(config_apply(&c, "union.verity", "2:" ROOT, count_err, &errs), 1);
	CHECK_STR(c.verity, "2:" ROOT);
	CHECK_INT(config_apply(&c, "union.verity.onerror", "restart", count_err, &errs), 1);
	CHECK_INT(c.verity_onerror, VERITY_RESTART);
	CHECK_INT(errs, 0);
	CHECK_INT(config_apply(&c, "union.verity", "2:xyz", count_err, &errs), 1);
	CHECK_INT(errs, 1);
	CHECK_STR(c.verity, "2:" ROOT);
	CHECK_INT(config_apply(&c, "union.verity.onerror", "ignore", count_err, &errs), 1);
	CHECK_INT(errs, 2);
	CHECK_INT(c.verity_onerror, VERITY_RESTART);
}

UNIT_SUITE(verity,
	   { "union.verity and its onerror go through the config", config_takes_union_verity },
	   { "the superblock veritysetup writes parses", superblock_from_veritysetup_parses },
	   { "bad superblocks are refused", bad_superblocks_are_refused },
	   { "the tree starts after the superblock", the_tree_starts_after_the_superblock },
	   { "an appended tree follows the squashfs", appended_tree_follows_the_squashfs },
	   { "the table line is what the kernel reads", table_line_is_what_the_kernel_reads },
	   { "union.verity entries parse", union_verity_entries_parse },
	   { "bad union.verity values are named", bad_union_verity_values_are_named },
	   { "the plan names what is verified", plan_names_what_is_verified },
	   { "a refused union.verity refuses the layers", a_refused_value_refuses_the_layers });
