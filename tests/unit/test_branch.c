// SPDX-License-Identifier: MIT
/* The writable branch's top level and the reset, on a scratch directory:
 * the old upper leaves in one rename, hostile entries are moved aside, the
 * trash is emptied without following symlinks. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "branch/branch.h"
#include "branch/reserve.h"
#include "branch/reset.h"
#include "lib/rmtree.h"
#include "unit.h"

static const struct reset_env factory = { RESET_FACTORY, NULL, 0, NULL, NULL, NULL };
static const struct reset_req plain = { 0, { 0, { "" } } };

static int rw_open(void)
{
	return open(unit_tmpdir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int exists_at(int dir, const char *path)
{
	struct stat st;

	return fstatat(dir, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static int is_dir_at(int dir, const char *path)
{
	struct stat st;

	return fstatat(dir, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

static void touch_at(int dir, const char *path)
{
	int fd = openat(dir, path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
}

static void a_blank_branch_gets_its_three_directories(void)
{
	struct branch_result r;
	const char *what;
	int rw = rw_open();

	CHECK(rw >= 0);
	CHECK_INT(branch_prepare(rw, NULL, &r, &what), 0);
	CHECK(is_dir_at(rw, "upper"));
	CHECK(is_dir_at(rw, "work"));
	CHECK(is_dir_at(rw, ".unionroot/trash"));
	CHECK_INT(r.reset_done, 0);
	close(rw);
}

static void a_reset_sets_the_old_upper_aside_and_empties_it_later(void)
{
	struct branch_result r;
	const char *what;
	int rw = rw_open();

	CHECK_INT(branch_prepare(rw, NULL, &r, &what), 0);
	CHECK_INT(mkdirat(rw, "upper/etc", 0755), 0);
	touch_at(rw, "upper/etc/changed");
	CHECK_INT(branch_prepare(rw, &factory, &r, &what), 0);
	CHECK_INT(r.reset_done, 1);
	CHECK_INT(r.trash_pending, 1);
	CHECK(is_dir_at(rw, "upper"));
	CHECK(!exists_at(rw, "upper/etc"));
	CHECK_INT(branch_trash_empty(rw), 0);
	CHECK(is_dir_at(rw, ".unionroot/trash"));
	CHECK_INT(branch_prepare(rw, NULL, &r, &what), 0);
	CHECK_INT(r.trash_pending, 0);
	close(rw);
}

static void a_request_is_applied_once_then_cleared(void)
{
	struct branch_result r;
	const char *what;
	int rw = rw_open();

	CHECK_INT(branch_prepare(rw, NULL, &r, &what), 0);
	touch_at(rw, "upper/file");
	CHECK_INT(branch_request_reset(rw, &plain), 0);
	CHECK(exists_at(rw, ".unionroot/reset"));
	CHECK_INT(branch_prepare(rw, NULL, &r, &what), 0);
	CHECK_INT(r.from_request, 1);
	CHECK(!exists_at(rw, "upper/file"));
	CHECK(!exists_at(rw, ".unionroot/reset"));
	touch_at(rw, "upper/file2");
	CHECK_INT(branch_prepare(rw, NULL, &r, &what), 0);
	CHECK_INT(r.reset_done, 0);
	CHECK(exists_at(rw, "upper/file2"));
	close(rw);
}

static void a_power_cut_after_the_rename_boots_factory(void)
{
	struct branch_result r;
	const char *what;
	int rw = rw_open();

	/* the state right after "rename aside" with no fresh upper yet */
	CHECK_INT(branch_prepare(rw, NULL, &r, &what), 0);
	touch_at(rw, "upper/old");
	CHECK_INT(renameat(rw, "upper", rw, ".unionroot/trash/upper.cut"), 0);
	CHECK_INT(branch_prepare(rw, NULL, &r, &what), 0);
	CHECK(is_dir_at(rw, "upper"));
	CHECK(!exists_at(rw, "upper/old"));
	CHECK_INT(r.trash_pending, 1);
	close(rw);
}

static void symlinks_in_place_of_directories_are_moved_aside(void)
{
	struct branch_result r;
	const char *what;
	int rw = rw_open();
	char outside[512];

	snprintf(outside, sizeof(outside), "%s/outside", unit_tmpdir());
	CHECK_INT(mkdir(outside, 0755), 0);
	snprintf(outside, sizeof(outside), "%s/outside/precious", unit_tmpdir());
	touch_at(rw, "outside/precious");
	CHECK_INT(symlinkat("outside", rw, "upper"), 0);
	CHECK_INT(symlinkat("/", rw, ".unionroot"), 0);
	CHECK_INT(branch_prepare(rw, &factory, &r, &what), 0);
	CHECK_INT(r.repaired, 1);
	CHECK(is_dir_at(rw, "upper"));
	CHECK(is_dir_at(rw, ".unionroot"));
	CHECK_INT(branch_trash_empty(rw), 0);
	/* the symlink went, what it pointed to stayed */
	CHECK(exists_at(rw, "outside/precious"));
	close(rw);
}

