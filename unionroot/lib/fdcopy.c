// SPDX-License-Identifier: MIT
/* read/write copy loop with EINTR and short writes handled once. */
#include "lib/fdcopy.h"

#include <errno.h>
#include <unistd.h>

#include "lib/sys.h"

int fd_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int fd_copy(int in, int out, uint64_t n, char *buf, size_t cap,
	    void (*tick)(uint64_t done, void *ctx), void *ctx)
{
	uint64_t done = 0, next = tick ? sys_now_ms() + FDCOPY_TICK_MS : 0;

	while (done < n) {
		size_t want = n - done < cap ? (size_t)(n - done) : cap;
		ssize_t r = read(in, buf, want);
		int rc;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return n == FDCOPY_ALL ? 0 : -EIO; /* shorter than it said */
		rc = fd_write_all(out, buf, (size_t)r);
		if (rc < 0)
			return rc;
		done += (uint64_t)r;
		if (tick && sys_now_ms() >= next) {
			tick(done, ctx);
			next = sys_now_ms() + FDCOPY_TICK_MS;
		}
	}
	return 0;
}
