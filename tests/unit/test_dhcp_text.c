// SPDX-License-Identifier: MIT
/* A lease as the kernel's ip= and as initramfs-tools' net-DEVICE.conf (klibc
 * ipconfig's names), and the ip= parameter as nfsroot.rst writes it. */
#include "unit.h"

#include "net/dhcp.h"

#include <errno.h>
#include <string.h>

/* the lease of udhcpd's ACK in test_dhcp.c */
static void ack_lease(struct dhcp_lease *l)
{
	memset(l, 0, sizeof(*l));
	l->type = DHCP_ACK;
	l->yiaddr = 0x0a09003c;
	l->siaddr = l->server_id = l->router = 0x0a090001;
	l->netmask = 0xffffff00;
	l->dns[0] = 0x0a090001;
	l->dns[1] = 0x0a090002;
	l->ndns = 2;
	l->lease_secs = 3600;
	strcpy(l->hostname, "box1");
	strcpy(l->domain, "example.org");
	strcpy(l->root_path, "10.9.0.1:/srv/nfs/root");
	strcpy(l->boot_file, "pxelinux.0");
}

static void lease_as_the_kernels_ip_parameter(void)
{
	struct dhcp_lease l;
	char buf[128];

	ack_lease(&l);
	CHECK_INT(dhcp_lease_ipparam(&l, "eth0", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "10.9.0.60:10.9.0.1:10.9.0.1:255.255.255.0:box1:eth0:off:10.9.0.1:10.9.0.2");
	/* no server, router, host name or DNS: empty fields */
	l.siaddr = l.router = 0;
	l.ndns = 0;
	l.hostname[0] = 0;
	CHECK_INT(dhcp_lease_ipparam(&l, "enp1s0", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "10.9.0.60:::255.255.255.0::enp1s0:off::");
	CHECK_INT(dhcp_lease_ipparam(&l, "enp1s0", buf, 20), -ENAMETOOLONG);
	strcpy(l.hostname, "a:b");
	CHECK_INT(dhcp_lease_ipparam(&l, "enp1s0", buf, sizeof(buf)), -EINVAL);
}

static void lease_as_net_device_conf(void)
{
	static const char static_head[] = "DEVICE='eth0'\nPROTO='none'\nIPV4ADDR='10.9.0.60'\n";
	static const char want[] = "DEVICE='eth0'\n"
				   "PROTO='dhcp'\n"
				   "IPV4ADDR='10.9.0.60'\n"
				   "IPV4BROADCAST='10.9.0.255'\n"
				   "IPV4NETMASK='255.255.255.0'\n"
				   "IPV4GATEWAY='10.9.0.1'\n"
				   "IPV4DNS0='10.9.0.1'\n"
				   "IPV4DNS1='10.9.0.2'\n"
				   "HOSTNAME='box1'\n"
				   "DNSDOMAIN='example.org'\n"
				   "ROOTSERVER='10.9.0.1'\n"
				   "ROOTPATH='10.9.0.1:/srv/nfs/root'\n"
				   "filename='pxelinux.0'\n"
				   "DHCPLEASETIME='3600'\n";
	struct dhcp_lease l;
	char buf[512];

	ack_lease(&l);
	CHECK_INT(dhcp_lease_conf(&l, "eth0", 1, buf, sizeof(buf)), 0);
	CHECK_STR(buf, want);
	/* the broadcast the server names wins over the computed one */
	l.broadcast = 0x0a090080;
	l.ndns = 1;
	CHECK_INT(dhcp_lease_conf(&l, "eth0", 1, buf, sizeof(buf)), 0);
	CHECK(strstr(buf, "IPV4BROADCAST='10.9.0.128'\n"));
	CHECK(strstr(buf, "IPV4DNS1='0.0.0.0'\n"));
	ack_lease(&l);
	CHECK_INT(dhcp_lease_conf(&l, "eth0", 1, buf, sizeof(want)), 0);
	CHECK_INT(dhcp_lease_conf(&l, "eth0", 1, buf, sizeof(want) - 1), -ENAMETOOLONG);
	CHECK_INT(dhcp_lease_conf(&l, "eth'0", 1, buf, sizeof(buf)), -EINVAL);
	/* ip='s address: ipconfig's PROTO='none', and its host name, which no
	 * DHCP parser saw, cannot end the quoting either */
	CHECK_INT(dhcp_lease_conf(&l, "eth0", 0, buf, sizeof(buf)), 0);
	CHECK(strncmp(buf, static_head, sizeof(static_head) - 1) == 0);
	strcpy(l.hostname, "a'b");
	CHECK_INT(dhcp_lease_conf(&l, "eth0", 0, buf, sizeof(buf)), -EINVAL);
	ack_lease(&l);
	strcpy(l.root_path, "/x';reboot;'");
	CHECK_INT(dhcp_lease_conf(&l, "eth0", 1, buf, sizeof(buf)), -EINVAL);
}

static void dotted_quads_both_ways(void)
{
	static const char *const bad[] = { "", "1.2.3", "1.2.3.4.", "1.2.3.4.5", "256.1.1.1",
					   "1..2.3", "1.2.3.0004", " 1.2.3.4", "1.2.3.x", "-1.2.3.4" };
	uint32_t a = 7;
	char t[16];

	CHECK_INT(ipv4_parse("255.255.255.255", 15, &a), 0);
	CHECK_INT(a, 0xffffffff);
	CHECK_INT(ipv4_parse("10.0.0.1:rest", 8, &a), 0);
	CHECK_INT(a, 0x0a000001);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (ipv4_parse(bad[i], strlen(bad[i]), &a) != -EINVAL) {
			unit_failf(__FILE__, __LINE__, "\"%s\" was read", bad[i]);
			return;
		}
	ipv4_text(0xc0a80001, t);
	CHECK_STR(t, "192.168.0.1");
	ipv4_text(0, t);
	CHECK_STR(t, "0.0.0.0");
}

static void ip_lone_words(void)
{
	static const struct {
		const char *value;
		enum ip_autoconf want;
	} rows[] = {
		{ "dhcp", IP_AUTO_DHCP }, { "off", IP_AUTO_OFF }, { "none", IP_AUTO_OFF },
		{ "on", IP_AUTO_ANY },    { "any", IP_AUTO_ANY }, { "bootp", IP_AUTO_BOOTP },
		{ "rarp", IP_AUTO_RARP }, { "both", IP_AUTO_BOTH },
	};
	struct ip_param ip;

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		CHECK_INT(ip_param_parse(rows[i].value, &ip), 0);
		CHECK_INT(ip.autoconf, rows[i].want);
	}
}

static void ip_all_ten_fields(void)
{
	struct ip_param ip;

	CHECK_INT(ip_param_parse("192.168.1.10:192.168.1.1:192.168.1.254:255.255.255.0:"
				 "box:eth0:off:192.168.1.1:8.8.8.8:192.168.1.2", &ip), 0);
	CHECK_INT(ip.client, 0xc0a8010a);
	CHECK_INT(ip.server, 0xc0a80101);
	CHECK_INT(ip.gw, 0xc0a801fe);
	CHECK_INT(ip.netmask, 0xffffff00);
	CHECK_STR(ip.hostname, "box");
	CHECK_STR(ip.device, "eth0");
	CHECK_INT(ip.autoconf, IP_AUTO_OFF);
	CHECK_INT(ip.dns0, 0xc0a80101);
	CHECK_INT(ip.dns1, 0x08080808);
	CHECK_INT(ip.ntp0, 0xc0a80102);
	/* nfsroot.rst: empty fields take defaults, trailing ones may go */
	CHECK_INT(ip_param_parse(":::::eth1:dhcp", &ip), 0);
	CHECK_INT(ip.client, 0);
	CHECK_STR(ip.device, "eth1");
	CHECK_INT(ip.autoconf, IP_AUTO_DHCP);
	CHECK_INT(ip_param_parse("10.0.0.5::10.0.0.1:255.0.0.0", &ip), 0);
	CHECK_INT(ip.gw, 0x0a000001);
	CHECK_INT(ip.autoconf, IP_AUTO_ANY);
	CHECK_STR(ip.device, "");
}

static void ip_refusals_say_which_field(void)
{
	static const struct {
		const char *value, *why;
	} rows[] = {
		{ "", "not an autoconf word nor client:server:..." },
		{ "dhcp6", "not an autoconf word nor client:server:..." },
		{ "10.0.0.300::", "the client field is not an IPv4 address" },
		{ "1.2.3.4:1.2.3:", "the server field is not an IPv4 address" },
		{ ":::255.255.255.0.0", "the netmask field is not an IPv4 address" },
		{ "::::::static", "the autoconf field is none of off on any dhcp bootp rarp both" },
		{ ":::::eth0:off:8.8.8:", "the dns0 field is not an IPv4 address" },
		{ ":::::eth0:off:::x", "the ntp0 field is not an IPv4 address" },
		{ ":::::eth0:off::::", "more than 10 fields" },
		{ ":::::0123456789abcdef", "the device field is longer than 15 bytes" },
		{ "::::01234567890123456789012345678901234567890123456789012345678901234",
		  "the hostname field is longer than 64 bytes" },
	};
	struct ip_param ip;

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		int rc = ip_param_parse(rows[i].value, &ip);

		if (rc != -EINVAL || strcmp(ip.why, rows[i].why) != 0) {
			unit_failf(__FILE__, __LINE__, "\"%s\": %d \"%s\", want \"%s\"", rows[i].value,
				   rc, ip.why, rows[i].why);
			return;
		}
	}
	CHECK_INT(ip_param_parse(":::::0123456789abcde", &ip), 0);
	CHECK_STR(ip.device, "0123456789abcde");
}

UNIT_SUITE(dhcp_text,
	{ "a lease as ip=client:server:gw:netmask:host:device:off:dns0:dns1", lease_as_the_kernels_ip_parameter },
	{ "a lease as initramfs-tools' net-DEVICE.conf, klibc ipconfig's names", lease_as_net_device_conf },
	{ "dotted quads are read strictly and written back", dotted_quads_both_ways },
	{ "ip=dhcp, off, none, on, any, bootp, rarp, both", ip_lone_words },
	{ "ip= with all ten fields, with empty ones and with fewer", ip_all_ten_fields },
	{ "a bad ip= names the field it trips on", ip_refusals_say_which_field });
