// SPDX-License-Identifier: MIT
/* Step 3's module pack: a board built with PACK= carries its modules in one
 * squashfs, lib/modules/VERSION/modules.pack, beside loop and squashfs
 * themselves and what the board keeps outside it. The kernel unpacks the
 * initramfs at every boot at the cost of every byte in it; packed, a large
 * pool costs its compressed size there, and a boot decompresses only the
 * modules it loads. init/modules.c mounts the pack (read-only, through a
 * loop device) when it first wants a module in it; the cleaner unmounts it
 * after the switch (init/handoff.c), out of the real init's way, and the
 * loop then lets go of its file. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "lib/log.h"
#include "media/loopdev.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"

static char mnt[160]; /* where the pack is mounted; "" when it is not */

int modpack_mount(const char *dir)
{
	char file[160];
	struct loopdev ld;
	int fd, loop = -1, made, rc = -ENAMETOOLONG;

	if (strfmt(file, sizeof(file), "%s/modules.pack", dir) < 0 ||
	    strfmt(mnt, sizeof(mnt), "%s/pack", dir) < 0)
		goto out;
	fd = sys_open(file, O_RDONLY | O_CLOEXEC);
	rc = fd < 0 ? fd : 0;
	/* autoclear: the loop lets go of the file when the pack is unmounted */
	if (rc == 0)
		rc = loop = loop_attach(fd, LOOP_AUTOCLEAR, &ld);
	if (fd >= 0)
		sys_close(fd);
	if (rc >= 0 && (made = sys_mkdir(mnt, 0755)) < 0 && made != -EEXIST)
		rc = made;
	if (rc >= 0)
		rc = sys_mount(ld.path, mnt, "squashfs", MS_RDONLY | MS_NOSUID | MS_NODEV, NULL);
	if (loop >= 0)
		sys_close(loop); /* the mount holds the device now; without one it detaches */
out:
	if (rc < 0) {
		log_err("mounting the module pack %s failed: %s; only the modules outside it load",
			file, strerror(-rc));
		mnt[0] = '\0';
		return rc;
	}
	log_debug("modules: the pack is mounted from %s", ld.path);
	return 1;
}

int modpack_open(const char *rel)
{
	char path[320];
	if (!mnt[0])
		return -ENOENT;
	if (strfmt(path, sizeof(path), "%s/%s", mnt, rel) < 0)
		return -ENAMETOOLONG;
	return sys_open(path, O_RDONLY | O_CLOEXEC);
}

void modpack_release(int root)
{
	/* after the switch the pack is reached from the old root, relative */
	int rc;

	if (!mnt[0] || sys_fchdir(root) < 0)
		return; /* the memory stays in use, nothing worse */
	/* nothing keeps a module file open: finit_module has read it */
	if ((rc = sys_umount2(mnt + 1, 0)) < 0) {
		log_warn("unmounting the module pack %s failed: %s; detaching it", mnt,
			 strerror(-rc));
		IGNORE(sys_umount2(mnt + 1, MNT_DETACH)); /* the memory stays in use then, nothing worse */
	}
	IGNORE(sys_chdir("/")); /* the new root's, which exists */
	mnt[0] = '\0';
}
