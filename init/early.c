// SPDX-License-Identifier: MIT
/* Step 1: the kernel file systems, the console on fds 0-2, and /dev/kmsg. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "lib/log.h"
#include "lib/strnum.h"
#include "lib/sys.h"
#include "lib/sysx.h"

static char saved_modprobe[256];
static char saved_devkmsg[16]; /* the host's setting, under mount-root */

/* Arrays, not pointers: static-pie relocates each pointer at start-up.
 * The source is the type. */
static const struct {
	char dst[6], type[9];
	unsigned char flags;
	char data[10];
} early_mounts[] = {
	{ "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "" },
	{ "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "" },
	{ "/dev", "devtmpfs", MS_NOSUID, "mode=0755" },
	{ "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755" },
};

static void console_fds(void)
{
	int fd = sys_open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		fd = sys_open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	/* the kernel may already have given us fds 0-2; make sure they exist */
	for (int i = 0; i < 3; i++)
		if (sys_fcntl(i, F_GETFD, 0) < 0)
			IGNORE(sys_dup2(fd, i)); /* a missing fd stays missing; nothing to say it on */
	if (fd > 2)
		sys_close(fd);
}

#define PROC_MODPROBE "/proc/sys/kernel/modprobe"
#define PROC_DEVKMSG "/proc/sys/kernel/printk_devkmsg"

/* Writes a kernel tunable. Best effort: every caller only gains speed or
 * log lines from it, so a failure changes nothing else. */
static void set_proc(const char *path, const char *text)
{
	int fd = sys_open(path, O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		IGNORE(sys_write(fd, text, strlen(text))); /* see above */
		sys_close(fd);
	}
}

/* The kernel asks usermode for modules (request_module: "fs-ext4", device
 * aliases) by running /sbin/modprobe, which the initramfs does not have:
 * every such call is a failed exec under emulation. PID 1 loads what is
 * needed itself, so switch the helper off until the hand-off restores it. */
static void request_module_off(void)
{
	if (sys_read_file(PROC_MODPROBE, saved_modprobe, sizeof(saved_modprobe)) > 0)
		set_proc(PROC_MODPROBE, "\n");
}

void early_kmsg_unlimited(void)
{
	ssize_t n = sys_read_file(PROC_DEVKMSG, saved_devkmsg, sizeof(saved_devkmsg) - 1);

	saved_devkmsg[n > 0 ? n : 0] = '\0';
	set_proc(PROC_DEVKMSG, "on\n");
}

void early_restore(void)
{
	if (saved_modprobe[0])
		set_proc(PROC_MODPROBE, saved_modprobe);
	/* what it was (another initramfs's systemd may have it on), else the
	 * kernel's default */
	set_proc(PROC_DEVKMSG, saved_devkmsg[0] ? saved_devkmsg : "ratelimit\n");
}

int early_console_loglevel(void)
{
	char buf[64];
	const char *p = buf;
	uint64_t level;

	if (sys_read_file("/proc/sys/kernel/printk", buf, sizeof(buf)) < 0)
		return 0;
	num_u64(&p, &level);
	return (int)level;
}

void early_setup(struct boot *b)
{
	int failed_mount = -1, err = 0;

	(void)b;
	sys_umask(022);
	for (size_t i = 0; i < ARRAY_SIZE(early_mounts); i++) {
		int rc;

		IGNORE(sys_mkdir(early_mounts[i].dst, 0755)); /* the mount says what is wrong */
		rc = sys_mount(early_mounts[i].type, early_mounts[i].dst, early_mounts[i].type,
			       early_mounts[i].flags,
			       early_mounts[i].data[0] ? early_mounts[i].data : NULL);
		if (rc < 0 && rc != -EBUSY && failed_mount < 0) {
			failed_mount = (int)i;
			err = rc;
		}
	}
	console_fds();
	log_setup(sys_open("/dev/kmsg", O_WRONLY | O_CLOEXEC), 2);
	/* the kernel rate-limits userspace kmsg writes (about 10 records per
	 * 5 s); PID 1 logs every step, so lift the limit until the hand-off */
	early_kmsg_unlimited();
	request_module_off();
	log_set_console_loglevel(early_console_loglevel());
	if (failed_mount >= 0)
		log_err("mounting %s on %s failed: %s; continuing without it",
			early_mounts[failed_mount].type, early_mounts[failed_mount].dst,
			strerror(-err));
}
