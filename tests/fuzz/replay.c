// SPDX-License-Identifier: MIT
/* A libFuzzer target without libFuzzer: each input of the corpus folders (or
 * files) named on the command line goes once through LLVMFuzzerTestOneInput,
 * cut to the fuzz runs' -max_len as libFuzzer cuts it. Linked with one
 * tests/fuzz/fuzz_X.c by any C compiler, so the corpus runs where clang's
 * runtime does not: a cross build under qemu-user (tests/host/bigendian.sh).
 * A target's check traps, which kills the process; a clean run ends with
 * "replayed N inputs" and exit code 0. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_LEN 32768 /* tests/fuzz/run's -max_len */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long replayed;

/* one input, in a buffer of its own size so that a read past it is one */
static int replay_file(const char *path)
{
	static uint8_t buf[MAX_LEN];
	FILE *f = fopen(path, "rb");
	uint8_t *exact;
	size_t n;

	if (!f) {
		fprintf(stderr, "replay: %s: cannot read\n", path);
		return -1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	exact = malloc(n ? n : 1);
	if (!exact)
		return -1;
	memcpy(exact, buf, n);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	replayed++;
	return 0;
}

static int replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];
	int rc = 0;

	if (!d) {
		fprintf(stderr, "replay: %s: cannot open\n", dir);
		return -1;
	}
	while ((e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && replay_file(path) < 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: %s: no such file or folder\n", argv[i]);
			rc = 1;
		} else if ((S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i])) < 0) {
			rc = 1;
		}
	}
	printf("replayed %lu inputs\n", replayed);
	return rc;
}
