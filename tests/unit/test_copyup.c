// SPDX-License-Identifier: MIT
/* Copy-up decisions (every merge case in one table, the boot action, the
 * backend) and the manifest format (round trip, hostile lines, tree order,
 * a damaged file refused with a reason). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "conf/config.h"
#include "copyup/copyup.h"
#include "copyup/manifest.h"
#include "lib/chash.h"
#include "lib/walktab.h"
#include "unit.h"

static const struct merge_case {
	const char *name;
	struct cu_facts f;
	struct cu_decision want;
} merge_cases[] = {
	/* name                                   base user             theirs            u=t gone restore act             rec               note */
	{ "untouched x image kept",               { 1, CU_USER_SAME,    CU_THEIRS_SAME,    1, 0, 0 }, { CU_ACT_NONE,      CU_REC_STAMPED,   CU_NOTE_QUIET } },
	{ "untouched x image changed",            { 1, CU_USER_SAME,    CU_THEIRS_CHANGED, 0, 0, 0 }, { CU_ACT_INSTALL,   CU_REC_STAMPED,   CU_NOTE_QUIET } },
	{ "untouched x image removed",            { 1, CU_USER_SAME,    CU_THEIRS_ABSENT,  0, 0, 0 }, { CU_ACT_REMOVE,    CU_REC_DROP,      CU_NOTE_QUIET } },
	{ "edited x image kept",                  { 1, CU_USER_CHANGED, CU_THEIRS_SAME,    0, 0, 0 }, { CU_ACT_KEEP_USER, CU_REC_UNSTAMPED, CU_NOTE_QUIET } },
	{ "edited x image changed",               { 1, CU_USER_CHANGED, CU_THEIRS_CHANGED, 0, 0, 0 }, { CU_ACT_KEEP_USER, CU_REC_UNSTAMPED, CU_NOTE_CONFLICT } },
	{ "edited x image changed alike",         { 1, CU_USER_CHANGED, CU_THEIRS_CHANGED, 1, 0, 0 }, { CU_ACT_NONE,      CU_REC_STAMPED,   CU_NOTE_QUIET } },
	{ "edited x image removed",               { 1, CU_USER_CHANGED, CU_THEIRS_ABSENT,  0, 0, 0 }, { CU_ACT_KEEP_USER, CU_REC_DROP,      CU_NOTE_KEPT_REMOVED } },
	{ "deleted x image kept",                 { 1, CU_USER_ABSENT,  CU_THEIRS_SAME,    0, 0, 0 }, { CU_ACT_NONE,      CU_REC_UNSTAMPED, CU_NOTE_QUIET } },
	{ "deleted x image changed",              { 1, CU_USER_ABSENT,  CU_THEIRS_CHANGED, 0, 0, 0 }, { CU_ACT_NONE,      CU_REC_UNSTAMPED, CU_NOTE_STAYS_DELETED } },
	{ "deleted x image removed",              { 1, CU_USER_ABSENT,  CU_THEIRS_ABSENT,  0, 0, 0 }, { CU_ACT_NONE,      CU_REC_DROP,      CU_NOTE_QUIET } },
	{ "added x image added the same",         { 0, CU_USER_CHANGED, CU_THEIRS_CHANGED, 1, 0, 0 }, { CU_ACT_NONE,      CU_REC_STAMPED,   CU_NOTE_QUIET } },
	{ "added x image added another",          { 0, CU_USER_CHANGED, CU_THEIRS_CHANGED, 0, 0, 0 }, { CU_ACT_KEEP_USER, CU_REC_UNSTAMPED, CU_NOTE_CONFLICT } },
	{ "added by the user only",               { 0, CU_USER_CHANGED, CU_THEIRS_ABSENT,  0, 0, 0 }, { CU_ACT_NONE,      CU_REC_DROP,      CU_NOTE_QUIET } },
	{ "added by the image",                   { 0, CU_USER_ABSENT,  CU_THEIRS_CHANGED, 0, 0, 0 }, { CU_ACT_INSTALL,   CU_REC_STAMPED,   CU_NOTE_QUIET } },
	{ "added by the image, parent deleted",   { 0, CU_USER_ABSENT,  CU_THEIRS_CHANGED, 0, 1, 0 }, { CU_ACT_NONE,      CU_REC_UNSTAMPED, CU_NOTE_QUIET } },
	{ "a cut merge re-run: already landed",   { 1, CU_USER_CHANGED, CU_THEIRS_CHANGED, 1, 0, 0 }, { CU_ACT_NONE,      CU_REC_STAMPED,   CU_NOTE_QUIET } },
	{ "restore: edited",                      { 1, CU_USER_CHANGED, CU_THEIRS_SAME,    0, 0, 1 }, { CU_ACT_INSTALL,   CU_REC_STAMPED,   CU_NOTE_QUIET } },
	{ "restore: deleted",                     { 1, CU_USER_ABSENT,  CU_THEIRS_SAME,    0, 0, 1 }, { CU_ACT_INSTALL,   CU_REC_STAMPED,   CU_NOTE_QUIET } },
	{ "restore: untouched",                   { 1, CU_USER_SAME,    CU_THEIRS_SAME,    1, 0, 1 }, { CU_ACT_NONE,      CU_REC_STAMPED,   CU_NOTE_QUIET } },
	{ "restore: the user's own file",         { 0, CU_USER_CHANGED, CU_THEIRS_ABSENT,  0, 0, 1 }, { CU_ACT_REMOVE,    CU_REC_DROP,      CU_NOTE_QUIET } },
	{ "restore: edited, removed by image",    { 1, CU_USER_CHANGED, CU_THEIRS_ABSENT,  0, 0, 1 }, { CU_ACT_REMOVE,    CU_REC_DROP,      CU_NOTE_QUIET } },
};

