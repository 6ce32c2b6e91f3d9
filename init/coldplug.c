// SPDX-License-Identifier: MIT
/* Drivers for devices: the modalias of each device already in /sys/devices
 * that no driver has bound (coldplug: modalias files, not uevent files, one
 * small read a device), then the MODALIAS= of each uevent, on one socket
 * bound before the walk so that no device falls between the two. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boot.h"
#include "modalias.h"
#include "sys.h"

#define DEPTH_MAX 24
/* a module load emits a burst of uevents; the default 208 KiB of socket
 * buffer overflows under emulation (ENOBUFS: events lost, walk again) */
#define RCVBUF (4 << 20)

static int sock = -1;

struct walk {
	char path[512]; /* "/sys/devices/..." of dir */
	size_t len;
	unsigned depth;
	int dir;
};

static void visit(struct walk *w);

static int enter(const char *name, unsigned char type, void *ctx)
{
	struct walk *w = ctx;
	size_t len = w->len, n = strlen(name);
	int parent = w->dir, fd;

	/* links (driver, subsystem, device) lead back up: only directories */
	if (type != DT_DIR || w->depth >= DEPTH_MAX || len + 1 + n >= sizeof(w->path))
		return 0;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0; /* gone meanwhile: its uevent said remove */
	w->path[len] = '/';
	memcpy(w->path + len + 1, name, n + 1);
	w->len = len + 1 + n;
	w->dir = fd;
	w->depth++;
	visit(w);
	w->depth--;
	w->dir = parent;
	w->len = len;
	w->path[len] = '\0';
	close(fd);
	return 0;
}

static void visit(struct walk *w)
{
	char alias[512];
	ssize_t n;

	if (faccessat(w->dir, "driver", F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
		n = sys_read_fileat(w->dir, "modalias", alias, sizeof(alias));
		if (n > 1) {
			alias[n - (alias[n - 1] == '\n')] = '\0';
			modules_for_device(alias, w->path + 4); /* DEVPATH form */
		}
	}
	IGNORE(sys_dir_each(w->dir, enter, w)); /* a vanished directory ends its walk */
}

void modules_coldplug(void)
{
	struct walk w = { .path = "/sys/devices", .len = 12 };

	w.dir = open(w.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w.dir < 0)
		return; /* no sysfs: early setup said so already */
	visit(&w);
	close(w.dir);
}

int hotplug_socket(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int size = RCVBUF, err;

	if (sock >= 0)
		return sock;
	sock = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		      NETLINK_KOBJECT_UEVENT);
	if (sock < 0)
		return -errno;
	(void)setsockopt(sock, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)); /* best effort */
	if (bind(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		close(sock);
		sock = -1;
		return err;
	}
	return sock;
}

void hotplug_drain(int fd)
{
	char buf[2048];
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) != 0) {
		const char *devpath, *alias;

		if (n < 0) {
			if (errno == ENOBUFS) /* events lost: look at sysfs instead */
				modules_coldplug();
			if (errno != EINTR && errno != ENOBUFS)
				return;
			continue;
		}
		alias = modalias_of_uevent(buf, (size_t)n, &devpath);
		if (alias)
			modules_for_device(alias, devpath ? devpath : "a new device");
	}
}

void hotplug_close(void)
{
	if (sock >= 0)
		close(sock);
	sock = -1;
}
