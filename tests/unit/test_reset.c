// SPDX-License-Identifier: MIT
/* Control state, keep list, reset request and the boot decision as values;
 * and the reset stopped after each named step (as a power cut would) on a
 * scratch branch: the tree is old or factory-with-keeps, and the next run
 * finishes the job. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "branch/branch.h"
#include "branch/keep.h"
#include "branch/reset.h"
#include "branch/state.h"
#include "conf/config.h"
#include "plan/decide.h"
#include "unit.h"

static void the_state_round_trips_and_garbage_is_refused(void)
{
	struct ur_state st, back;
	char text[STATE_TEXT_MAX];

	state_clear(&st);
	st.boots = 3;
	st.nlower = 2;
	strcpy(st.lower[0], "size=1 mkfs=2 hash=0000000000000003");
	strcpy(st.lower[1], "size=4 mkfs=5 hash=0000000000000006");
	CHECK_INT(state_format(&st, text, sizeof(text)), 0);
	CHECK_INT(state_parse(text, &back), 0);
	CHECK_INT(back.boots, 3);
	CHECK_INT(back.nlower, 2);
	CHECK_STR(back.lower[1], st.lower[1]);
	CHECK_INT(state_parse("unionroot-state 1\nboots x\n", &back), -22);
	CHECK_INT(back.boots, 0);
	CHECK_INT(state_parse("unionroot-state 1\nboots 1", &back), -22); /* cut */
	CHECK_INT(state_parse("hello\n", &back), -22);
	CHECK_INT(state_parse("", &back), -22);
	CHECK_INT(state_parse("unionroot-state 1\nboots 99999999999\n", &back), -22);
}

static void an_oversized_state_file_is_an_error_and_a_clear_state(void)
{
	struct ur_state st;
	char big[STATE_TEXT_MAX + 100];
	int rw = open(unit_tmpdir(), O_RDONLY | O_DIRECTORY), fd;

	CHECK_INT(mkdirat(rw, ".unionroot", 0755), 0);
	memset(big, 'x', sizeof(big));
	fd = openat(rw, ".unionroot/state", O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0);
	CHECK_INT(write(fd, big, sizeof(big)), sizeof(big));
	close(fd);
	CHECK_INT(state_load(rw, &st), -27); /* EFBIG */
	CHECK_INT(st.boots, 0);
	st.boots = 2;
	CHECK_INT(state_save(rw, &st), 0);
	CHECK_INT(state_load(rw, &st), 0);
	CHECK_INT(st.boots, 2);
	close(rw);
}

/* The same state is not written a second time (no new inode: no rename, no
 * fsyncs); a changed one is. */
static void saving_the_same_state_twice_writes_nothing(void)
{
	struct ur_state st;
	struct stat a, b;
	int rw = open(unit_tmpdir(), O_RDONLY | O_DIRECTORY);

	CHECK_INT(mkdirat(rw, ".unionroot", 0755), 0);
	state_clear(&st);
	st.nlower = 1;
	strcpy(st.lower[0], "size=1,mkfs=2,head=3");
	CHECK_INT(state_save(rw, &st), 0);
	CHECK_INT(fstatat(rw, ".unionroot/state", &a, 0), 0);
	CHECK_INT(state_save(rw, &st), 0);
	CHECK_INT(fstatat(rw, ".unionroot/state", &b, 0), 0);
	CHECK(a.st_ino == b.st_ino);
	st.boots = 1;
	CHECK_INT(state_save(rw, &st), 0);
	CHECK_INT(fstatat(rw, ".unionroot/state", &b, 0), 0);
	CHECK(a.st_ino != b.st_ino);
	CHECK_INT(state_load(rw, &st), 0);
	CHECK_INT(st.boots, 1);
	CHECK_STR(st.lower[0], "size=1,mkfs=2,head=3");
	close(rw);
}

