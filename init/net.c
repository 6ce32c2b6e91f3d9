// SPDX-License-Identifier: MIT
/* The network medium's first step: a NIC's driver chosen by modalias from
 * the board's pack (only now: a boot without network loads none), its link
 * up, an address by DHCP (init/net_dhcp.c) or by the kernel's ip= syntax,
 * set by ioctl, all under the plan's deadline; then what the real init
 * needs to keep it: /run/unionroot/net and initramfs-tools' net-DEVICE.conf. */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "boot.h"
#include "conf/specvar.h"
#include "lib/filesave.h"
#include "lib/log.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"
#include "media/loopdev.h"
#include "net/dhcp.h"
#include "probe/probe.h"
#include "steps.h"

/* One line of why a call on dev failed; rc passes through. */
static int said(char *why, size_t cap, int rc, const char *what, const char *dev)
{
	IGNORE(strfmt(why, cap, "network: %s %s failed: %s", what, dev, strerror(-rc))); /* fits */
	return rc;
}

/* The deadline of the network: the first layer on it's own, else the
 * writable branch's on it, else union.wait. */
uint64_t net_deadline(const struct boot *b)
{
	const struct spec *s = NULL;
	unsigned n;
	const struct spec *layers = config_layers(&b->cfg, &n);
	int secs;

	for (unsigned i = 0; i < n && !s; i++)
		if (layers[i].kind == SPEC_NBD || layers[i].kind == SPEC_HTTP || layers[i].kind == SPEC_NFS)
			s = &layers[i];
	if (!s && b->cfg.upper_is_spec && b->cfg.upper_spec.kind == SPEC_NBD)
		s = &b->cfg.upper_spec;
	secs = s && s->deadline >= 0 ? s->deadline : config_wait(&b->cfg);
	return secs == CFG_WAIT_FOREVER ? UINT64_MAX : sys_now_ms() + (uint64_t)secs * 1000u;
}

static int ifreq_call(int sock, unsigned long req, const char *dev, struct ifreq *r)
{
	memset(r->ifr_name, 0, sizeof(r->ifr_name));
	IGNORE(strcopy(r->ifr_name, sizeof(r->ifr_name), dev)); /* a name from /sys fits */
	return sys_ioctl(sock, req, r);
}

/* Brings dev up: 0 or -errno. */
static int link_up(int sock, const char *dev)
{
	struct ifreq r;
	int rc;

	memset(&r, 0, sizeof(r));
	if ((rc = ifreq_call(sock, SIOCGIFFLAGS, dev, &r)) < 0)
		return rc;
	if (r.ifr_flags & IFF_UP)
		return 0;
	r.ifr_flags |= IFF_UP;
	return ifreq_call(sock, SIOCSIFFLAGS, dev, &r);
}

struct nic_look {
	int sock;
	const char *want;      /* ip='s device, "" any */
	unsigned seen, up;     /* Ethernet NICs, and how many with a carrier */
	char dev[IFNAMSIZ];    /* the first with a carrier */
};

static int look_nic(const char *name, unsigned char type, void *ctx)
{
	struct nic_look *l = ctx;
	char path[96], val[8];

	(void)type;
	if (strcmp(name, "lo") == 0 || strlen(name) >= IFNAMSIZ || (l->want[0] && strcmp(name, l->want)))
		return 0;
	if (strfmt(path, sizeof(path), "/sys/class/net/%s/type", name) < 0 ||
	    sys_read_file(path, val, sizeof(val)) < 0 || strcmp(val, "1\n") != 0)
		return 0; /* not Ethernet (ARPHRD_ETHER) */
	l->seen++;
	if (link_up(l->sock, name) < 0)
		return 0;
	IGNORE(strfmt(path, sizeof(path), "/sys/class/net/%s/carrier", name)); /* fits */
	if (sys_read_file(path, val, sizeof(val)) > 0 && val[0] == '1') {
		l->up++;
		if (!l->dev[0])
			IGNORE(strcopy(l->dev, sizeof(l->dev), name)); /* fits */
	}
	return 0;
}

/* The first NIC with a link by the deadline, its driver loaded from the
 * pack by modalias as it appears: 0, or -errno with why. */