static void the_trash_never_follows_symlinks_out(void)
{
	struct branch_result r;
	const char *what;
	int rw = rw_open();

	CHECK_INT(mkdirat(rw, "victim", 0755), 0);
	touch_at(rw, "victim/keep");
	CHECK_INT(branch_prepare(rw, NULL, &r, &what), 0);
	CHECK_INT(mkdirat(rw, "upper/d", 0755), 0);
	CHECK_INT(symlinkat("../../victim", rw, "upper/d/link"), 0);
	CHECK_INT(symlinkat("../../victim/keep", rw, "upper/filelink"), 0);
	CHECK_INT(branch_prepare(rw, &factory, &r, &what), 0);
	CHECK_INT(branch_trash_empty(rw), 0);
	CHECK(exists_at(rw, "victim/keep"));
	close(rw);
}

static void a_fresh_work_directory_replaces_a_stale_one(void)
{
	struct branch_result r;
	const char *what;
	int rw = rw_open();

	CHECK_INT(branch_prepare(rw, NULL, &r, &what), 0);
	CHECK_INT(mkdirat(rw, "work/work", 0755), 0);
	CHECK_INT(branch_fresh_work(rw), 0);
	CHECK(is_dir_at(rw, "work"));
	CHECK(!exists_at(rw, "work/work"));
	close(rw);
}

static void a_second_name_of_a_live_tree_is_never_emptied(void)
{
	struct stat st;
	int rw = rw_open(), dir;
	ino_t skip[1];

	/* what a jffs2 power cut mid-rename leaves: one inode, two names */
	CHECK_INT(mkdirat(rw, "t", 0755), 0);
	touch_at(rw, "t/live");
	CHECK_INT(linkat(rw, "t/live", rw, "t/second-name", 0), 0);
	touch_at(rw, "t/old");
	CHECK_INT(fstatat(rw, "t/live", &st, 0), 0);
	skip[0] = st.st_ino;
	dir = openat(rw, "t", O_RDONLY | O_DIRECTORY);
	CHECK(dir >= 0);
	CHECK_INT(rmtree_contents_except(dir, st.st_dev, skip, 1), 0);
	close(dir);
	CHECK(exists_at(rw, "t/live"));
	CHECK(exists_at(rw, "t/second-name"));
	CHECK(!exists_at(rw, "t/old"));
	close(rw);
}

static void a_symlink_probe_leaves_nothing_behind(void)
{
	int rw = rw_open();

	touch_at(rw, ".unionroot-symlink-probe"); /* a power cut's leftover */
	CHECK_INT(branch_holds_symlinks(rw), 1);
	CHECK(!exists_at(rw, ".unionroot-symlink-probe"));
	close(rw);
}

static void the_reserve_is_sized_to_let_jffs2_collect(void)
{
	/* two 128 KiB erase blocks and 1 %, at most 16 MiB */
	CHECK(reserve_size(8u << 20) == 256u * 1024 + (8u << 20) / 100);
	CHECK(reserve_size(0) == 256u * 1024);
	CHECK(reserve_size(64ull << 30) == 16u << 20);
}

static void the_used_percent_rounds_up(void)
{
	struct statfs vfs = { .f_blocks = 1000, .f_bfree = 1000, .f_bavail = 950 };

	CHECK_INT(fs_used_percent(&vfs), 0);
	vfs.f_bfree = 95; /* 90.5 % used: the warning at 90 % fires */
	CHECK_INT(fs_used_percent(&vfs), 91);
	vfs.f_bfree = 0;
	CHECK_INT(fs_used_percent(&vfs), 100);
	vfs.f_blocks = 0; /* a file system that counts no blocks */
	CHECK_INT(fs_used_percent(&vfs), -1);
}

