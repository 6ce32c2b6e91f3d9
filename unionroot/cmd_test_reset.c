// SPDX-License-Identifier: MIT
/* unionroot test-reset DIR [STEP] [keeplist|factory] [LOWER] (test builds
 * only): runs PID 1's reset on the branch top DIR, as a host test's stand-in
 * for a boot, with LOWER as the image; with STEP dies by SIGKILL right after
 * that step. */
#include "cli.h"

#include <stdio.h>

#ifdef UNIONROOT_CRASHPOINTS
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "branch.h"
#include "crashpoint.h"
#include "reset.h"

static void say(int level, const char *msg, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "unionroot: <%d> %s\n", level, msg);
}

int cmd_test_reset(int argc, char **argv)
{
	struct reset_env env = { RESET_NONE, NULL, 0, crashpoint_hit, say, NULL };
	struct branch_result res;
	const char *what = "";
	int rw, rc;

	if (argc < 2) {
		fprintf(stderr, "usage: unionroot test-reset DIR [STEP|-] [keeplist|factory] [LOWER]\n");
		return 2;
	}
	if (argc > 2 && strcmp(argv[2], "-") != 0 && crashpoint_arm(argv[2], 0) < 0) {
		fprintf(stderr, "unionroot test-reset: unknown step \"%s\" (%s)\n", argv[2], RESET_STEPS);
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
		perror(argv[1]);
		return 1;
	}
	rc = branch_prepare(rw, &env, &res, &what);
	if (rc == 0 && res.reset_done)
		printf("reset applied, %u kept, %u refused\n", res.kept, res.refused);
	if (rc == 0 && res.recovered)
		printf("interrupted reset finished\n");
	if (rc == 0) {
		rc = branch_trash_empty(rw);
		if (res.reset_done)
			IGNORE(crashpoint_hit("trash", NULL)); /* returns unless armed */
	}
	close(rw);
	if (rc < 0) {
		fprintf(stderr, "unionroot test-reset: %s: %s\n", what, strerror(-rc));
		return 1;
	}
	return 0;
}
#else
int cmd_test_reset(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "unionroot: test-reset exists only in test builds\n");
	return 2;
}
#endif
