/* SPDX-License-Identifier: MIT */
/* A DHCP client's messages (RFC 2131, options RFC 2132) as klibc's ipconfig
 * sends and reads them, the lease as the kernel's ip= and initramfs-tools'
 * net-DEVICE.conf, and the ip= parameter itself. Buffers only, no I/O. */
#ifndef UNIONROOT_DHCP_H
#define UNIONROOT_DHCP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/defs.h"

#define DHCP_MIN_LEN 300   /* a BOOTP message, padded (RFC 951) */
#define DHCP_MAX_LEN 576   /* what we send at most, and what we ask for */
#define DHCP_STR_MAX 256   /* an option's 255 bytes and a NUL */
#define DHCP_DNS_MAX 3

enum dhcp_type {
	DHCP_DISCOVER = 1,
	DHCP_OFFER = 2,
	DHCP_REQUEST = 3,
	DHCP_ACK = 5,
	DHCP_NAK = 6,
};

struct dhcp_client {
	uint8_t mac[6];
	uint32_t xid;
	const char *hostname;     /* option 12 when not NULL nor "" */
};

/* Addresses in host order; 0 where the reply had none. */
struct dhcp_lease {
	uint8_t type;             /* DHCP_OFFER, DHCP_ACK or DHCP_NAK */
	uint32_t yiaddr, siaddr, server_id;
	uint32_t netmask, router, broadcast;
	uint32_t dns[DHCP_DNS_MAX];
	unsigned ndns;
	uint32_t lease_secs, renew_secs, rebind_secs;
	uint16_t mtu;
	char hostname[DHCP_STR_MAX], domain[DHCP_STR_MAX], root_path[DHCP_STR_MAX];
	char boot_file[DHCP_STR_MAX]; /* option 67, else the file field */
	char why[64];             /* the reason of the last rejection */
};

/* A DISCOVER (type DHCP_DISCOVER) or a selecting state's REQUEST
 * (DHCP_REQUEST, with requested_ip and server_id in host order) into buf
 * of cap bytes, at least DHCP_MIN_LEN: its length, or -ENOBUFS (cap too
 * small), -EINVAL (another type, a host name over 255 bytes). */
int dhcp_build(uint8_t *buf, size_t cap, const struct dhcp_client *c, int type,
	       uint32_t requested_ip, uint32_t server_id) WUR;

/* A reply of len bytes into *out: 0, or -ENOMSG when it is not ours (not
 * a reply, another xid or MAC: keep listening), -EBADMSG when it is ours
 * and malformed; out->why says which in one line either way. */
int dhcp_parse(const uint8_t *pkt, size_t len, const struct dhcp_client *c,
	       struct dhcp_lease *out) WUR;

/* ---- dhcp_text.c ---- */
/* The lease as the kernel's ip= value ("client:server:gw:netmask:host:
 * device:off:dns0:dns1", no "ip=") and as initramfs-tools' net-DEVICE.conf
 * lines, klibc ipconfig's names and quoting. 0, -ENAMETOOLONG (buf holds
 * a prefix), -EINVAL (a value the form cannot carry: a ':' in ip=, a
 * quote in the file). dhcp: the lease came by DHCP, not from ip=. */
int dhcp_lease_ipparam(const struct dhcp_lease *l, const char *device, char *buf,
		       size_t cap) WUR;
int dhcp_lease_conf(const struct dhcp_lease *l, const char *device, int dhcp, char *buf,
		    size_t cap) WUR;

/* The dotted quad of a host order address, into 16 bytes. */
void ipv4_text(uint32_t addr, char out[16]);
/* A dotted quad into *out (host order): 0 or -EINVAL. */
int ipv4_parse(const char *s, size_t len, uint32_t *out) WUR;

enum ip_autoconf {
	IP_AUTO_ANY,              /* "on", "any" and an empty field */
	IP_AUTO_OFF,              /* "off", "none": the static fields */
	IP_AUTO_DHCP,
	IP_AUTO_BOOTP,
	IP_AUTO_RARP,
	IP_AUTO_BOTH,             /* bootp and rarp */
};

#define IP_HOST_MAX 65   /* __NEW_UTS_LEN and its NUL */
#define IP_DEV_MAX 16    /* IFNAMSIZ */

/* ip=<client>:<server>:<gw>:<netmask>:<hostname>:<device>:<autoconf>:
 * <dns0>:<dns1>:<ntp0> (Documentation/admin-guide/nfs/nfsroot.rst), or a
 * lone autoconf word ("ip=dhcp"). Addresses in host order, 0 if empty. */
struct ip_param {
	enum ip_autoconf autoconf;
	uint32_t client, server, gw, netmask, dns0, dns1, ntp0;
	char hostname[IP_HOST_MAX];
	char device[IP_DEV_MAX];
	char why[64];
};

/* The value after "ip=": 0 or -EINVAL with out->why. */
int ip_param_parse(const char *value, struct ip_param *out) WUR;

#endif
