// SPDX-License-Identifier: MIT
/* A live medium on a whole disk reached without claiming the disk
 * (media_reach decides): through its partition at sector 0, or a read-only
 * loop device over the disk, so that another partition of it can be mounted. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "boot.h"
#include "lib/log.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"
#include "media/loopdev.h"
#include "media/media.h"

int reach_start(struct boot *b, const struct blkdev *d, struct reach *r)
{
	struct loopdev ld;
	int fd;

	r->d = d;
	r->loop = -1;
	r->loop_path[0] = '\0';
	r->how = media_reach(&b->devs, d, &r->use);
	r->path = r->use->path;
	if (r->how != REACH_LOOP)
		return 0;
	fd = sys_open(d->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fd;
	modules_for_need(NEED_LOOP);
	/* autoclear: the loop lets go of the disk when the medium is
	 * unmounted, and detaches at reach_end when nothing mounted it */
	r->loop = loop_attach(fd, LOOP_AUTOCLEAR, &ld);
	sys_close(fd);
	if (r->loop < 0)
		return r->loop;
	IGNORE(strcopy(r->loop_path, sizeof(r->loop_path), ld.path)); /* same size */
	r->path = r->loop_path;
	return 0;
}

void reach_end(struct reach *r, const char *role, int rc)
{
	if (r->loop >= 0)
		sys_close(r->loop); /* a mount holds the device now; without one it detaches */
	r->loop = -1;
	if (r->how == REACH_DEVICE)
		return;
	if (rc < 0 && r->how == REACH_LOOP && !r->loop_path[0]) {
		log_err("%s: %s holds %s on the whole disk and a partition table; a read-only loop device over it cannot be made: %s",
			role, r->d->path, r->d->info.type, strerror(-rc));
		return;
	}
	if (rc < 0)
		return; /* the mount's own message says why */
	log_info("%s: %s holds %s on the whole disk and a partition table%s%s%s, so that the disk's other partitions can be mounted",
		 role, r->d->path, r->d->info.type, r->how == REACH_PARTITION ? "; using partition " :
		 ", and no partition starts with it; reading it through read-only ", r->path,
		 r->how == REACH_PARTITION ? ", which starts at the disk's first sector and covers it" : "");
}