static void every_merge_case_decides_as_the_table_says(void)
{
	for (size_t i = 0; i < sizeof(merge_cases) / sizeof(merge_cases[0]); i++) {
		const struct merge_case *c = &merge_cases[i];
		struct cu_decision d = copyup_decide(&c->f);

		if (d.act != c->want.act || d.rec != c->want.rec || d.note != c->want.note) {
			unit_failf(__FILE__, __LINE__, "%s: act %d rec %d note %d, want %d %d %d", c->name,
				   d.act, d.rec, d.note, c->want.act, c->want.rec, c->want.note);
			return;
		}
	}
}

static const struct action_case {
	struct copyup_facts f;
	int want;
} action_cases[] = {
	/* manifest same empty reset upgrade */
	{ { 0, 0, 1, 0, UPGRADE_KEEP }, CU_COPY },
	{ { 0, 0, 0, 0, UPGRADE_KEEP }, CU_MERGE },     /* cut after the tree's rename */
	{ { 1, 1, 0, 0, UPGRADE_KEEP }, CU_NOTHING },   /* constant time */
	{ { 1, 0, 0, 0, UPGRADE_KEEP }, CU_MERGE },
	{ { 1, 0, 0, 0, UPGRADE_KEEPLIST }, CU_MERGE },
	{ { 1, 0, 0, 0, UPGRADE_RESET }, CU_RESTORE },
	{ { -1, 0, 0, 0, UPGRADE_KEEP }, CU_MERGE },    /* damaged: no base */
	{ { 1, 1, 0, 1, UPGRADE_KEEP }, CU_RESTORE },
	{ { 0, 0, 1, 1, UPGRADE_KEEP }, CU_COPY },
};

static void the_boot_action_follows_manifest_image_and_reset(void)
{
	for (size_t i = 0; i < sizeof(action_cases) / sizeof(action_cases[0]); i++) {
		const char *why = NULL;

		CHECK_INT(copyup_choose_action(&action_cases[i].f, &why), action_cases[i].want);
		CHECK(why && why[0]);
	}
}

static void auto_chooses_copyup_only_when_overlay_cannot_serve(void)
{
	const char *why;

	CHECK_INT(copyup_choose_backend(MODE_AUTO, 1, "ext4", &why), BACKEND_OVERLAY);
	CHECK_INT(copyup_choose_backend(MODE_AUTO, 0, "ext4", &why), BACKEND_COPYUP);
	CHECK(strstr(why, "no overlayfs"));
	CHECK_INT(copyup_choose_backend(MODE_AUTO, 1, "vfat", &why), BACKEND_COPYUP);
	CHECK(strstr(why, "cannot host"));
	CHECK_INT(copyup_choose_backend(MODE_COPYUP, 1, "ext4", &why), BACKEND_COPYUP);
	CHECK_STR(why, "union.mode=copyup");
	CHECK_INT(copyup_choose_backend(MODE_OVERLAY, 0, "vfat", &why), BACKEND_OVERLAY);
}

static void tree_order_puts_a_subtree_before_its_siblings(void)
{
	CHECK(mf_path_cmp("a", "a/b") < 0);
	CHECK(mf_path_cmp("a/b", "a.b") < 0);
	CHECK(mf_path_cmp("a/zzz", "a0") < 0);
	CHECK(mf_path_cmp("b", "a/b") > 0);
	CHECK_INT(mf_path_cmp("x/y", "x/y"), 0);
	CHECK(mf_path_under("a/b", "a"));
	CHECK(!mf_path_under("ab", "a"));
	CHECK(mf_path_under("a", ""));
}

