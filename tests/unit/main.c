// SPDX-License-Identifier: MIT
/* Unit-test runner: runs every suite of suites.h (or those named on the
 * command line) and prints PASS/FAIL lines the test runner counts. */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* build/host/unit-init names its own list (init_suites.h) */
#ifndef UNIT_SUITES
#define UNIT_SUITES "suites.h"
#endif

#define SUITE(id) extern const struct unit_suite unit_suite_##id;
#include UNIT_SUITES
#undef SUITE

static const struct unit_suite *const suites[] = {
#define SUITE(id) &unit_suite_##id,
#include UNIT_SUITES
#undef SUITE
};

static int failed_now;
static const char *skipped_now;
static char tmpdir[256];

void unit_skip(const char *why)
{
	skipped_now = why;
}

int unit_has_openat2(void)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC };
	long fd = syscall(SYS_openat2, AT_FDCWD, ".", &how, sizeof(how));

	if (fd >= 0)
		close((int)fd);
	return fd >= 0 || errno != ENOSYS;
}

void unit_fail(const char *file, int line, const char *what)
{
	unit_failf(file, line, "CHECK(%s)", what);
}

void unit_failf(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	failed_now = 1;
	printf("  %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

const char *unit_tmpdir(void)
{
	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "%s/unionroot-unit-XXXXXX",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(tmpdir)) {
			perror("mkdtemp");
			exit(2);
		}
	}
	return tmpdir;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int wanted(const char *name, int argc, char **argv)
{
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned pass = 0, fail = 0, skip = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t s = 0; s < sizeof(suites) / sizeof(suites[0]); s++) {
		const struct unit_suite *su = suites[s];

		if (!wanted(su->name, argc, argv))
			continue;
		for (unsigned i = 0; i < su->count; i++) {
			failed_now = 0;
			skipped_now = NULL;
			su->cases[i].fn();
			if (tmpdir[0]) {
				nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
				tmpdir[0] = 0;
			}
			if (skipped_now && !failed_now) {
				printf("SKIP unit/%s: %s: %s\n", su->name, su->cases[i].name,
				       skipped_now);
				skip++;
				continue;
			}
			printf("%s unit/%s: %s\n", failed_now ? "FAIL" : "PASS",
			       su->name, su->cases[i].name);
			if (failed_now)
				fail++;
			else
				pass++;
		}
	}
	printf("unit: %u passed, %u failed, %u skipped\n", pass, fail, skip);
	return fail ? 1 : 0;
}