static void identities_differ_with_the_image(void)
{
	unsigned char a[4096] = { 'h', 's', 'q', 's', 0, 0, 0, 0, 0x10, 0, 0, 0 };
	char ia[STATE_ID_MAX], ib[STATE_ID_MAX];

	unsigned char z[4096] = { 0 };
	char ic[STATE_ID_MAX];

	CHECK_INT(identity_bytes(a, sizeof(a), z, sizeof(z), 1 << 20, ia, sizeof(ia)), 0);
	CHECK(strstr(ia, "mkfs=16,") != NULL);
	a[100] = 1;
	CHECK_INT(identity_bytes(a, sizeof(a), z, sizeof(z), 1 << 20, ib, sizeof(ib)), 0);
	CHECK(strcmp(ia, ib) != 0);
	/* squashfs keeps its tables at the end: a change there is a new image */
	z[4000] = 1;
	CHECK_INT(identity_bytes(a, sizeof(a), z, sizeof(z), 1 << 20, ic, sizeof(ic)), 0);
	CHECK(strcmp(ib, ic) != 0);
}

static void keep_paths_that_could_leave_the_root_are_refused(void)
{
	struct keep_list kl;

	memset(&kl, 0, sizeof(kl));
	CHECK(keep_invalid("/etc/hostname") == NULL);
	CHECK(keep_invalid("/home/*/.ssh") == NULL);
	CHECK(keep_invalid("etc/hostname") != NULL);
	CHECK(keep_invalid("/") != NULL);
	CHECK(keep_invalid("/etc/../../x") != NULL);
	CHECK(keep_invalid("/etc/./x") != NULL);
	CHECK(keep_invalid("/etc//x") != NULL);
	CHECK(keep_invalid("/etc/") != NULL);
	CHECK(keep_invalid("/etc/\nx") != NULL);
	CHECK_INT(keep_add_text(&kl, "# comment\n\n  /etc/a  \n../b\n/etc/a\n/c", NULL, NULL), 1);
	CHECK_INT(kl.n, 2);
	CHECK_STR(kl.path[1], "/c");
}

static void a_reset_request_round_trips_and_a_damaged_one_keeps_the_keep_list_only(void)
{
	struct reset_req req, back;
	char text[RESET_REQUEST_MAX];

	memset(&req, 0, sizeof(req));
	req.keeplist = 1;
	CHECK_INT(keep_add(&req.keep, "/root/*.conf"), 0);
	CHECK_INT(reset_request_format(&req, text, sizeof(text)), 0);
	CHECK_INT(reset_request_parse(text, &back), 0);
	CHECK_INT(back.keeplist, 1);
	CHECK_INT(back.keep.n, 1);
	CHECK_INT(reset_request_parse("unionroot-reset 1\nkeep ../x\n", &back), -22);
	CHECK_INT(back.keeplist, 1);
	CHECK_INT(back.keep.n, 0);
	CHECK_INT(reset_request_parse("reset requested\n", &back), -22);
}

