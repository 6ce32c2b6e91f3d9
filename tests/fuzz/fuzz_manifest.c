// SPDX-License-Identifier: MIT
/* libFuzzer target for the copy-up manifest, which lives on the writable
 * branch and so is untrusted: the input is a whole manifest file, read by
 * mreader (header, records, checksummed end line) to its end or its first
 * error, once as it is and once with a correct end line appended (so that
 * mutated records get past the checksum); and its first line alone through
 * mf_parse, where every record that parses must format and parse back to the
 * same record. */
#include "copyup/manifest.h"
#include "lib/chash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int dir = -1;

static void roundtrip(const uint8_t *data, size_t size)
{
	static struct mrec a, b;
	static char line[MF_LINE_MAX + 2];
	const uint8_t *nl = memchr(data, '\n', size);
	size_t len = nl ? (size_t)(nl - data) : size;
	const char *why = NULL;
	int n;

	memset(&a, 0, sizeof(a));
	if (mf_parse((const char *)data, len, &a, &why) < 0) {
		if (!why || strlen(why) >= MF_ERR_MAX)
			__builtin_trap(); /* every refusal says why, briefly */
		return;
	}
	n = mf_format(&a, line, sizeof(line));
	if (n <= 0 || line[n - 1] != '\n')
		__builtin_trap();
	memset(&b, 0, sizeof(b));
	if (mf_parse(line, (size_t)n - 1, &b, &why) < 0 || memcmp(&a, &b, sizeof(a)) != 0)
		__builtin_trap();
}

/* Writes the file and reads it through; traps on what must not happen. */
static void read_through(const uint8_t *data, size_t size, const char *tail, size_t tlen)
{
	static struct mreader r;
	char prev[MF_PATH_MAX];
	int fd, rc;

	fd = openat(dir, MF_NAME, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size ||
	    write(fd, tail, tlen) != (ssize_t)tlen)
		abort();
	close(fd);
	rc = mreader_open(&r, dir, MF_NAME);
	if (rc < 0) {
		if ((rc == -EBADMSG && !r.err[0]) || r.map)
			__builtin_trap(); /* named with a reason, nothing left mapped */
		return;
	}
	prev[0] = '\0';
	for (int first = 1; r.have; first = 0) {
		/* what the reader hands out is in tree order, whatever the file says */
		if (!first && mf_path_cmp(prev, r.cur.path) >= 0)
			__builtin_trap();
		memcpy(prev, r.cur.path, sizeof(prev));
		rc = mreader_next(&r);
		if (rc < 0 && !r.err[0])
			__builtin_trap();
		if (rc <= 0)
			break;
	}
	mreader_close(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char tail[80];
	size_t lines = 0;
	int n;

	roundtrip(data, size);
	if (dir < 0) {
		char tmpl[] = "/dev/shm/fuzz-manifest.XXXXXX"; /* tmpfs: no disk I/O */

		if (!mkdtemp(tmpl))
			abort();
		dir = open(tmpl, O_RDONLY | O_DIRECTORY);
		if (dir < 0)
			abort();
	}
	read_through(data, size, "", 0);
	if (size == 0 || data[size - 1] != '\n')
		return 0;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	/* header and image lines are no records */
	n = snprintf(tail, sizeof(tail), "end %zu %llx\n", lines > 2 ? lines - 2 : 0,
		     (unsigned long long)chash_buf(data, size));
	read_through(data, size, tail, (size_t)n);
	return 0;
}
