// SPDX-License-Identifier: MIT
/* The end of a session: /run/initramfs/shutdown. systemd-shutdown switches
 * root into /run/initramfs (the old root at /oldroot) and runs it as PID 1;
 * a busybox or sysvinit root runs it as its last act, and it pivots there
 * itself. It unmounts the old root, the union's layers and their devices in
 * the order the status record gives, then the media, within a bounded time,
 * and reboots, powers off or halts. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot.h"
#include "lib/log.h"
#include "lib/mountinfo.h"
#include "lib/runstate.h"
#include "lib/sys.h"
#include "lib/sysx.h"
#include "media/dm.h"
#include "media/loopdev.h"
#include "plan/shutdown_order.h"

#define OLDROOT "/oldroot"
/* a medium that hangs must not keep the machine from its power-off */
#define SHUTDOWN_DEADLINE_S "20"
#define SHUTDOWN_DEADLINE_MS 20000
#define MOUNTS_MAX 256
#define LOOP_FREE_MS 3000 /* a loop's autoclear, run from a work queue */
#define NBD_DISCONNECT _IO(0xab, 8) /* linux/nbd.h */

static const struct action {
	char name[9];
	int how;
} actions[] = {
	{ "reboot", RB_AUTOBOOT },
	{ "poweroff", RB_POWER_OFF },
	{ "halt", RB_HALT_SYSTEM },
	{ "kexec", RB_KEXEC },
};

static unsigned left; /* the mounts left mounted, read-only or not */

/* Run by hand: into /run/initramfs as systemd-shutdown does. pivot_root
 * moves every process whose root is the old root, so no root keeps the
 * union busy. 0 when there already, or -errno. */
static int enter(void)
{
	struct stat root, old;
	int rc;

	if (sys_fstatat(AT_FDCWD, "/", &root, 0) == 0 &&
	    sys_fstatat(AT_FDCWD, OLDROOT, &old, 0) == 0 && old.st_dev != root.st_dev)
		return 0;
	if ((rc = sys_mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) < 0 ||
	    (rc = sys_mount(RUN_INITRAMFS, RUN_INITRAMFS, NULL, MS_BIND, NULL)) < 0 ||
	    (rc = sys_chdir(RUN_INITRAMFS)) < 0 || (rc = sys_pivot_root(".", "." OLDROOT)) < 0 ||
	    (rc = sys_chroot(".")) < 0)
		return rc;
	return sys_chdir("/");
}

/* Our own /dev, /proc and /sys (where the nbd devices still serving are
 * found once all is unmounted), and the console from there: the old
 * root's /dev stays busy while fds 0-2 hold its console. */
static void own_mounts(void)
{
	int fd;

	IGNORE(sys_mount("devtmpfs", "/dev", "devtmpfs", 0, NULL)); /* over systemd's bind, or its dir */
	IGNORE(sys_mount("proc", "/proc", "proc", 0, NULL));
	IGNORE(sys_mount("sysfs", "/sys", "sysfs", 0, NULL)); /* without it no nbd device leaves its server */
	fd = sys_open("/dev/console", O_RDWR | O_NOCTTY);
	for (int i = 0; fd >= 0 && i < 3; i++)
		IGNORE(sys_dup2(fd, i)); /* the old one stays: lines still reach a console */
	if (fd > 2)
		sys_close(fd);
}

/* Unmounts path; a mount that stays is remounted read-only, in one line.
 * A file system without data (devtmpfs, proc, sysfs) that is busy (a loop
 * over a disk's node holds the old root's /dev) is detached lazily. */
static void release(const char *path, const char *type)
{
	int rc = sys_umount2(path, 0), ro;

	if (rc == -EBUSY && type && (strcmp(type, "devtmpfs") == 0 || strcmp(type, "proc") == 0 ||
				      strcmp(type, "sysfs") == 0))
		rc = sys_umount2(path, MNT_DETACH);
	if (rc == 0 || rc == -EINVAL || rc == -ENOENT) /* EINVAL: not mounted (any more) */
		return;
	left++;
	ro = sys_remount(path, MS_RDONLY, 0);
	log_warn("shutdown: cannot unmount %s: %s; it stays mounted%s", path, strerror(-rc),
		 ro == 0 ? " read-only" : ", read-write");
}

