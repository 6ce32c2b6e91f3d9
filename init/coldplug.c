// SPDX-License-Identifier: MIT
/* Drivers for devices: the modalias of each device already in /sys/devices
 * that no driver has bound (coldplug: modalias files, not uevent files, one
 * small read a device), queued and loaded in turn; then the MODALIAS= of
 * each uevent at once, on one socket bound before the walk so that no
 * device falls between the two. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boot.h"
#include "lib/log.h"
#include "kmod/modalias.h"
#include "lib/sbuf.h"
#include "lib/strnum.h"
#include "lib/sys.h"
#include "lib/sysx.h"

#define DEPTH_MAX 24
/* a module load emits a burst of uevents; the default 208 KiB of socket
 * buffer overflows under emulation (ENOBUFS: events lost, walk again) */
#define RCVBUF (4 << 20)

#define WAITING_MAX 64

static int sock = -1;

/* The devices present at the start whose driver has not loaded yet, in
 * walk order (DEVPATH form); what is still there when the media are found
 * is left to the real init. */
static struct {
	char path[WAITING_MAX][256];
	unsigned n, next, dropped;
} waiting;

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

	/* links (driver, subsystem, device) lead back up: only directories;
	 * virtual and system devices (ttys, memory blocks, CPUs) sit on no
	 * bus a driver is chosen for, and are most of the tree; every device
	 * has a power/ (and many a wakeup/) of attributes and wakeup sources
	 * only: a third of the directories, each an open under emulation */
	if (type != DT_DIR || w->depth >= DEPTH_MAX || len + 1 + n >= sizeof(w->path) ||
	    str_has_word(w->depth ? "power wakeup" : "virtual system", name))
		return 0;
	fd = sys_openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
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
	sys_close(fd);
	return 0;
}

/* The modalias of the device at path (beneath dir), newline cut, when no
 * driver has bound it yet: its length, or 0. */
static size_t unbound_alias(int dir, const char *path, char *alias, size_t cap)
{
	char sub[320];
	ssize_t n;

	if (strfmt(sub, sizeof(sub), "%s/driver", path) < 0 ||
	    sys_lexists(dir, sub) ||
	    strfmt(sub, sizeof(sub), "%s/modalias", path) < 0)
		return 0;
	n = sys_read_fileat(dir, sub, alias, cap);
	if (n <= 1)
		return 0; /* none, or gone meanwhile */
	alias[n - (alias[n - 1] == '\n')] = '\0';
	return (size_t)n;
}

static void queue(const char *devpath)
{
	for (unsigned i = 0; i < waiting.n; i++)
		if (strcmp(waiting.path[i], devpath) == 0)
			return;
	if (waiting.n == WAITING_MAX ||
	    strcopy(waiting.path[waiting.n], sizeof(waiting.path[0]), devpath) < 0) {
		waiting.dropped++;
		return;
	}
	waiting.n++;
}

static void visit(struct walk *w)
{
	char alias[512], name[64];

	if (unbound_alias(w->dir, ".", alias, sizeof(alias)) &&
	    modules_match(alias, name, sizeof(name)))
		queue(w->path + 4); /* DEVPATH form */
	IGNORE(sys_dir_each(w->dir, enter, w)); /* a vanished directory ends its walk */
}

void modules_coldplug(void)
{
	struct walk w = { .path = "/sys/devices", .len = 12 };
	uint64_t t = sys_now_ms();

	w.dir = sys_open(w.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w.dir < 0)
		return; /* no sysfs: early setup said so already */
	visit(&w);
	sys_close(w.dir);
	if (waiting.dropped)
		log_err("more than %d devices ask for a driver; %u are left to the real init",
			WAITING_MAX, waiting.dropped);
	waiting.dropped = 0;
	log_debug("coldplug: %u device(s) ask for a driver (%llu ms)", waiting.n - waiting.next,
		  (unsigned long long)(sys_now_ms() - t));
}

/* The modalias of waiting device i, when it still has no driver. */
static size_t waiting_alias(unsigned i, char *alias, size_t cap)
{
	char path[sizeof(waiting.path[0]) + 4];

	if (strfmt(path, sizeof(path), "/sys%s", waiting.path[i]) < 0)
		return 0;
	return unbound_alias(AT_FDCWD, path, alias, cap);
}

int modules_coldplug_next(void)
{
	char alias[512];

	while (waiting.next < waiting.n) {
		unsigned i = waiting.next++;

		if (waiting_alias(i, alias, sizeof(alias)) && modules_for_device(alias, waiting.path[i]))
			return 1;
	}
	return 0;
}

static char left[160];

void modules_leave(void)
{
	char alias[512], name[64];
	struct sbuf sb;

	sbuf_init(&sb, left, sizeof(left));
	for (unsigned i = waiting.next; i < waiting.n; i++) {
		if (!waiting_alias(i, alias, sizeof(alias)) || !modules_match(alias, name, sizeof(name)))
			continue;
		log_debug("module %s for %s: left to the real init", name, waiting.path[i]);
		if (!str_has_word(left, name))
			sbuf_addf(&sb, "%s%s", sb.len ? " " : "", name);
	}
	if (sbuf_done(&sb) < 0) /* a cut list still names the first */
		left[sizeof(left) - 1] = '\0';
	if (left[0])
		log_info("drivers left to the real init (union.drivers=boot): %s", left);
	waiting.next = waiting.n;
}

const char *modules_left(void)
{
	return left;
}

int hotplug_socket(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int size = RCVBUF, err;

	if (sock >= 0)
		return sock;
	sock = sys_socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			  NETLINK_KOBJECT_UEVENT);
	if (sock < 0) {
		err = sock;
		sock = -1;
		return err;
	}
	IGNORE(sys_setsockopt(sock, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size))); /* best effort */
	if ((err = sys_bind(sock, (struct sockaddr *)&sa, sizeof(sa))) < 0) {
		sys_close(sock);
		sock = -1;
		return err;
	}
	return sock;
}

void hotplug_drain(int fd)
{
	char buf[2048];
	ssize_t n;

	while ((n = sys_recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) != 0) {
		const char *devpath, *alias;

		if (n == -ENOBUFS) /* events lost: look at sysfs instead */
			modules_coldplug();
		else if (n < 0 && n != -EINTR)
			return;
		if (n < 0)
			continue;
		alias = modalias_of_uevent(buf, (size_t)n, &devpath);
		if (alias)
			modules_for_device(alias, devpath ? devpath : "a new device");
	}
}

void hotplug_close(void)
{
	if (sock >= 0)
		sys_close(sock);
	sock = -1;
}
