/* SPDX-License-Identifier: MIT */
/* Copying between file descriptors through a caller's buffer, with an
 * optional progress callback (the runtime copy of the binary, union.toram). */
#ifndef UNIONROOT_FDCOPY_H
#define UNIONROOT_FDCOPY_H

#include <stddef.h>
#include <stdint.h>

#include "lib/defs.h"

#define FDCOPY_ALL UINT64_MAX
#define FDCOPY_TICK_MS 2000

/* Copies n bytes (FDCOPY_ALL: to the end of in) from in to out; tick, when
 * not NULL, hears the bytes done every FDCOPY_TICK_MS. 0, -EIO when in ends
 * before n bytes, or -errno. */
/* Writes all n bytes, past short writes and EINTR: 0 or -errno. */
int fd_write_all(int fd, const char *p, size_t n) WUR;
int fd_copy(int in, int out, uint64_t n, char *buf, size_t cap,
	    void (*tick)(uint64_t done, void *ctx), void *ctx) WUR;

#endif
