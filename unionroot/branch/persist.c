// SPDX-License-Identifier: MIT
/* Finds the branch a reset request or the boot counter must reach, and lets
 * a failsafe or kiosk boot write to it for a moment. */
#include "branch/persist.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "lib/runstate.h"
#include "lib/sys.h"

static int on_tmpfs(int fd)
{
	struct statfs sfs;

	return fstatfs(fd, &sfs) == 0 && sfs.f_type == TMPFS_MAGIC;
}

int persist_open(struct persist *p)
{
	p->remounted = 0;
	/* saved/ is a directory of /run itself when keeping the branch there
	 * failed: a tmpfs, like rw/ in a volatile boot */
	p->dir = SAVEDIR;
	p->fd = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->fd >= 0 && !on_tmpfs(p->fd)) {
		p->volatile_only = 0;
		return 0;
	}
	if (p->fd >= 0)
		close(p->fd);
	p->dir = RWDIR;
	p->fd = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->fd < 0)
		return -errno;
	p->volatile_only = on_tmpfs(p->fd);
	return 0;
}

int persist_writable(struct persist *p)
{
	int rc;

	if (!fd_readonly(p->fd))
		return 0;
	rc = sys_remount(p->dir, 0, MS_RDONLY);
	p->remounted = rc == 0;
	return rc;
}

int persist_close(struct persist *p)
{
	close(p->fd);
	p->fd = -1;
	return p->remounted ? sys_remount(p->dir, MS_RDONLY, 0) : 0;
}
