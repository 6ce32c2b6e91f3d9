// SPDX-License-Identifier: MIT
/* An nbd: export on a kernel nbd device, a read-only layer's or the
 * writable branch's: a TCP connection,
 * the fixed newstyle handshake (net/nbd.c, fed what the server sends), then
 * the ioctl interface (NBD_SET_BLKSIZE, NBD_SET_SIZE, NBD_SET_FLAGS,
 * NBD_SET_SOCK) and a child of PID 1 that holds NBD_DO_IT for as long as
 * the device serves. The ioctls, not the nbd genetlink family: no netlink
 * family to resolve nor attributes to build in PID 1, and every kernel has
 * them; the child is the price, named with '@' so that systemd's final
 * kill spares it. The layer then reads /dev/nbdN as any device. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "boot.h"
#include "conf/specvar.h"
#include "lib/log.h"
#include "lib/sbuf.h"
#include "lib/strnum.h"
#include "lib/sys.h"
#include "lib/sysx.h"
#include "net/nbd.h"
#include "steps.h"

/* linux/nbd.h's ioctls; its flag names are net/nbd.h's too */
#define NBD_SET_SOCK _IO(0xab, 0)
#define NBD_SET_BLKSIZE _IO(0xab, 1)
#define NBD_SET_SIZE _IO(0xab, 2)
#define NBD_DO_IT _IO(0xab, 3)
#define NBD_SET_SIZE_BLOCKS _IO(0xab, 7)
#define NBD_CLEAR_SOCK _IO(0xab, 4)
#define NBD_CLEAR_QUE _IO(0xab, 5)
#define NBD_SET_FLAGS _IO(0xab, 10)
#define NBD_SET_TIMEOUT _IO(0xab, 9)
/* A writable branch's request unanswered this long fails (EIO), and its
 * ext4 turns read-only as on a worn card: a server gone without a word
 * (a network lost, a forwarder that never passes the close on) would
 * otherwise hang every writer. A read-only layer keeps no timeout. */
#define NBD_UPPER_TIMEOUT_S 20

int net_dial(uint32_t addr, unsigned port, uint64_t end)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(addr) };
	uint64_t now = sys_now_ms();
	unsigned left = end <= now ? 1 : end - now > 3600000 ? 3600000 : (unsigned)(end - now);
	struct timeval tv = { .tv_sec = left / 1000, .tv_usec = (left % 1000) * 1000 };
	int one = 1, rc, fd = sys_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return fd;
	/* connect(2) and the handshake's reads and writes end at the deadline */
	IGNORE(sys_setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)));
	IGNORE(sys_setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	IGNORE(sys_setsockopt(fd, IPPROTO_TCP, 1 /* TCP_NODELAY */, &one, sizeof(one)));
	while ((rc = sys_connect(fd, (struct sockaddr *)&to, sizeof(to))) == -EINTR)
		;
	if (rc < 0) {
		sys_close(fd);
		return rc == -EINPROGRESS ? -ETIMEDOUT : rc;
	}
	return fd;
}

/* The handshake over fd: 0 with h's export, or -errno with h->why. */
static int handshake(int fd, struct nbd_hs *h)
{
	static uint8_t buf[4096];
	size_t have = 0, off = 0, used, len;
	int rc = NBD_WANT;

	while (rc != NBD_DONE) {
		const uint8_t *out;
		ssize_t n;

		rc = nbd_feed(h, buf + off, have - off, &used);
		off += used;
		if (rc < 0)
			return rc;
		if (rc == NBD_SEND) {
			out = nbd_output(h, &len);
			if (sys_write(fd, out, len) != (ssize_t)len) {
				IGNORE(strcopy(h->why, sizeof(h->why), "the server stopped taking what was sent"));
				return -EPIPE;
			}
			continue;
		}
		if (rc == NBD_DONE)
			break;
		off = 0;
		n = sys_read(fd, buf, sizeof(buf));
		if (n == 0)
			return nbd_eof(h);
		if (n < 0) {
			IGNORE(strfmt(h->why, sizeof(h->why), "reading from the server: %s",
				      n == -EAGAIN ? "no answer by the deadline" : strerror((int)-n)));
			return (int)n;
		}
		have = (size_t)n;
	}
	return 0;
}

