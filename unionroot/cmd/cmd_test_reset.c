// SPDX-License-Identifier: MIT
/* unionroot test-reset DIR [STEP] [keeplist|factory] [LOWER] (test builds
 * only): runs PID 1's reset on the branch top DIR, as a host test's stand-in
 * for a boot, with LOWER as the image; with STEP dies by SIGKILL right after
 * that step. test-reserve DIR make|release does the boot's reserve step there. */
#include "cmd/cli.h"
#include "cmd/out.h"


#ifdef UNIONROOT_CRASHPOINTS
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "branch/branch.h"
#include "branch/crashpoint.h"
#include "branch/reserve.h"
#include "branch/reset.h"

static void say(int level, const char *msg, void *ctx)
{
	(void)ctx;
	out_err("unionroot: <%d> %s\n", level, msg);
}

int cmd_test_reset(int argc, char **argv)
{
	struct reset_env env = { RESET_NONE, NULL, 0, crashpoint_hit, say, NULL };
	struct branch_result res;
	const char *what = "";
	int rw, rc;

	if (argc < 2)
		return cli_usage("test-reset", NULL);
	if (argc > 2 && strcmp(argv[2], "-") != 0 && crashpoint_arm(argv[2], 0) < 0) {
		out_err("unionroot test-reset: unknown step \"%s\" (%s)\n", argv[2], RESET_STEPS);
		return 2;
	}
	if (argc > 3)
		env.mode = strcmp(argv[3], "keeplist") == 0 ? RESET_FACTORY_KEEPLIST : RESET_FACTORY;
	if (argc > 4) {
		env.lowers = (const char *const *)&argv[4];
		env.nlower = 1;
	}
	rw = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rw < 0) {
		out_err("%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	rc = branch_prepare(rw, &env, &res, &what);
	if (rc == 0 && res.reset_done)
		out("reset applied, %u kept, %u refused\n", res.kept, res.refused);
	if (rc == 0 && res.recovered)
		out("interrupted reset finished\n");
	if (rc == 0) {
		rc = branch_trash_empty(rw);
		if (res.reset_done)
			IGNORE(crashpoint_hit("trash", NULL)); /* returns unless armed */
	}
	close(rw);
	if (rc < 0) {
		out_err("unionroot test-reset: %s: %s\n", what, strerror(-rc));
		return 1;
	}
	return 0;
}

int cmd_test_reserve(int argc, char **argv)
{
	struct statfs vfs;
	int state, make, rc;

	if (argc != 3 || (strcmp(argv[2], "make") != 0 && strcmp(argv[2], "release") != 0))
		return cli_usage("test-reserve", NULL);
	make = strcmp(argv[2], "make") == 0;
	state = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (state >= 0) {
		int top = state;

		state = openat(top, BRANCH_STATE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(top);
	}
	if (state < 0 || fstatfs(state, &vfs) < 0) {
		out_err("%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	rc = make ? reserve_make(state, reserve_size((uint64_t)vfs.f_blocks * vfs.f_frsize)) :
		    reserve_release(state);
	close(state);
	if (rc < 0) {
		out_err("unionroot test-reserve: %s: %s\n", argv[2], strerror(-rc));
		return 1;
	}
	out("reserve %s\n", rc == 0 ? "unchanged" : make ? "made" : "released");
	return 0;
}
#else
int cmd_test_reset(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	out_err("unionroot: test-reset exists only in test builds\n");
	return 2;
}

int cmd_test_reserve(int argc, char **argv)
{
	return cmd_test_reset(argc, argv);
}
#endif
