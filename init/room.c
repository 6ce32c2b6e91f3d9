// SPDX-License-Identifier: MIT
/* Room on the writable branch at boot: the reserve a full branch gives up so
 * that this boot can still write (its state, a reset request, work/), the
 * union.warnfull warning, and a new reserve once there is room again. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "boot.h"
#include "branch/branch.h"
#include "lib/log.h"
#include "branch/reserve.h"
#include "lib/sysx.h"

struct room {
	uint64_t total, free; /* bytes, as root sees them */
	int no_inodes;
	int used_percent;
};

static int room_of(int rw, struct room *r)
{
	struct statfs vfs;

	if (sys_fstatfs(rw, &vfs) < 0 || !vfs.f_blocks)
		return -1;
	r->total = (uint64_t)vfs.f_blocks * vfs.f_frsize;
	r->free = (uint64_t)vfs.f_bfree * vfs.f_frsize;
	r->no_inodes = vfs.f_files && !vfs.f_ffree; /* jffs2 counts no inodes */
	r->used_percent = fs_used_percent(&vfs);
	return 0;
}

int room_used_percent(int rw)
{
	struct room r;

	return room_of(rw, &r) < 0 ? -1 : r.used_percent;
}

/* Makes a reserve of size in .unionroot/, or gives it up (size 0): as
 * reserve_make and reserve_release; 0 on a new branch, which has none yet. */
static int reserve_in(int rw, uint64_t size)
{
	int state = sys_openat(rw, BRANCH_STATE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0), rc;

	if (state < 0)
		return 0;
	rc = size ? reserve_make(state, size) : reserve_release(state);
	sys_close(state);
	return rc;
}

void room_at_mount(struct boot *b, int rw)
{
	struct room r;
	uint64_t size;
	int rc;

	if (room_of(rw, &r) < 0)
		return;
	size = reserve_size(r.total);
	if (r.free >= size && !r.no_inodes)
		return;
	rc = reserve_in(rw, 0);
	if (rc > 0)
		log_warn("writable branch %s is full: gave up its reserve of %llu KiB so that this boot can still write; free space or reset",
			 b->upper_dev, (unsigned long long)(size / 1024));
	else if (rc < 0)
		log_warn("writable branch %s is full and giving up its reserve failed: %s; booting on without it",
			 b->upper_dev, strerror(-rc));
}

void room_after_boot(struct boot *b, int rw)
{
	struct room r;
	uint64_t size;
	int rc;

	if (room_of(rw, &r) < 0)
		return;
	if (r.used_percent >= b->cfg.warnfull)
		log_warn("writable branch %s is %d%% full (union.warnfull=%d); writes fail when it is full: free space or reset",
			 b->upper_dev, r.used_percent, b->cfg.warnfull);
	/* a reserve only where it leaves as much again free */
	size = reserve_size(r.total);
	if (r.free < 2 * size)
		return;
	rc = reserve_in(rw, size);
	if (rc > 0)
		log_info("writable branch %s: set %llu KiB aside for when it fills up (.unionroot/reserve)",
			 b->upper_dev, (unsigned long long)(size / 1024));
	else if (rc < 0)
		log_warn("writable branch %s: setting a reserve aside failed: %s; booting on without one",
			 b->upper_dev, strerror(-rc));
}
