// SPDX-License-Identifier: MIT
/* A lease as text, in the two forms the rest of a boot reads it in: the
 * kernel's ip= and initramfs-tools' /run/net-DEVICE.conf (the names klibc
 * ipconfig writes there). And the ip= parameter read back into fields. */
#include "net/dhcp.h"

#include "lib/fmt.h"
#include "lib/sbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

void ipv4_text(uint32_t addr, char out[16])
{
	fmt_sn(out, 16, "%u.%u.%u.%u", addr >> 24, addr >> 16 & 255, addr >> 8 & 255,
	       addr & 255);
}

int ipv4_parse(const char *s, size_t len, uint32_t *out)
{
	const char *p = s, *end = s + len;
	uint32_t addr = 0;

	for (int i = 0; i < 4; i++) {
		const char *q;
		uint32_t v = 0;

		if (i && (p >= end || *p++ != '.'))
			return -EINVAL;
		q = p;
		/* digits of this field only: s need not end at len */
		while (p < end && *p >= '0' && *p <= '9' && p - q < 4)
			v = v * 10 + (uint32_t)(*p++ - '0');
		if (p == q || p - q > 3 || v > 255)
			return -EINVAL;
		addr = addr << 8 | v;
	}
	if (p != end)
		return -EINVAL;
	*out = addr;
	return 0;
}

/* An address as ip= has it: empty when none. */
static void add_addr(struct sbuf *sb, uint32_t addr)
{
	char t[16];

	if (!addr)
		return;
	ipv4_text(addr, t);
	sbuf_add(sb, t);
}

int dhcp_lease_ipparam(const struct dhcp_lease *l, const char *device, char *buf, size_t cap)
{
	const uint32_t addrs[] = { l->yiaddr, l->siaddr, l->router, l->netmask };
	struct sbuf sb;

	/* ip= splits at ':' and the kernel takes no quoting there */
	if (memchr(l->hostname, ':', strlen(l->hostname)) || strchr(device, ':'))
		return -EINVAL;
	sbuf_init(&sb, buf, cap);
	for (size_t i = 0; i < ARRAY_SIZE(addrs); i++) {
		add_addr(&sb, addrs[i]);
		sbuf_add(&sb, ":");
	}
	sbuf_addf(&sb, "%s:%s:off:", l->hostname, device);
	add_addr(&sb, l->ndns > 0 ? l->dns[0] : 0);
	sbuf_add(&sb, ":");
	add_addr(&sb, l->ndns > 1 ? l->dns[1] : 0);
	return sbuf_done(&sb);
}

static void conf_addr(struct sbuf *sb, const char *key, uint32_t addr)
{
	char t[16];

	ipv4_text(addr, t);
	sbuf_addf(sb, "%s='%s'\n", key, t);
}

/* klibc ipconfig's file (usr/kinit/ipconfig/main.c, dump_device_config),
 * which initramfs-tools' configure_networking sources: every value in
 * single quotes, an address 0.0.0.0 when none. Its UPTIME (the seconds
 * since boot when the lease came) needs a clock, the caller's to add.
 * PROTO is 'dhcp' for a leased address, else 'none' as ipconfig has it. */
int dhcp_lease_conf(const struct dhcp_lease *l, const char *device, int dhcp, char *buf, size_t cap)
{
	const char *texts[] = { device, l->hostname, l->domain, l->root_path, l->boot_file };
	uint32_t bcast = l->broadcast;
	struct sbuf sb;

	/* a value holding a quote would end its quoting in the shell that
	 * sources the file: dhcp_parse refuses such strings, but a static
	 * lease carries ip='s host name */
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		if (strchr(texts[i], '\''))
			return -EINVAL;
	if (!bcast && l->netmask)
		bcast = l->yiaddr | ~l->netmask;
	sbuf_init(&sb, buf, cap);
	sbuf_addf(&sb, "DEVICE='%s'\nPROTO='%s'\n", device, dhcp ? "dhcp" : "none");
	conf_addr(&sb, "IPV4ADDR", l->yiaddr);
	conf_addr(&sb, "IPV4BROADCAST", bcast);
	conf_addr(&sb, "IPV4NETMASK", l->netmask);
	conf_addr(&sb, "IPV4GATEWAY", l->router);
	conf_addr(&sb, "IPV4DNS0", l->ndns > 0 ? l->dns[0] : 0);
	conf_addr(&sb, "IPV4DNS1", l->ndns > 1 ? l->dns[1] : 0);
	sbuf_addf(&sb, "HOSTNAME='%s'\nDNSDOMAIN='%s'\n", l->hostname, l->domain);
	conf_addr(&sb, "ROOTSERVER", l->siaddr ? l->siaddr : l->server_id);
	sbuf_addf(&sb, "ROOTPATH='%s'\nfilename='%s'\n", l->root_path, l->boot_file);
	sbuf_addf(&sb, "DHCPLEASETIME='%u'\n", l->lease_secs);
	return sbuf_done(&sb);
}