static void the_boot_decision_counts_fails_and_applies_the_upgrade_policy(void)
{
	struct ur_state saved, now;
	struct boot_decision d;

	state_clear(&saved);
	state_clear(&now);
	now.nlower = 1;
	strcpy(now.lower[0], "v2");
	/* first boot: no identity saved, no upgrade; counting starts */
	decide_boot(&saved, 0, &now, RESET_OFF, 0, UPGRADE_RESET, 2, &d);
	CHECK_INT(d.failsafe, 0);
	CHECK_INT(d.upgraded, 0);
	CHECK_INT(d.next.boots, 1);
	saved = d.next;
	decide_boot(&saved, 0, &now, RESET_OFF, 0, UPGRADE_RESET, 2, &d);
	CHECK_INT(d.next.boots, 2);
	saved = d.next;
	decide_boot(&saved, 0, &now, RESET_OFF, 0, UPGRADE_RESET, 2, &d);
	CHECK_INT(d.failsafe, 1);
	/* counting off: no failsafe, the counter rests at 0 */
	decide_boot(&saved, 0, &now, RESET_OFF, 0, UPGRADE_KEEP, 0, &d);
	CHECK_INT(d.failsafe, 0);
	CHECK_INT(d.next.boots, 0);
	/* a new image with each policy */
	strcpy(now.lower[0], "v3");
	decide_boot(&saved, 0, &now, RESET_OFF, 0, UPGRADE_KEEP, 0, &d);
	CHECK_INT(d.upgraded, 1);
	CHECK_INT(d.reset_mode, RESET_NONE);
	CHECK_STR(d.next.lower[0], "v3");
	decide_boot(&saved, 0, &now, RESET_OFF, 0, UPGRADE_RESET, 0, &d);
	CHECK_INT(d.reset_mode, RESET_FACTORY);
	decide_boot(&saved, 0, &now, RESET_OFF, 0, UPGRADE_KEEPLIST, 0, &d);
	CHECK_INT(d.reset_mode, RESET_FACTORY_KEEPLIST);
	/* a damaged state is no evidence of anything */
	decide_boot(&saved, -22, &now, RESET_OFF, 0, UPGRADE_RESET, 2, &d);
	CHECK_INT(d.failsafe, 0);
	CHECK_INT(d.upgraded, 0);
	CHECK_INT(d.next.boots, 1);
	decide_boot(&saved, 0, &now, RESET_KEEP, 0, UPGRADE_KEEP, 0, &d);
	CHECK_INT(d.reset_mode, RESET_FACTORY_KEEPLIST);
}

static void a_reset_is_the_way_out_of_a_failsafe_loop(void)
{
	struct ur_state saved, now;
	struct boot_decision d;

	state_clear(&saved);
	state_clear(&now);
	saved.boots = 3;
	now.nlower = 1;
	strcpy(now.lower[0], "v1");
	saved.nlower = 1;
	strcpy(saved.lower[0], "v1");
	decide_boot(&saved, 0, &now, RESET_OFF, 0, UPGRADE_KEEP, 2, &d);
	CHECK_INT(d.failsafe, 1);
	/* 'unionroot reset' in the failsafe boot left a request: applied, and
	 * the counter starts anew with this boot */
	decide_boot(&saved, 0, &now, RESET_OFF, 1, UPGRADE_KEEP, 2, &d);
	CHECK_INT(d.failsafe, 0);
	CHECK_INT(d.reset_mode, RESET_NONE); /* the request itself says how */
	CHECK_INT(d.next.boots, 1);
	/* union.reset=1 on the command line of a boot that would go failsafe */
	decide_boot(&saved, 0, &now, RESET_ON, 0, UPGRADE_KEEP, 2, &d);
	CHECK_INT(d.failsafe, 0);
	CHECK_INT(d.reset_mode, RESET_FACTORY);
	CHECK_INT(d.next.boots, 1);
	/* below the limit a reset clears the counter too; without one it counts */
	saved.boots = 1;
	decide_boot(&saved, 0, &now, RESET_KEEP, 0, UPGRADE_KEEP, 2, &d);
	CHECK_INT(d.next.boots, 1);
	decide_boot(&saved, 0, &now, RESET_OFF, 0, UPGRADE_KEEP, 2, &d);
	CHECK_INT(d.next.boots, 2);
}

/* ---- the reset stopped after each step ---- */

static const char *stop_at;

static int stop_here(const char *name, void *ctx)
{
	(void)ctx;
	return stop_at && strcmp(name, stop_at) == 0 ? -1 : 0;
}

static void put(int dir, const char *path, const char *text)
{
	int fd = openat(dir, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		IGNORE(write(fd, text, strlen(text)));
		close(fd);
	}
}