static void the_reserve_is_made_once_and_given_up(void)
{
	int rw = rw_open();
	unsigned char buf[4096];
	struct stat st;
	ssize_t n;
	int fd, same = 1;

	CHECK_INT(reserve_release(rw), 0);
	CHECK_INT(reserve_make(rw, 100000), 1);
	CHECK(fstatat(rw, RESERVE_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_size == 100000);
	CHECK(!exists_at(rw, ".reserve.new"));
	/* incompressible: no run of equal bytes (jffs2 and ubifs compress) */
	fd = openat(rw, RESERVE_NAME, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	CHECK(n == (ssize_t)sizeof(buf));
	for (ssize_t i = 8; i < n; i++)
		same &= buf[i] == buf[i - 8];
	CHECK(!same);
	if (fd >= 0)
		close(fd);
	CHECK_INT(reserve_make(rw, 5), 0); /* there already: untouched */
	CHECK(fstatat(rw, RESERVE_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_size == 100000);
	CHECK_INT(reserve_release(rw), 1);
	CHECK(!exists_at(rw, RESERVE_NAME));
	touch_at(rw, ".reserve.new"); /* a power cut mid-write: room too */
	CHECK_INT(reserve_release(rw), 0);
	CHECK(!exists_at(rw, ".reserve.new"));
	close(rw);
}

/* sysupgrade.tgz from the top into upper/, .unionroot/ or the trash, one
 * rename; a second name a cut left at the top (jffs2's rename writes the
 * new name first) goes, the file stays. */
static void sysupgrade_is_placed_by_one_rename(void)
{
	static const char *const to[] = { "upper/sysupgrade.tgz", ".unionroot/sysupgrade.tgz" };
	struct branch_result r;
	const char *what;
	struct stat st;
	int rw = rw_open();

	CHECK_INT(branch_prepare(rw, NULL, &r, &what), 0);
	CHECK_INT(branch_sysupgrade(rw, SYSUPGRADE_TO_UPPER), 0); /* none there */
	for (int i = SYSUPGRADE_TO_UPPER; i <= SYSUPGRADE_TO_STATE; i++) {
		touch_at(rw, "sysupgrade.tgz");
		CHECK_INT(branch_sysupgrade(rw, i), 1);
		CHECK(!exists_at(rw, "sysupgrade.tgz"));
		CHECK(exists_at(rw, to[i]));
	}
	/* the cut's two names of one file: the top's goes, the file stays */
	CHECK_INT(linkat(rw, "upper/sysupgrade.tgz", rw, "sysupgrade.tgz", 0), 0);
	CHECK_INT(branch_sysupgrade(rw, SYSUPGRADE_TO_UPPER), 1);
	CHECK(!exists_at(rw, "sysupgrade.tgz"));
	CHECK_INT(fstatat(rw, "upper/sysupgrade.tgz", &st, 0), 0);
	CHECK_INT((int)st.st_nlink, 1);
	/* the trash: gone after the switch */
	touch_at(rw, "sysupgrade.tgz");
	CHECK_INT(branch_sysupgrade(rw, SYSUPGRADE_TO_TRASH), 1);
	CHECK(!exists_at(rw, "sysupgrade.tgz"));
	CHECK_INT(branch_prepare(rw, NULL, &r, &what), 0);
	CHECK_INT(r.trash_pending, 1);
	CHECK_INT(branch_trash_empty(rw), 0);
	/* not a regular file: not OpenWrt's, not moved */
	CHECK_INT(mkdirat(rw, "sysupgrade.tgz", 0755), 0);
	CHECK_INT(branch_sysupgrade(rw, SYSUPGRADE_TO_UPPER), -EINVAL);
	CHECK(is_dir_at(rw, "sysupgrade.tgz"));
	close(rw);
}

UNIT_SUITE(branch,
	   { "a symlink probe leaves nothing behind", a_symlink_probe_leaves_nothing_behind },
	   { "the reserve is sized to let jffs2 collect", the_reserve_is_sized_to_let_jffs2_collect },
	   { "the used percent rounds up", the_used_percent_rounds_up },
	   { "the reserve is made once and given up", the_reserve_is_made_once_and_given_up },
	   { "a second name of a live tree is never emptied", a_second_name_of_a_live_tree_is_never_emptied },
	   { "a blank branch gets its three directories", a_blank_branch_gets_its_three_directories },
	   { "a reset sets the old upper aside and empties it later", a_reset_sets_the_old_upper_aside_and_empties_it_later },
	   { "a reset request is applied once, then cleared", a_request_is_applied_once_then_cleared },
	   { "a power cut right after the rename boots factory", a_power_cut_after_the_rename_boots_factory },
	   { "symlinks in place of directories are moved aside", symlinks_in_place_of_directories_are_moved_aside },
	   { "the trash never follows symlinks out", the_trash_never_follows_symlinks_out },
	   { "a fresh work/ replaces a stale one", a_fresh_work_directory_replaces_a_stale_one },
	   { "OpenWrt's sysupgrade.tgz is placed by one rename, a cut's second name removed",
	     sysupgrade_is_placed_by_one_rename });