/* ---- ip= ---- */

/* The autoconf words, in enum ip_autoconf's order; "on" and "none" are
 * the kernel's other names for any and off (net/ipv4/ipconfig.c). */
static const char autoconf_words[][6] = { "any", "off", "dhcp", "bootp", "rarp", "both" };

static int autoconf_word(const char *s, size_t n, enum ip_autoconf *out)
{
	if (!n || (n == 2 && !memcmp(s, "on", 2))) {
		*out = IP_AUTO_ANY;
		return 0;
	}
	if (n == 4 && !memcmp(s, "none", 4)) {
		*out = IP_AUTO_OFF;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(autoconf_words); i++)
		if (strlen(autoconf_words[i]) == n && !memcmp(s, autoconf_words[i], n)) {
			*out = (enum ip_autoconf)i;
			return 0;
		}
	return -EINVAL;
}

static int ip_reject(struct ip_param *out, const char *why, ...) PRINTF(2, 3);
static int ip_reject(struct ip_param *out, const char *why, ...)
{
	va_list ap;

	va_start(ap, why);
	fmt_vsn(out->why, sizeof(out->why), why, ap);
	va_end(ap);
	return -EINVAL;
}

static const char field_names[][9] = { "client", "server", "gateway", "netmask", "hostname",
				       "device", "autoconf", "dns0", "dns1", "ntp0" };

static int ip_field(struct ip_param *out, unsigned i, const char *s, size_t n)
{
	uint32_t *const addrs[] = { &out->client, &out->server, &out->gw, &out->netmask,
				    NULL, NULL, NULL, &out->dns0, &out->dns1, &out->ntp0 };

	if (addrs[i]) {
		if (n && ipv4_parse(s, n, addrs[i]) < 0)
			return ip_reject(out, "the %s field is not an IPv4 address", field_names[i]);
		return 0;
	}
	if (i == 6) {
		if (autoconf_word(s, n, &out->autoconf) < 0)
			return ip_reject(out, "the autoconf field is none of off on any dhcp bootp rarp both");
		return 0;
	}
	if (n >= (i == 4 ? sizeof(out->hostname) : sizeof(out->device)))
		return ip_reject(out, "the %s field is longer than %zu bytes", field_names[i],
				 (i == 4 ? sizeof(out->hostname) : sizeof(out->device)) - 1);
	memcpy(i == 4 ? out->hostname : out->device, s, n);
	return 0;
}

int ip_param_parse(const char *value, struct ip_param *out)
{
	size_t len = strlen(value);
	const char *p = value;
	unsigned i = 0;

	memset(out, 0, sizeof(*out));
	/* "ip=dhcp": a lone word is the autoconf method (the kernel's
	 * ic_proto_name) */
	if (!memchr(value, ':', len)) {
		if (!len || autoconf_word(value, len, &out->autoconf) < 0)
			return ip_reject(out, "not an autoconf word nor client:server:...");
		return 0;
	}
	for (;;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		int rc;

		if (i >= ARRAY_SIZE(field_names))
			return ip_reject(out, "more than %zu fields", ARRAY_SIZE(field_names));
		rc = ip_field(out, i, p, n);
		if (rc < 0)
			return rc;
		if (!colon)
			return 0;
		p = colon + 1;
		i++;
	}
}