/* Every mount under top, and top itself if whole, deepest first. */
static void release_under(const char *top, int whole)
{
	static char text[65536];
	static struct mountinfo m[MOUNTS_MAX + 1];
	const char *mounts[MOUNTS_MAX];
	size_t n = 0, len = strlen(top);
	ssize_t got = sys_read_file("/proc/self/mountinfo", text, sizeof(text) - 1);
	char *pos = text;

	if (got < 0) {
		log_err("shutdown: /proc/self/mountinfo: %s; %s stays mounted", strerror((int)-got), top);
		return;
	}
	text[got] = '\0';
	while (n < MOUNTS_MAX && mountinfo_next(&pos, &m[n]))
		if (strncmp(m[n].target, top, len) == 0 &&
		    (m[n].target[len] == '/' || (m[n].target[len] == '\0' && whole))) {
			mounts[n] = m[n].target;
			n++;
		}
	shutdown_deepest_first(mounts, n);
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		while (k + 1 < n && m[k].target != mounts[i]) /* its type and source */
			k++;
		release(mounts[i], m[k].type);
		/* a loop under it (an ISO file on a stick) is let go, and the
		 * medium below it is unmounted once the kernel has done so */
		if (strncmp(m[k].source, "/dev/loop", 9) == 0 && loop_detach(m[k].source) == 0)
			IGNORE(loop_wait_free(m[k].source, LOOP_FREE_MS));
	}
}

/* The union's layers and devices, in the status record's order. */
static void release_layers(void)
{
	static struct runstate rs;
	static char text[RECORD_MAX + RECORD_TAIL_MAX];
	static struct shutdown_step steps[SHUTDOWN_STEPS_MAX];
	char why[128];
	ssize_t got = sys_read_file(RUN_STATUS, text, sizeof(text) - 1);
	int n = got < 0 ? (int)got : 0;

	if (n == 0) {
		text[got] = '\0';
		n = runstate_parse(text, &rs, why, sizeof(why));
		if (n == 0)
			n = shutdown_order(&rs, steps, ARRAY_SIZE(steps));
	}
	if (n < 0)
		log_err("shutdown: %s: %s; unmounting the rest", RUN_STATUS, strerror(-n));
	for (int i = 0; i < n; i++) {
		int rc = 0;

		if (steps[i].what == SHUTDOWN_UMOUNT) {
			/* first read-only: an ext4 that the overlay still holds is clean then */
			IGNORE(sys_remount(steps[i].path, MS_RDONLY, 0));
			release(steps[i].path, NULL);
		} else if (steps[i].what == SHUTDOWN_LOOP) {
			/* its medium is unmounted next: once the loop has let go */
			rc = loop_detach(steps[i].path);
			if (rc == 0)
				rc = loop_wait_free(steps[i].path, LOOP_FREE_MS);
		} else {
			rc = dm_remove(steps[i].path);
		}
		if (rc < 0 && rc != -ENXIO && rc != -ENODEV && rc != -ENOENT)
			log_warn("shutdown: cannot detach %s: %s", steps[i].path, strerror(-rc));
	}
}

/* Every process but ours and those named with '@', which systemd spares
 * too: an nbd device's server (init/net_nbd.c), whose end would take the
 * device away before the file systems on it are unmounted. */
static int kill_one(const char *name, unsigned char type, void *ctx)
{
	char path[32], first = 0;
	pid_t pid = 0;
	int fd;

	(void)type;
	for (const char *p = name; *p; p++) {
		if (*p < '0' || *p > '9' || pid > 99999999)
			return 0;
		pid = pid * 10 + (*p - '0');
	}
	if (pid <= 1 || pid == *(const pid_t *)ctx)
		return 0;
	IGNORE(strfmt(path, sizeof(path), "/proc/%d/cmdline", pid)); /* fits */
	fd = sys_open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		IGNORE(sys_read(fd, &first, 1)); /* a kernel thread's is empty */
		sys_close(fd);
	}
	if (first != '@')
		IGNORE(sys_kill(pid, SIGKILL)); /* gone already, or a kernel thread */
	return 0;
}