static int find_link(struct boot *b, int sock, const char *want, uint64_t end, struct step_out *o)
{
	struct nic_look l = { .sock = sock, .want = want };
	int hp = hotplug_socket(), dir;

	modules_for_need(NEED_NET); /* the NIC drivers' gate opens, nbd loads */
	modules_coldplug();
	while (modules_coldplug_next())
		;
	for (;;) {
		l.seen = l.up = 0;
		dir = sys_open("/sys/class/net", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dir >= 0) {
			IGNORE(sys_dir_each(dir, look_nic, &l)); /* a vanished entry is skipped */
			sys_close(dir);
		}
		if (l.dev[0]) {
			IGNORE(strcopy(b->net_dev, sizeof(b->net_dev), l.dev)); /* same size */
			return 0;
		}
		if (sys_now_ms() >= end)
			break;
		if (hp >= 0)
			hotplug_drain(hp);
		sys_sleep_ms(100);
	}
	if (!l.seen)
		IGNORE(strfmt(o->why, sizeof(o->why), "network: no %s%sEthernet interface by the deadline "
			      "(no NIC, or no driver for it in the initramfs)", want, want[0] ? " " : ""));
	else
		IGNORE(strfmt(o->why, sizeof(o->why), "network: no link on %u interface(s) by the deadline "
			      "(cable, switch port)", l.seen));
	return -ENOLINK;
}

static void set_sin(struct sockaddr *sa, uint32_t addr)
{
	struct sockaddr_in *in = (struct sockaddr_in *)sa;

	memset(in, 0, sizeof(*in));
	in->sin_family = AF_INET;
	in->sin_addr.s_addr = htonl(addr);
}

/* The address, its netmask and the default route through the gateway. */
static int set_address(int sock, const char *dev, const struct dhcp_lease *l, char *why, size_t cap)
{
	struct ifreq r;
	struct rtentry rt;
	int rc;

	memset(&r, 0, sizeof(r));
	set_sin(&r.ifr_addr, l->yiaddr);
	if ((rc = ifreq_call(sock, SIOCSIFADDR, dev, &r)) < 0)
		return said(why, cap, rc, "setting the address of", dev);
	set_sin(&r.ifr_netmask, l->netmask);
	if (l->netmask && (rc = ifreq_call(sock, SIOCSIFNETMASK, dev, &r)) < 0)
		return said(why, cap, rc, "setting the netmask of", dev);
	if (!l->router)
		return 0;
	memset(&rt, 0, sizeof(rt));
	set_sin(&rt.rt_dst, 0);
	set_sin(&rt.rt_genmask, 0);
	set_sin(&rt.rt_gateway, l->router);
	rt.rt_flags = RTF_UP | RTF_GATEWAY;
	rt.rt_dev = (char *)dev;
	rc = sys_ioctl(sock, SIOCADDRT, &rt);
	if (rc < 0 && rc != -EEXIST)
		return said(why, cap, rc, "the default route through", dev);
	return 0;
}

/* ip= with an address of its own: the lease it stands for. */
static void static_lease(const struct ip_param *ip, struct dhcp_lease *l)
{
	memset(l, 0, sizeof(*l));
	l->yiaddr = ip->client;
	l->siaddr = ip->server;
	l->router = ip->gw;
	l->netmask = ip->netmask;
	l->dns[0] = ip->dns0;
	l->dns[1] = ip->dns1;
	l->ndns = ip->dns1 ? 2 : ip->dns0 ? 1 : 0;
	memcpy(l->hostname, ip->hostname, sizeof(ip->hostname));
}

/* text as dir_path/name, whole or not at all; a failure is only logged:
 * the root is up, and only the real init's view of the address is lost. */