static void a_record_survives_format_and_parse(void)
{
	static struct mrec r, back;
	char line[MF_LINE_MAX + 2];
	const char *why;
	int n;

	r.type = 'f';
	r.mode = 04755;
	r.uid = 1234;
	r.gid = 4294967295u;
	r.size = 1ull << 40;
	r.mtime = -5;
	r.mtime_ns = 999999999;
	r.hash = 0xfedcba9876543210ull;
	r.ino = 77;
	r.ctime = 1700000000;
	r.ctime_ns = 1;
	strcpy(r.path, "etc/with space\\and\nnewline\x7f");
	n = mf_format(&r, line, sizeof(line));
	CHECK(n > 0 && line[n - 1] == '\n');

	CHECK_INT(mf_parse(line, (size_t)n - 1, &back, &why), 0);
	CHECK_STR(back.path, r.path);
	CHECK_INT(back.mode, 04755);
	CHECK_INT(back.gid, 4294967295u);
	CHECK_INT(back.mtime, -5);
	CHECK(back.hash == r.hash && back.size == r.size && back.ino == 77 && back.ctime_ns == 1);
}

static void hostile_lines_are_refused_with_a_reason(void)
{
	static const char *const bad[] = {
		"",
		"x 644 0 0 1 0.0 00 0 0.0 a",                  /* unknown type */
		"f 644 0 0 1 0.0 00 0 0.0 ",                   /* empty path */
		"f 644 0 0 1 0.0 00 0 0.0 /etc/passwd",        /* absolute */
		"f 644 0 0 1 0.0 00 0 0.0 ../x",               /* climbs */
		"f 644 0 0 1 0.0 00 0 0.0 a/../../x",
		"f 644 0 0 1 0.0 00 0 0.0 a//b",
		"f 644 0 0 1 0.0 00 0 0.0 a/.",
		"f 644 0 0 1 0.0 00 0 0.0 a\\x00b",            /* NUL by escape */
		"f 644 0 0 1 0.0 00 0 0.0 a\\x2fb",            /* '/' by escape */
		"f 644 0 0 1 0.0 00 0 0.0 a b",                /* raw space */
		"f 99999 0 0 1 0.0 00 0 0.0 a",                /* mode out of range */
		"f 644 4294967296 0 1 0.0 00 0 0.0 a",         /* uid out of range */
		"f 644 0 0 99999999999999999999999 0.0 00 0 0.0 a",
		"f 644 0 0 1 0.1000000000 00 0 0.0 a",         /* nanoseconds */
		"f 644 0 0 1 0.0 0g 0 0.0 a",
		"f 644 0 0 1 0.0 00 0 0.0",
	};
	static struct mrec r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why = NULL;

		if (mf_parse(bad[i], strlen(bad[i]), &r, &why) != -EBADMSG || !why) {
			unit_failf(__FILE__, __LINE__, "accepted \"%s\"", bad[i]);
			return;
		}
	}
}

static void write_file(const char *path, const char *text, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd >= 0) {
		IGNORE(write(fd, text, n));
		close(fd);
	}
}