/* The child that serves the device: NBD_DO_IT returns when the connection
 * ends; then the device lets go. Named "@unionroot-nbd". */
static NORETURN void serve(struct boot *b, int dev)
{
	if (b->argv && b->argv[0] && b->argv[0][0])
		b->argv[0][0] = '@';
	IGNORE(sys_prctl(15 /* PR_SET_NAME */, (unsigned long)"unionroot-nbd"));
	IGNORE(sys_ioctl(dev, NBD_DO_IT, 0));
	IGNORE(sys_ioctl(dev, NBD_CLEAR_QUE, 0));
	IGNORE(sys_ioctl(dev, NBD_CLEAR_SOCK, 0));
	sys_exit(0);
}

/* /dev/nbdN given the export and fd: 0, or -errno with why. */
static int attach(struct boot *b, unsigned n, int fd, const struct nbd_hs *h, uint64_t end, unsigned timeout_s,
		  char *why, size_t cap)
{
	char path[24], size[32];
	/* a 32-bit board's unsigned long holds no size over 4 GiB: blocks then */
	int big = h->size > (unsigned long)-1, dev, rc;
	unsigned long bytes = big ? (unsigned long)(h->size / 512) : (unsigned long)h->size;
	pid_t pid;

	IGNORE(strfmt(path, sizeof(path), "/dev/nbd%u", n)); /* fits */
	while ((dev = sys_open(path, O_RDWR | O_CLOEXEC)) == -ENOENT && sys_now_ms() < end)
		sys_sleep_ms(50); /* devtmpfs makes the node once nbd is loaded */
	if (dev < 0) {
		IGNORE(strfmt(why, cap, "%s cannot be opened: %s (no nbd driver?)", path, strerror(-dev)));
		return dev;
	}
	if ((rc = sys_ioctl(dev, NBD_SET_BLKSIZE, (void *)512ul)) < 0 ||
	    (rc = sys_ioctl(dev, big ? NBD_SET_SIZE_BLOCKS : NBD_SET_SIZE, (void *)bytes)) < 0 ||
	    (rc = sys_ioctl(dev, NBD_SET_FLAGS, (void *)(unsigned long)h->flags)) < 0 ||
	    (timeout_s && (rc = sys_ioctl(dev, NBD_SET_TIMEOUT, (void *)(unsigned long)timeout_s)) < 0) ||
	    (rc = sys_ioctl(dev, NBD_SET_SOCK, (void *)(long)fd)) < 0) {
		IGNORE(strfmt(why, cap, "%s refused the export: %s", path, strerror(-rc)));
		sys_close(dev);
		return rc;
	}
	pid = sys_fork();
	if (pid == 0)
		serve(b, dev);
	sys_close(dev);
	if (pid < 0) {
		IGNORE(strfmt(why, cap, "no process to serve %s: %s", path, strerror(-pid)));
		return pid;
	}
	/* the size shows once NBD_DO_IT has started the device */
	IGNORE(strfmt(path, sizeof(path), "/sys/block/nbd%u/size", n)); /* fits */
	for (;;) {
		if (sys_read_file(path, size, sizeof(size)) > 0 && size[0] != '0')
			return 0;
		if (sys_now_ms() >= end)
			break;
		sys_sleep_ms(20);
	}
	IGNORE(strfmt(why, cap, "/dev/nbd%u shows no size by the deadline (NBD_DO_IT did not start it)", n));
	return -ETIMEDOUT;
}

/* The export of SPEC s (its ${mac} and ${hostname} put in, into value) on
 * /dev/nbdN, for role ("read-only layer 1", "writable branch"): a writable
 * branch wants the export writable, and its I/O to fail after a server's
 * silence (no FIN comes through a lost network) rather than hang; 0, or
 * -errno with why. */