static void kill_the_rest(void)
{
	pid_t me = getpid();
	int dir = sys_open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dir < 0) {
		IGNORE(sys_kill(-1, SIGKILL)); /* no /proc: every process then */
		return;
	}
	IGNORE(sys_dir_each(dir, kill_one, &me)); /* a process that ends meanwhile is skipped */
	sys_close(dir);
}

/* Once nothing is mounted on them: each nbd device still serving says
 * goodbye to its server (NBD_CMD_DISC), and its server process ends. */
static int disconnect_nbd(const char *name, unsigned char type, void *ctx)
{
	char path[48];
	int fd, rc;

	(void)type;
	(void)ctx;
	if (strncmp(name, "nbd", 3) != 0 || strlen(name) > 8 ||
	    strfmt(path, sizeof(path), "/sys/block/%s/pid", name) < 0 || !sys_lexists(AT_FDCWD, path))
		return 0; /* not an nbd device, or not serving */
	IGNORE(strfmt(path, sizeof(path), "/dev/%s", name)); /* fits */
	fd = sys_open(path, O_RDWR | O_CLOEXEC);
	rc = fd < 0 ? fd : sys_ioctl(fd, NBD_DISCONNECT, 0);
	if (fd >= 0)
		sys_close(fd);
	if (rc < 0)
		log_warn("shutdown: %s cannot leave its server: %s", path, strerror(-rc));
	else
		log_note("shutdown: %s left its server", path);
	return 0;
}

static void disconnect_all(void)
{
	int dir = sys_open("/sys/block", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dir < 0)
		return; /* no sysfs: no nbd device to know of */
	IGNORE(sys_dir_each(dir, disconnect_nbd, NULL)); /* a device that goes meanwhile is skipped */
	sys_close(dir);
}

/* In a child, so that a hung unmount cannot hold up the power-off. */
static void unmount_all(void)
{
	int rc;

	/* MS_MOVE refuses a mount under a shared one */
	IGNORE(sys_mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	rc = sys_mount(OLDROOT "/run", "/run", NULL, MS_MOVE, NULL);
	if (rc < 0)
		log_err("shutdown: moving " OLDROOT "/run failed: %s; the union stays mounted", strerror(-rc));
	release_under(OLDROOT, 1);
	if (rc == 0) {
		release_layers();
		/* /run itself stays: run by hand, this program's file holds it */
		release_under("/run", 0);
	}
	disconnect_all();
	sys_power(0);
	if (left == 0)
		log_note("shutdown: the union and its media are unmounted");
	sys_exit(0);
}

static void wait_bounded(pid_t pid)
{
	for (unsigned ms = 0; ms < SHUTDOWN_DEADLINE_MS; ms += 50) {
		pid_t r;

		while ((r = sys_waitpid(-1, NULL, WNOHANG)) > 0)
			if (r == pid)
				return;
		if (r < 0)
			return;
		sys_sleep_ms(50);
	}
	log_err("shutdown: unmounting took over " SHUTDOWN_DEADLINE_S " s; going on without it");
}

NORETURN void shutdown_main(int argc, char **argv)
{
	const struct action *a = NULL;
	int rc;
	pid_t pid;

	for (size_t i = 0; i < ARRAY_SIZE(actions); i++)
		if (argc > 1 && strcmp(argv[1], actions[i].name) == 0)
			a = &actions[i];
	if (!a) {
		a = &actions[1];
		log_err("shutdown: unknown action \"%s\"; powering off", argc > 1 ? argv[1] : "");
	}
	rc = enter();
	if (rc < 0)
		log_err("shutdown: switching into %s failed: %s; the union stays mounted", RUN_INITRAMFS,
			strerror(-rc));
	log_note("shutdown: unmounting the union before %s", a->name);
	own_mounts();
	kill_the_rest(); /* what the root's own shutdown left running */
	sys_sleep_ms(100);             /* their files close as they exit */
	pid = rc < 0 ? -1 : sys_fork();
	if (pid == 0)
		unmount_all();
	if (pid > 0)
		wait_bounded(pid);
	sys_power(a->how);
	sys_power(RB_AUTOBOOT); /* kexec without a loaded kernel */
	for (;;)
		sys_sleep_ms(3600 * 1000);
}
