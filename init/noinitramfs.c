// SPDX-License-Identifier: MIT
/* Without an initramfs (routers that save the flash): the kernel mounted the
 * read-only image as / and ran us as its init. The running root becomes the
 * read-only layer, the union is mounted on the image's empty /newroot, and
 * pivot_root moves into it; the real init is /sbin/init.real unless
 * union.init= says otherwise (never this program again). */
#include <errno.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "boot.h"
#include "lib/log.h"
#include "lib/sbuf.h"
#include "lib/strnum.h"
#include "lib/sys.h"
#include "lib/sysx.h"

#define REAL_INIT "/sbin/init.real"
#define OLDROOT RUNDIR "/oldroot"

static const char *fs_name(long magic)
{
	switch (magic) {
	case SQUASHFS_MAGIC: return "squashfs";
	case EXT4_SUPER_MAGIC: return "ext4";
	case OVERLAYFS_SUPER_MAGIC: return "overlay";
	default: return "root";
	}
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return sys_stat(a, &sa) == 0 && sys_stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* The block device the kernel mounted as / ("/dev/root" in /proc/mounts,
 * a name devtmpfs does not have): the device node whose number is the root's
 * st_dev, named by sysfs. "/" when there is none (a root on an MTD or UBI
 * volume, or no devtmpfs); the layer's identity is then unknown. */
static void root_device(char *out, size_t cap)
{
	char path[64], uevent[512], *name;
	struct stat root, dev;
	ssize_t n;

	IGNORE(strcopy(out, cap, "/")); /* fits */
	if (sys_stat("/", &root) < 0 || major(root.st_dev) == 0)
		return;
	IGNORE(strfmt(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", major(root.st_dev),
		      minor(root.st_dev))); /* fits */
	n = sys_read_file(path, uevent, sizeof(uevent) - 1);
	if (n <= 0)
		return;
	uevent[n] = '\0';
	name = str_find(uevent, "DEVNAME=");
	if (!name || (name != uevent && name[-1] != '\n'))
		return;
	name += strlen("DEVNAME=");
	name[strcspn(name, "\n")] = '\0';
	if (!name[0] || str_find(name, ".."))
		return;
	IGNORE(strfmt(path, sizeof(path), "/dev/%s", name)); /* a long name fails the stat below */
	if (sys_stat(path, &dev) == 0 && S_ISBLK(dev.st_mode) && dev.st_rdev == root.st_dev &&
	    strcopy(out, cap, path) < 0)
		IGNORE(strcopy(out, cap, "/")); /* fits */
}

/* Runs the real init on the root as it is; for when no union can be built. */
static NORETURN void plain_root(struct boot *b, const char *why)
{
	char *argv[] = { (char *)b->cfg.init, NULL };

	log_err("%s; starting %s on the read-only root without a writable branch", why,
		b->cfg.init);
	watchdog_stop();
	early_restore();
	IGNORE(sys_execve(b->cfg.init, argv, b->envp)); /* rescue_fatal says it */
	rescue_fatal(b, "no real init to start on the read-only root");
}

void noinitramfs_setup(struct boot *b)
{
	struct statfs sfs;
	struct stat st;

	/* f_type is a signed word in 32-bit glibc, where ramfs' magic is negative */
	if (sys_statfs("/", &sfs) < 0 || (unsigned long)sfs.f_type == RAMFS_MAGIC ||
	    (unsigned long)sfs.f_type == TMPFS_MAGIC)
		return; /* an initramfs: the normal path */
	b->pivot = 1;
	if (!b->cfg.init[0] || same_file(b->cfg.init, "/proc/self/exe")) {
		if (b->cfg.init[0])
			log_warn("init=%s is unionroot itself; the real init is %s", b->cfg.init,
				 REAL_INIT);
		IGNORE(strcopy(b->cfg.init, sizeof(b->cfg.init), REAL_INIT)); /* fits */
	}
	if (sfs.f_type == OVERLAYFS_SUPER_MAGIC)
		plain_root(b, "the root is a union already (unionroot ran twice?)");
	if (sys_stat(NEWROOT, &st) < 0 || !S_ISDIR(st.st_mode))
		plain_root(b, "the root image has no empty " NEWROOT " directory to build the union on");
	/* the running root is the one read-only layer: root= and union.lower=
	 * named what the kernel mounted already */
	memset(&b->lower[0], 0, sizeof(b->lower[0]));
	b->lower[0].kind = SPEC_DEV;
	b->lower[0].deadline = -1;
	IGNORE(strcopy(b->lower[0].value, sizeof(b->lower[0].value), "/")); /* fits */
	root_device(b->lower_dev[0], sizeof(b->lower_dev[0]));
	IGNORE(strcopy(b->lower_type[0], sizeof(b->lower_type[0]), fs_name((long)sfs.f_type)));
	b->nlower = 1;
	log_info("no initramfs: the running %s root is the read-only layer; pivot_root into the union, then %s",
		 b->lower_type[0], b->cfg.init);
}

int noinitramfs_lower(const char *dir)
{
	int rc = sys_mkdir_p(dir, 0755);

	/* a bind of / alone (not its submounts: /proc, /run, ...), read-only */
	if (rc == 0)
		rc = sys_mount("/", dir, NULL, MS_BIND, NULL);
	if (rc == 0)
		rc = sys_remount(dir, MS_BIND | MS_RDONLY, 0);
	return rc;
}

int noinitramfs_switch(void)
{
	int rc;

	/* /dev /proc /sys /run are in the new root already; the old root goes
	 * under /run for pivot_root, then away: its bind at lower/0 stays */
	rc = sys_mkdir_p(NEWROOT OLDROOT, 0700);
	if (rc == 0)
		rc = sys_chdir(NEWROOT);
	if (rc == 0)
		rc = sys_pivot_root(".", "." OLDROOT);
	if (rc == 0)
		rc = sys_chdir("/");
	if (rc < 0)
		return rc;
	if ((rc = sys_umount2(OLDROOT, MNT_DETACH)) < 0)
		log_warn("detaching the old root from %s failed: %s", OLDROOT, strerror(-rc));
	else if ((rc = sys_unlinkat(AT_FDCWD, OLDROOT, AT_REMOVEDIR)) < 0)
		log_warn("removing %s failed: %s", OLDROOT, strerror(-rc));
	return 0;
}
