// SPDX-License-Identifier: MIT
/* DHCP over a UDP socket bound to the NIC (SO_BINDTODEVICE), the broadcast
 * flag set so that the server's answers reach an interface without an
 * address: DISCOVER, OFFER, REQUEST, ACK (net/dhcp.c builds and reads
 * them), sent anew at 1, 2, 4, 4... seconds, all under the deadline. */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include "boot.h"
#include "lib/log.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"
#include "net/dhcp.h"
#include "steps.h"

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The NIC's MAC address from sysfs: 0 or -EINVAL. */
static int read_mac(const char *dev, uint8_t mac[6])
{
	char path[64], text[32];

	if (strfmt(path, sizeof(path), "/sys/class/net/%s/address", dev) < 0 ||
	    sys_read_file(path, text, sizeof(text)) < 17)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		int hi = hexval(text[i * 3]), lo = hexval(text[i * 3 + 1]);

		if (hi < 0 || lo < 0 || (i < 5 && text[i * 3 + 2] != ':'))
			return -EINVAL;
		mac[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

static int dhcp_socket(const char *dev)
{
	struct sockaddr_in me = { .sin_family = AF_INET, .sin_port = htons(68) };
	int one = 1, rc, fd = sys_socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return fd;
	if ((rc = sys_setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one))) < 0 ||
	    (rc = sys_setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one))) < 0 ||
	    (rc = sys_setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev, (socklen_t)strlen(dev) + 1)) < 0 ||
	    (rc = sys_bind(fd, (struct sockaddr *)&me, sizeof(me))) < 0) {
		sys_close(fd);
		return rc;
	}
	return fd;
}

static int send_msg(int fd, const struct dhcp_client *c, int type, const struct dhcp_lease *offer)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(67),
				  .sin_addr.s_addr = htonl(0xffffffffu) };
	uint8_t pkt[DHCP_MAX_LEN];
	int n = dhcp_build(pkt, sizeof(pkt), c, type, offer ? offer->yiaddr : 0,
			   offer ? offer->server_id : 0);
	ssize_t rc;

	if (n < 0)
		return n;
	rc = sys_sendto(fd, pkt, (size_t)n, 0, (struct sockaddr *)&to, sizeof(to));
	return rc < 0 ? (int)rc : 0;
}

/* Waits until until_ms for a reply of type want (an ACK's NAK too): 1 with
 * *l, 0 none in time, -errno. */
static int await(int fd, const struct dhcp_client *c, int want, uint64_t until_ms, struct dhcp_lease *l)
{
	static uint8_t pkt[1500];
	uint64_t now;

	while ((now = sys_now_ms()) < until_ms) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int rc = sys_poll(&p, 1, (int)(until_ms - now > 1000 ? 1000 : until_ms - now));

		if (rc < 0 && rc != -EINTR)
			return rc;
		if (rc <= 0)
			continue;
		n = sys_recv(fd, pkt, sizeof(pkt), MSG_DONTWAIT);
		if (n < 0)
			continue;
		rc = dhcp_parse(pkt, (size_t)n, c, l);
		if (rc == -EBADMSG)
			log_warn("network: a malformed DHCP reply: %s; ignoring it", l->why);
		if (rc == 0 && (l->type == want || (want == DHCP_ACK && l->type == DHCP_NAK)))
			return 1;
	}
	return 0;
}

/* One DISCOVER-to-ACK exchange: 1 with the lease, 0 no answer in time. */
static int exchange(int fd, const struct dhcp_client *c, uint64_t end, unsigned *sent,
		    struct dhcp_lease *l)
{
	static struct dhcp_lease offer;
	unsigned wait_ms = 1000;
	int rc;

	for (;;) {
		uint64_t now = sys_now_ms(), until = now + wait_ms < end ? now + wait_ms : end;

		if (now >= end)
			return 0;
		if ((rc = send_msg(fd, c, DHCP_DISCOVER, NULL)) < 0)
			return rc;
		(*sent)++;
		wait_ms = wait_ms < 4000 ? wait_ms * 2 : 4000;
		if ((rc = await(fd, c, DHCP_OFFER, until, &offer)) <= 0) {
			if (rc < 0)
				return rc;
			continue;
		}
		if ((rc = send_msg(fd, c, DHCP_REQUEST, &offer)) < 0)
			return rc;
		until = sys_now_ms() + 4000 < end ? sys_now_ms() + 4000 : end;
		if ((rc = await(fd, c, DHCP_ACK, until, l)) < 0)
			return rc;
		if (rc && l->type == DHCP_ACK && l->yiaddr)
			return 1;
		if (rc)
			log_warn("network: the DHCP server refused its offer (NAK); asking anew");
	}
}

int net_dhcp(struct boot *b, uint64_t end, struct dhcp_lease *l, char *why, size_t cap)
{
	struct dhcp_client c = { .hostname = NULL };
	unsigned sent = 0;
	int fd, rc;

	if (read_mac(b->net_dev, c.mac) < 0) {
		IGNORE(strfmt(why, cap, "network: %s has no readable MAC address", b->net_dev));
		return -EINVAL;
	}
	c.xid = (uint32_t)sys_now_ms() ^ (uint32_t)c.mac[2] << 24 ^ (uint32_t)c.mac[3] << 16 ^
		(uint32_t)c.mac[4] << 8 ^ c.mac[5];
	fd = dhcp_socket(b->net_dev);
	if (fd < 0) {
		IGNORE(strfmt(why, cap, "network: a DHCP socket on %s failed: %s", b->net_dev, strerror(-fd)));
		return fd;
	}
	rc = exchange(fd, &c, end, &sent, l);
	sys_close(fd);
	if (rc < 0)
		IGNORE(strfmt(why, cap, "network: DHCP on %s failed: %s", b->net_dev, strerror(-rc)));
	else if (rc == 0)
		IGNORE(strfmt(why, cap, "network: no DHCP lease on %s by the deadline (%u DISCOVERs sent)",
			      b->net_dev, sent));
	return rc < 0 ? rc : rc ? 0 : -ETIMEDOUT;
}
