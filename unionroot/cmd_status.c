// SPDX-License-Identifier: MIT
/* unionroot status: this boot's record from /run/unionroot/status, plus the
 * live usage of the writable branch and a pending reset. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "branch.h"
#include "cli.h"
#include "config.h"
#include "sys.h"

int cmd_status(int argc, char **argv)
{
	static char text[8192];
	struct statvfs vfs;
	struct stat st;
	ssize_t n;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "unionroot status: no options are supported yet\n");
		return 2;
	}
	n = sys_read_file(RUNTIME_DIR "/status", text, sizeof(text));
	if (n < 0) {
		fprintf(stderr, "unionroot status: %s/status: %s (was this system booted by unionroot?)\n",
			RUNTIME_DIR, strerror((int)-n));
		return 1;
	}
	fputs(text, stdout);
	if (statvfs(RUNTIME_RW, &vfs) == 0 && vfs.f_blocks) {
		unsigned long long total = (unsigned long long)vfs.f_blocks * vfs.f_frsize;
		unsigned long long avail = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
		unsigned used_pct = (unsigned)(100 - (100ull * vfs.f_bfree / vfs.f_blocks));

		printf("upper_usage=%u%% used, %llu KiB free of %llu KiB\n", used_pct, avail / 1024,
		       total / 1024);
	}
	printf("reset_pending=%s\n",
	       stat(RUNTIME_RW "/" BRANCH_STATE "/" BRANCH_RESET_REQUEST, &st) == 0 ? "yes" : "no");
	return 0;
}