static int connect_export(struct boot *b, const char *role, const struct spec *s, unsigned n, int writable,
			  char *value, size_t cap, struct step_out *o)
{
	static struct nbd_hs h;
	const struct specvar_vals vars = { b->net_mac, b->net_host };
	uint64_t end = net_deadline(b);
	const char *name;
	uint32_t addr;
	unsigned port;
	int fd, rc;

	if (specvar_expand(s->value, &vars, value, cap, h.why, sizeof(h.why)) < 0) {
		IGNORE(strfmt(o->why, sizeof(o->why), "%s: nbd:%s: %s", role, s->value, h.why));
		return -EINVAL;
	}
	if (spec_nbd_split(value, &addr, &port, &name) < 0 || nbd_start(&h, name) < 0) {
		IGNORE(strfmt(o->why, sizeof(o->why), "%s: %s", role, SPEC_NBD_WHY));
		return -EINVAL;
	}
	watchdog_phase(end == UINT64_MAX ? 0 : (unsigned)((end - sys_now_ms()) / 1000) + WD_MARGIN_S,
		       "connecting to nbd:%s", value);
	fd = net_dial(addr, port, end);
	if (fd < 0) {
		IGNORE(strfmt(o->why, sizeof(o->why), "%s: nbd server %s unreachable: %s", role, value,
			      fd == -EAGAIN || fd == -EINPROGRESS ? "no answer by the deadline" : strerror(-fd)));
		return fd;
	}
	rc = handshake(fd, &h);
	if (rc == 0 && writable && (h.flags & NBD_FLAG_READ_ONLY)) {
		IGNORE(strcopy(h.why, sizeof(h.why), "the server exports it read-only, and a writable branch needs it writable"));
		rc = -EROFS;
	}
	if (rc == 0)
		rc = attach(b, n, fd, &h, end, writable ? NBD_UPPER_TIMEOUT_S : 0, h.why, sizeof(h.why));
	sys_close(fd);
	if (rc < 0) {
		IGNORE(strfmt(o->why, sizeof(o->why), "%s: nbd:%s: %s", role, value, h.why));
		return rc;
	}
	log_info("%s: nbd:%s is /dev/nbd%u (%llu bytes%s)", role, value, n, (unsigned long long)h.size,
		 h.flags & NBD_FLAG_READ_ONLY ? ", read-only" : "");
	return 0;
}

int step_nbd(struct boot *b, unsigned layer, struct step_out *o)
{
	static char value[SPEC_VALUE_MAX], role[24];
	const struct spec *s = &b->lower[layer - 1];
	unsigned n = 0;
	int rc;

	for (unsigned i = 0; i + 1 < layer; i++)
		n += b->facts.nbd_done >> i & 1;
	IGNORE(strfmt(role, sizeof(role), "read-only layer %u", layer)); /* fits */
	IGNORE(strfmt(b->lower_via[layer - 1], sizeof(b->lower_via[0]), "nbd:%s over %s", s->value,
		      b->net_text)); /* a cut text still names the server */
	rc = connect_export(b, role, s, n, 0, value, sizeof(value), o);
	if (rc < 0)
		return rc;
	IGNORE(strfmt(b->lower_via[layer - 1], sizeof(b->lower_via[0]), "nbd:%s over %s", value,
		      b->net_text)); /* a cut text still names the server */
	/* from here the layer is a device as any other; its SPEC stays in the
	 * configuration for the plan and the status */
	IGNORE(strfmt(b->lower[layer - 1].value, sizeof(b->lower[0].value), "/dev/nbd%u", n)); /* fits */
	b->lower[layer - 1].kind = SPEC_DEV;
	return 0;
}

int step_nbd_upper(struct boot *b, struct step_out *o)
{
	static char value[SPEC_VALUE_MAX];
	unsigned n = (unsigned)__builtin_popcount(b->facts.nbd_done); /* the layers' come first */
	int rc;

	o->step = STEP_FIND; /* an export not had is a disk not found: union.onfail */
	rc = connect_export(b, "writable branch", &b->cfg.upper_spec, n, 1, value, sizeof(value), o);
	if (rc < 0)
		return rc;
	IGNORE(strfmt(b->upper_via, sizeof(b->upper_via), "nbd:%s over %s", value,
		      b->net_text)); /* a cut text still names the server */
	/* the wait finds the device in the SPEC's place, which the
	 * configuration keeps for the plan and the status */
	b->upper_net = b->cfg.upper_spec;
	b->upper_net.kind = SPEC_DEV;
	IGNORE(strfmt(b->upper_net.value, sizeof(b->upper_net.value), "/dev/nbd%u", n)); /* fits */
	return 0;
}