static void a_written_manifest_reads_back_and_a_damaged_one_is_refused(void)
{
	static struct mwriter w;
	static struct mreader r;
	static struct mrec rec;
	static char text[8192];
	static const char *const paths[] = { "a", "a/b", "a/b/c", "a.b", "z" };
	int dir = open(unit_tmpdir(), O_RDONLY | O_DIRECTORY);
	char path[512], id[MF_ID_MAX];
	ssize_t n;
	int fd;

	CHECK(dir >= 0);
	CHECK_INT(mwriter_open(&w, dir, "1234-abcd"), 0);
	rec.type = 'd';
	for (size_t i = 0; i < 5; i++) {
		strcpy(rec.path, paths[i]);
		CHECK_INT(mwriter_add(&w, &rec), 0);
	}
	strcpy(rec.path, "a/b");
	CHECK_INT(mwriter_add(&w, &rec), -EINVAL); /* out of order */
	w.err = 0;
	CHECK_INT(mwriter_commit(&w), 0);
	CHECK_INT(manifest_read_id(dir, MF_NAME, id, sizeof(id)), 0);
	CHECK_STR(id, "1234-abcd");
	CHECK_INT(mreader_open(&r, dir, MF_NAME), 0);
	for (size_t i = 0; i < 5; i++) {
		CHECK(r.have);
		CHECK_STR(r.cur.path, paths[i]);
		CHECK_INT(mreader_next(&r), i < 4 ? 1 : 0);
	}
	mreader_close(&r);

	/* cut short, or one byte changed: refused with a reason */
	snprintf(path, sizeof(path), "%s/%s", unit_tmpdir(), MF_NAME);
	fd = open(path, O_RDONLY);
	n = read(fd, text, sizeof(text));
	close(fd);
	CHECK(n > 40);
	write_file(path, text, (size_t)n - 10);
	CHECK_INT(mreader_open(&r, dir, MF_NAME), -EBADMSG);
	CHECK(strstr(r.err, "cut short") || strstr(r.err, "end line"));
	mreader_close(&r);
	text[40] ^= 1;
	write_file(path, text, (size_t)n);
	CHECK_INT(mreader_open(&r, dir, MF_NAME), -EBADMSG);
	CHECK(r.err[0]);
	mreader_close(&r);
	write_file(path, "garbage\n", 8);
	CHECK_INT(mreader_open(&r, dir, MF_NAME), -EBADMSG);
	mreader_close(&r);
	close(dir);
}

static void the_content_hash_sees_every_byte_and_any_split(void)
{
	static const char text[] = "the quick brown fox jumps over the lazy dog";
	struct chash h;
	uint64_t whole = chash_buf(text, sizeof(text) - 1);
	char edited[sizeof(text)];

	chash_init(&h);
	chash_add(&h, text, 5);
	chash_add(&h, text + 5, 3);
	chash_add(&h, text + 8, sizeof(text) - 1 - 8);
	CHECK(chash_final(&h) == whole);
	for (size_t i = 0; i < sizeof(text) - 1; i++) {
		memcpy(edited, text, sizeof(text));
		edited[i] ^= 0x20;
		CHECK(chash_buf(edited, sizeof(text) - 1) != whole);
	}
	CHECK(chash_buf("", 0) != chash_buf("\0", 1));
}

/* the walk's binary search needs every directory's names in strcmp order */
static void a_directory_reads_back_sorted(void)
{
	struct nametab t;
	size_t first, count, base_first, base_count;
	char path[512];
	int dir, fd, rc;

	for (unsigned i = 0; i < 300; i++) {
		snprintf(path, sizeof(path), "%s/n%u", unit_tmpdir(), (i * 7919u) % 1000u);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		CHECK(fd >= 0);
		close(fd);
	}
	dir = open(unit_tmpdir(), O_RDONLY | O_DIRECTORY);
	CHECK(dir >= 0);
	CHECK_INT(nametab_open(&t), 0);
	rc = nametab_read(&t, dir, &base_first, &base_count);
	if (rc == 0)
		rc = nametab_read(&t, dir, &first, &count); /* a second directory after the first */
	close(dir);
	if (rc != 0 || base_count != 300 || count != 300 || first != 300) {
		nametab_close(&t);
		CHECK_INT(rc, 0);
		CHECK(base_count == 300 && count == 300 && first == 300);
	}
	for (size_t i = first + 1; i < first + count; i++)
		if (strcmp(nametab_name(&t, i - 1), nametab_name(&t, i)) >= 0)
			rc = -1;
	rc = rc ? rc : !nametab_has(&t, first, count, "n0") || !nametab_has(&t, first, count, "n919") ||
			       nametab_has(&t, first, count, "n1000") || nametab_has(&t, first, count, "n");
	nametab_close(&t);
	CHECK_INT(rc, 0);
}

UNIT_SUITE(copyup,
	   { "every merge case decides as the table says", every_merge_case_decides_as_the_table_says },
	   { "the boot action follows manifest, image and reset", the_boot_action_follows_manifest_image_and_reset },
	   { "auto chooses copy-up only when overlay cannot serve", auto_chooses_copyup_only_when_overlay_cannot_serve },
	   { "tree order puts a subtree before its siblings", tree_order_puts_a_subtree_before_its_siblings },
	   { "a record survives format and parse", a_record_survives_format_and_parse },
	   { "hostile manifest lines are refused with a reason", hostile_lines_are_refused_with_a_reason },
	   { "a written manifest reads back, a damaged one is refused", a_written_manifest_reads_back_and_a_damaged_one_is_refused },
	   { "the content hash sees every byte and any split", the_content_hash_sees_every_byte_and_any_split },
	   { "a directory reads back sorted", a_directory_reads_back_sorted });