static void save(const char *dir_path, const char *name, const char *text)
{
	int rc, dir = sys_open(dir_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	rc = dir < 0 ? dir : sys_write_file_atomic(dir, name, text, strlen(text), 0644);
	if (rc < 0)
		log_warn("writing %s/%s failed: %s", dir_path, name, strerror(-rc));
	if (dir >= 0)
		sys_close(dir);
}

/* For the real init: /run/unionroot/net (KEY=value) and initramfs-tools'
 * /run/net-DEVICE.conf, so that it keeps the address its root runs over. */
static void net_records(struct boot *b, const struct dhcp_lease *l, int dhcp, const char *ip_host)
{
	static char conf[1024], text[512];
	char name[32], addr[16], path_of_mac[64], mac[32];
	struct sbuf sb;

	ipv4_text(l->yiaddr, addr);
	IGNORE(strcopy(b->net_addr, sizeof(b->net_addr), addr)); /* same size */
	/* ${mac} and ${hostname} of an nbd: export; a name too long for
	 * either is one no export name takes */
	IGNORE(strfmt(path_of_mac, sizeof(path_of_mac), "/sys/class/net/%s/address", b->net_dev)); /* fits */
	if (sys_read_file(path_of_mac, mac, sizeof(mac)) < 0 || specvar_mac(mac, b->net_mac) < 0)
		b->net_mac[0] = '\0';
	if (strcopy(b->net_host, sizeof(b->net_host), l->hostname[0] ? l->hostname : ip_host) < 0)
		IGNORE(strcopy(b->net_host, sizeof(b->net_host), "?")); /* fits */
	if (dhcp_lease_ipparam(l, b->net_dev, b->net_ip, sizeof(b->net_ip)) < 0)
		b->net_ip[0] = '\0';
	sbuf_init(&sb, text, sizeof(text));
	sbuf_addf(&sb, "DEVICE=%s\nADDRESS=%s\nPROTO=%s\nIP=%s\n", b->net_dev, addr, dhcp ? "dhcp" : "static",
		  b->net_ip);
	if (sbuf_done(&sb) == 0 && sys_mkdir_p(RUNDIR, 0755) == 0)
		save(RUNDIR, "net", text);
	if (dhcp_lease_conf(l, b->net_dev, dhcp, conf, sizeof(conf)) < 0 ||
	    strfmt(name, sizeof(name), "net-%s.conf", b->net_dev) < 0) {
		log_warn("network: no /run/net-%s.conf: a value it cannot quote", b->net_dev);
		return;
	}
	save("/run", name, conf);
}

int step_net(struct boot *b, struct step_out *o)
{
	struct ip_param ip;
	struct dhcp_lease l;
	uint64_t end = net_deadline(b);
	int sock, rc, dhcp;

	memset(&ip, 0, sizeof(ip));
	memset(&l, 0, sizeof(l));
	o->step = STEP_FIND; /* serving the writable branch alone, it fails it as a disk not found */
	if (b->cfg.ip[0] && ip_param_parse(b->cfg.ip, &ip) < 0) {
		IGNORE(strfmt(o->why, sizeof(o->why), "network: ip=%s: %s", b->cfg.ip, ip.why));
		return -EINVAL;
	}
	dhcp = ip.autoconf != IP_AUTO_OFF || !ip.client;
	watchdog_phase(end == UINT64_MAX ? 0 : (unsigned)((end - sys_now_ms()) / 1000) + WD_MARGIN_S,
		       "bringing the network up");
	sock = sys_socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0) {
		IGNORE(strfmt(o->why, sizeof(o->why), "network: no IPv4 socket: %s", strerror(-sock)));
		return sock;
	}
	rc = find_link(b, sock, ip.device, end, o);
	if (rc == 0 && dhcp)
		rc = net_dhcp(b, end, &l, o->why, sizeof(o->why));
	else if (rc == 0)
		static_lease(&ip, &l);
	if (rc == 0)
		rc = set_address(sock, b->net_dev, &l, o->why, sizeof(o->why));
	sys_close(sock);
	if (rc < 0)
		return rc;
	net_records(b, &l, dhcp, ip.hostname);
	IGNORE(strfmt(b->net_text, sizeof(b->net_text), "%s %s (%s)", b->net_dev, b->net_addr,
		      dhcp ? "DHCP" : "ip=")); /* a cut line still names the NIC */
	log_info("network: %s", b->net_text);
	return 0;
}

int net_image_layer(struct boot *b, unsigned layer, int img, char *why, size_t cap)
{
	struct loopdev ld;
	struct probe_src src;
	struct probe_info info;
	unsigned i = layer - 1;
	int loop, rc;

	memset(&info, 0, sizeof(info));
	rc = probe_src_fd(&src, img);
	if (rc == 0)
		rc = probe_fs(&src, &info);
	if (rc <= 0) {
		IGNORE(strcopy(why, cap, rc < 0 ? "cannot be read" : "holds no file system unionroot knows"));
		return rc < 0 ? rc : -EMEDIUMTYPE;
	}
	modules_for_need(NEED_LOOP);
	loop = loop_attach(img, 0, &ld);
	if (loop < 0) {
		IGNORE(strfmt(why, cap, "gets no loop device: %s", strerror(-loop))); /* fits */
		return loop;
	}
	sys_close(loop);
	IGNORE(strcopy(b->lower_dev[i], sizeof(b->lower_dev[i]), ld.path)); /* fits */
	IGNORE(strcopy(b->lower_type[i], sizeof(b->lower_type[i]), info.type)); /* fits */
	IGNORE(strcopy(b->lower[i].value, sizeof(b->lower[i].value), ld.path)); /* fits */
	b->lower[i].kind = SPEC_DEV;
	b->lower[i].npaths = 0; /* an image path of the SPEC named this file */
	return 0;
}
