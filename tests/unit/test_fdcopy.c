// SPDX-License-Identifier: MIT
/* fd_copy: whole files, exact lengths, and an input shorter than promised. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "lib/fdcopy.h"
#include "unit.h"

static int scratch(const char *name, int flags)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", unit_tmpdir(), name);
	return open(path, flags | O_CLOEXEC, 0600);
}

static void a_file_larger_than_the_buffer_arrives_whole(void)
{
	char data[10000], back[10001], buf[333];
	int in, out;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7);
	in = scratch("in", O_RDWR | O_CREAT);
	CHECK(in >= 0);
	CHECK_INT(write(in, data, sizeof(data)), sizeof(data));
	CHECK_INT(lseek(in, 0, SEEK_SET), 0);
	out = scratch("out", O_RDWR | O_CREAT);
	CHECK_INT(fd_copy(in, out, FDCOPY_ALL, buf, sizeof(buf), NULL, NULL), 0);
	CHECK_INT(pread(out, back, sizeof(back), 0), sizeof(data));
	CHECK(memcmp(back, data, sizeof(data)) == 0);
	close(in);
	close(out);
}

static void a_length_copies_that_much_and_no_more(void)
{
	char buf[64], back[32];
	int in = scratch("in", O_RDWR | O_CREAT), out = scratch("out", O_RDWR | O_CREAT);

	CHECK_INT(write(in, "0123456789", 10), 10);
	CHECK_INT(lseek(in, 0, SEEK_SET), 0);
	CHECK_INT(fd_copy(in, out, 4, buf, sizeof(buf), NULL, NULL), 0);
	CHECK_INT(pread(out, back, sizeof(back), 0), 4);
	CHECK(memcmp(back, "0123", 4) == 0);
	close(in);
	close(out);
}

static void an_input_shorter_than_promised_is_an_error(void)
{
	char buf[64];
	int in = scratch("in", O_RDWR | O_CREAT), out = scratch("out", O_RDWR | O_CREAT);

	CHECK_INT(write(in, "abc", 3), 3);
	CHECK_INT(lseek(in, 0, SEEK_SET), 0);
	CHECK_INT(fd_copy(in, out, 10, buf, sizeof(buf), NULL, NULL), -EIO);
	CHECK_INT(fd_copy(in, -1, FDCOPY_ALL, buf, sizeof(buf), NULL, NULL), 0); /* at EOF: nothing to write */
	CHECK_INT(lseek(in, 0, SEEK_SET), 0);
	CHECK_INT(fd_copy(in, -1, FDCOPY_ALL, buf, sizeof(buf), NULL, NULL), -EBADF);
	close(in);
	close(out);
}

UNIT_SUITE(fdcopy,
	   { "a file larger than the buffer arrives whole", a_file_larger_than_the_buffer_arrives_whole },
	   { "a length copies that much and no more", a_length_copies_that_much_and_no_more },
	   { "an input shorter than promised is an error", an_input_shorter_than_promised_is_an_error });