static int has(int dir, const char *path)
{
	struct stat st;

	return fstatat(dir, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* old: the user's file is there; factory: only the kept one is */
static int old_or_factory(int rw)
{
	int old = has(rw, "upper/root/data") && has(rw, "upper/etc/keepme");
	int factory = !has(rw, "upper/root/data") && has(rw, "upper/etc/keepme");

	return old || factory;
}

static void a_reset_stopped_after_any_step_is_old_or_factory_and_finishes_next_time(void)
{
	static const char *const steps[] = { "request", "keep", "aside", "fresh", "cleared" };
	struct reset_env env = { RESET_FACTORY_KEEPLIST, NULL, 0, stop_here, NULL, NULL };
	struct branch_result r;
	const char *what;
	char dir[64];

	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		int top = open(unit_tmpdir(), O_RDONLY | O_DIRECTORY), rw;

		snprintf(dir, sizeof(dir), "b%zu", i);
		CHECK_INT(mkdirat(top, dir, 0755), 0);
		rw = openat(top, dir, O_RDONLY | O_DIRECTORY);
		close(top);
		CHECK_INT(branch_prepare(rw, NULL, &r, &what), 0);
		CHECK_INT(mkdirat(rw, "upper/root", 0700), 0);
		CHECK_INT(mkdirat(rw, "upper/etc", 0755), 0);
		CHECK_INT(mkdirat(rw, "upper/etc/unionroot", 0755), 0);
		put(rw, "upper/root/data", "user");
		put(rw, "upper/etc/keepme", "kept");
		/* the keep file itself is not kept: a replay after the swap must not
		 * depend on it */
		put(rw, "upper/etc/unionroot/keep", "/etc/keepme\n");
		stop_at = steps[i];
		env.mode = RESET_FACTORY_KEEPLIST;
		CHECK_INT(branch_prepare(rw, &env, &r, &what), -ECANCELED); /* 125 on x86, 158 on MIPS */
		CHECK(old_or_factory(rw));
		/* the next boot, without union.reset on its command line */
		stop_at = NULL;
		env.mode = RESET_NONE;
		CHECK_INT(branch_prepare(rw, &env, &r, &what), 0);
		if (i < ARRAY_SIZE(steps) - 1)
			CHECK_INT(r.reset_done, 1);
		CHECK(!has(rw, "upper/root/data"));
		CHECK(has(rw, "upper/etc/keepme"));
		CHECK(!has(rw, "upper/etc/unionroot/keep"));
		CHECK(!has(rw, ".unionroot/reset"));
		CHECK(!has(rw, ".unionroot/ready"));
		CHECK(!has(rw, ".unionroot/staging"));
		CHECK_INT(branch_trash_empty(rw), 0);
		close(rw);
	}
}

static void a_swap_cut_between_its_two_renames_is_finished_at_boot(void)
{
	struct branch_result r;
	const char *what;
	int rw = open(unit_tmpdir(), O_RDONLY | O_DIRECTORY);

	CHECK_INT(branch_prepare(rw, NULL, &r, &what), 0);
	/* as a cut leaves it: old upper in the trash, the new one ready */
	CHECK_INT(renameat(rw, "upper", rw, ".unionroot/trash/upper.1.0"), 0);
	CHECK_INT(mkdirat(rw, ".unionroot/ready", 0755), 0);
	put(rw, ".unionroot/ready/marker", "new");
	CHECK_INT(branch_prepare(rw, NULL, &r, &what), 0);
	CHECK_INT(r.recovered, 1);
	CHECK(has(rw, "upper/marker"));
	close(rw);
}

/* OpenWrt's sysupgrade.tgz on the branch sysupgrade flashed: union.upgrade
 * says where it goes, a reset asked for on this boot wins, and an archive
 * on a branch a boot of ours saved, or in failsafe, is left alone. */
static void sysupgrade_goes_where_the_upgrade_policy_says(void)
{
	const char *why;

	CHECK_INT(decide_sysupgrade(0, 0, 0, RESET_OFF, 0, UPGRADE_KEEP, &why), SYSUPGRADE_NONE);
	CHECK(why == NULL);
	CHECK_INT(decide_sysupgrade(1, 0, 0, RESET_OFF, 0, UPGRADE_KEEP, &why), SYSUPGRADE_RESTORE);
	CHECK(strstr(why, "union.upgrade=keep") != NULL);
	CHECK_INT(decide_sysupgrade(1, 0, 0, RESET_OFF, 0, UPGRADE_RESET, &why), SYSUPGRADE_TRASH);
	CHECK(strstr(why, "union.upgrade=reset") != NULL);
	CHECK_INT(decide_sysupgrade(1, 0, 0, RESET_OFF, 0, UPGRADE_KEEPLIST, &why), SYSUPGRADE_KEEPLIST);
	CHECK(strstr(why, "union.upgrade=keeplist") != NULL);
	/* a reset on this boot wins over the policy */
	CHECK_INT(decide_sysupgrade(1, 0, 0, RESET_ON, 0, UPGRADE_KEEP, &why), SYSUPGRADE_TRASH);
	CHECK(strstr(why, "union.reset=1") != NULL);
	CHECK_INT(decide_sysupgrade(1, 0, 0, RESET_KEEP, 0, UPGRADE_RESET, &why), SYSUPGRADE_KEEPLIST);
	CHECK_INT(decide_sysupgrade(1, 0, 0, RESET_OFF, 1, UPGRADE_KEEP, &why), SYSUPGRADE_TRASH);
	CHECK(strstr(why, "pending") != NULL);
	CHECK_INT(decide_sysupgrade(1, 0, 0, RESET_KEEP, 1, UPGRADE_KEEP, &why), SYSUPGRADE_KEEPLIST);
	/* left alone: a branch laid out and saved before, failsafe */
	for (int up = UPGRADE_KEEP; up <= UPGRADE_KEEPLIST; up++) {
		CHECK_INT(decide_sysupgrade(1, 1, 0, RESET_OFF, 0, up, &why), SYSUPGRADE_NONE);
		CHECK(strstr(why, "control state") != NULL);
		CHECK_INT(decide_sysupgrade(1, 0, 1, RESET_ON, 1, up, &why), SYSUPGRADE_NONE);
		CHECK(strstr(why, "failsafe") != NULL);
		CHECK_INT(decide_sysupgrade(0, 1, 1, RESET_ON, 1, up, &why), SYSUPGRADE_NONE);
		CHECK(why == NULL);
	}
}

UNIT_SUITE(reset,
	   { "the control state round-trips; garbage is -EINVAL and a clear state",
	     the_state_round_trips_and_garbage_is_refused },
	   { "an oversized state file is -EFBIG and a clear state; saving replaces it",
	     an_oversized_state_file_is_an_error_and_a_clear_state },
	   { "saving the state it holds writes nothing; a changed state is written",
	     saving_the_same_state_twice_writes_nothing },
	   { "a changed image has another identity", identities_differ_with_the_image },
	   { "keep paths that could leave the root are refused",
	     keep_paths_that_could_leave_the_root_are_refused },
	   { "a reset request round-trips; a damaged one keeps only the keep list",
	     a_reset_request_round_trips_and_a_damaged_one_keeps_the_keep_list_only },
	   { "boot decision: maxfails, counting off, upgrade policies, damaged state",
	     the_boot_decision_counts_fails_and_applies_the_upgrade_policy },
	   { "OpenWrt's sysupgrade.tgz goes where union.upgrade says; a reset wins",
	     sysupgrade_goes_where_the_upgrade_policy_says },
	   { "boot decision: a reset wins over failsafe and restarts the counter",
	     a_reset_is_the_way_out_of_a_failsafe_loop },
	   { "a reset stopped after any step is old or factory; the next boot finishes it",
	     a_reset_stopped_after_any_step_is_old_or_factory_and_finishes_next_time },
	   { "a cut between the two renames of the swap is finished at boot",
	     a_swap_cut_between_its_two_renames_is_finished_at_boot });
