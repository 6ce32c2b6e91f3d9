// SPDX-License-Identifier: MIT
/* The boot-time copy-up step: the image's identity, the facts, the decision,
 * the run. A boot with the same image reads one header line and returns. */
#include "copyup/copyup.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "branch/branch.h"
#include "lib/sbuf.h"
#include "lib/sys.h"

static int stop(const char *name, unsigned char type, void *arg)
{
	(void)name;
	(void)type;
	*(int *)arg = 0;
	return -ECANCELED;
}

static int dir_empty(int rw, const char *name)
{
	int fd = openat(rw, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), empty = 1;

	if (fd < 0)
		return errno == ENOENT;
	IGNORE(sys_dir_each(fd, stop, &empty)); /* stops with -ECANCELED at the first entry */
	close(fd);
	return empty;
}

int copyup_apply(int img, int rw, const char *image_id, int reset, int upgrade,
		 struct copyup_result *res, const char **done)
{
	struct copyup_facts f = { 0, 0, 0, reset, upgrade };
	char old[MF_ID_MAX];
	int state, rc, action;

	memset(res, 0, sizeof(*res));
	state = openat(rw, BRANCH_STATE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (state < 0)
		return -errno;
	rc = manifest_read_id(state, MF_NAME, old, sizeof(old));
	close(state);
	f.manifest = rc == 0 ? 1 : rc == -ENOENT ? 0 : -1;
	f.same_image = rc == 0 && strcmp(old, image_id) == 0;
	f.upper_empty = dir_empty(rw, BRANCH_UPPER);
	action = copyup_choose_action(&f, done);
	if (action == CU_NOTHING)
		return 0;
	return copyup_run(img, rw, action, image_id, res);
}
