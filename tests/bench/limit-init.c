// SPDX-License-Identifier: MIT
/* The bench's physical limit: a static /init that loads the modules this boot
 * needs (/etc/load-modules, in load order), polls for the disks, mounts
 * squashfs + ext4 + overlay and switches root. No checks, no fallbacks: what
 * remains of its boot is the kernel's own work. Never shipped. */
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef LIMIT_ONE_DISK /* qemu-mipsel: one IDE disk, the squashfs and the data in partitions 1 and 2 */
#define LOWER "/dev/sda1"
#define DATA "/dev/sda2"
#else
#define LOWER "/dev/vda"
#define DATA "/dev/vdb"
#endif

int main(void)
{
	static char list[8192];
	char *line, *save = NULL;
	int fd;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	fd = open("/etc/load-modules", O_RDONLY);
	if (fd >= 0 && read(fd, list, sizeof(list) - 1) > 0)
		for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			int m = open(line, O_RDONLY | O_CLOEXEC);

			syscall(SYS_finit_module, m, "", 0);
			close(m);
		}
	while (access(LOWER, F_OK) != 0 || access(DATA, F_OK) != 0)
		usleep(1000);
	mkdir("/lower", 0755);
	mkdir("/rw", 0755);
	mount(LOWER, "/lower", "squashfs", MS_RDONLY, NULL);
	mount(DATA, "/rw", "ext4", MS_NOATIME, NULL);
	mkdir("/rw/upper", 0755);
	mkdir("/rw/work", 0755);
	mount("overlay", "/newroot", "overlay", 0,
	      "lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work,index=off,"
	      "redirect_dir=nofollow,metacopy=off,xino=off,nfs_export=off");
	mount("/dev", "/newroot/dev", NULL, MS_MOVE, NULL);
	mount("/proc", "/newroot/proc", NULL, MS_MOVE, NULL);
	chdir("/newroot");
	mount(".", "/", NULL, MS_MOVE, NULL);
	chroot(".");
	execl("/sbin/init", "/sbin/init", (char *)NULL);
	return 1;
}
