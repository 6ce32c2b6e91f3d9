// SPDX-License-Identifier: MIT
/* The order of a shutdown, from the status record: a layer is unmounted
 * before the device under it is detached (a LUKS container closed before
 * its loop), a device before its medium. */
#include "plan/shutdown_order.h"

#include <errno.h>
#include <string.h>

#include "lib/sbuf.h"

static int add(struct shutdown_step *steps, size_t cap, int *n, int what, const char *path)
{
	if ((size_t)*n >= cap)
		return -ENOSPC;
	steps[*n].what = what;
	return strcopy(steps[(*n)++].path, sizeof(steps->path), path);
}

#define PREFIXED(s, prefix) (strncmp(s, prefix, sizeof(prefix) - 1) == 0)

/* A layer's device: a loop is detached, dm-verity's is removed by the name
 * PID 1 gave it (a build without dm-verity made none), a disk stays as it
 * is. */
static int device(struct shutdown_step *steps, size_t cap, int *n, const char *dev, unsigned layer)
{
	if (PREFIXED(dev, "/dev/loop"))
		return add(steps, cap, n, SHUTDOWN_LOOP, dev);
#ifndef UNIONROOT_NO_VERITY
	if (layer && PREFIXED(dev, "/dev/dm-")) {
		char name[sizeof(steps->path)];

		return strfmt(name, sizeof(name), RUN_VERITY_DM_FMT, layer) < 0 ? -ENAMETOOLONG :
		       add(steps, cap, n, SHUTDOWN_DM, name);
	}
#endif
	(void)layer;
	return 0;
}

int shutdown_order(const struct runstate *rs, struct shutdown_step *steps, size_t cap)
{
	int n = 0, rc = 0;

	if (rs->upper_kind != RUNSTATE_UPPER_NONE)
		rc = add(steps, cap, &n, SHUTDOWN_UMOUNT, RWDIR);
	if (rc == 0 && rs->saved)
		rc = add(steps, cap, &n, SHUTDOWN_UMOUNT, SAVEDIR);
	if (rc == 0 && rs->upper_kind == RUNSTATE_UPPER_DEVICE && *(rs->upper_luks ? rs->upper_luks : ""))
		rc = add(steps, cap, &n, SHUTDOWN_DM, RUN_CRYPT_DM); /* then the container's own device */
	if (rc == 0 && rs->upper_kind == RUNSTATE_UPPER_DEVICE)
		rc = device(steps, cap, &n, *(rs->upper_luks ? rs->upper_luks : "") ? rs->upper_luks : rs->upper_dev,
			    0);
	for (unsigned i = rs->nlower; rc == 0 && i-- > 0;) {
		char dir[sizeof(steps->path)];

		rc = strfmt(dir, sizeof(dir), RUN_LOWER_FMT, i);
		if (rc == 0)
			rc = add(steps, cap, &n, SHUTDOWN_UMOUNT, dir);
		if (rc == 0)
			rc = device(steps, cap, &n, rs->lower[i].dev, i + 1);
	}
	return rc < 0 ? rc : n;
}

static unsigned depth(const char *path)
{
	unsigned d = 0;

	for (; *path; path++)
		d += *path == '/';
	return d;
}

void shutdown_deepest_first(const char **mounts, size_t n)
{
	/* mountinfo lists a mount after the one it is on: reversed, an
	 * insertion sort by depth keeps that order within one depth */
	for (size_t i = 0; i < n / 2; i++) {
		const char *t = mounts[i];

		mounts[i] = mounts[n - 1 - i];
		mounts[n - 1 - i] = t;
	}
	for (size_t i = 1; i < n; i++) {
		const char *m = mounts[i];
		size_t j = i;

		for (; j > 0 && depth(mounts[j - 1]) < depth(m); j--)
			mounts[j] = mounts[j - 1];
		mounts[j] = m;
	}
}
