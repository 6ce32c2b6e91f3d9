// SPDX-License-Identifier: MIT
/* libFuzzer target for the DHCP reply parser and the ip= parameter: the
 * first byte picks which. A reply is read as ours (xid and MAC taken from
 * it, so the options are reached) or a fixed client's; a lease it gives
 * must render as ip= and net-DEVICE.conf or be refused by a rule. */
#include "net/dhcp.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int is_text(const char *s, size_t cap)
{
	const char *nul = memchr(s, 0, cap);

	if (!nul)
		return 0;
	for (; s < nul; s++)
		if (*s < 0x20 || *s > 0x7e || *s == '\'')
			return 0;
	return 1;
}

static void check_lease(const struct dhcp_lease *l)
{
	static char buf[2048];
	int rc;

	if (!is_text(l->hostname, sizeof(l->hostname)) || !is_text(l->domain, sizeof(l->domain)) ||
	    !is_text(l->root_path, sizeof(l->root_path)) ||
	    !is_text(l->boot_file, sizeof(l->boot_file)) || l->ndns > DHCP_DNS_MAX || l->why[0])
		__builtin_trap();
	if (l->type != DHCP_OFFER && l->type != DHCP_ACK && l->type != DHCP_NAK)
		__builtin_trap();
	rc = dhcp_lease_ipparam(l, "eth0", buf, sizeof(buf));
	if (rc != 0 && !(rc == -EINVAL && memchr(l->hostname, ':', sizeof(l->hostname))))
		__builtin_trap();
	if (dhcp_lease_conf(l, "eth0", 1, buf, sizeof(buf)) != 0)
		__builtin_trap();
	rc = dhcp_lease_conf(l, "eth0", 1, buf, 64);
	if (rc != -ENAMETOOLONG || strlen(buf) >= 64)
		__builtin_trap();
}

static void fuzz_ip(const uint8_t *data, size_t size)
{
	static char text[512];
	struct ip_param ip;
	int rc;

	if (size >= sizeof(text))
		size = sizeof(text) - 1;
	memcpy(text, data, size);
	text[size] = 0;
	rc = ip_param_parse(text, &ip);
	if (rc != 0 && (rc != -EINVAL || !ip.why[0]))
		__builtin_trap();
	if (rc == 0 && (!memchr(ip.hostname, 0, sizeof(ip.hostname)) ||
			!memchr(ip.device, 0, sizeof(ip.device))))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dhcp_client c = { .mac = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 }, .xid = 0x3903f326 };
	static struct dhcp_lease lease;
	int rc;

	if (size < 1)
		return 0;
	if (data[0] & 2) {
		fuzz_ip(data + 1, size - 1);
		return 0;
	}
	data++;
	size--;
	if (!(data[-1] & 1) && size >= 34) {
		c.xid = (uint32_t)data[4] << 24 | (uint32_t)data[5] << 16 | (uint32_t)data[6] << 8 | data[7];
		memcpy(c.mac, data + 28, 6);
	}
	rc = dhcp_parse(data, size, &c, &lease);
	if (rc == 0)
		check_lease(&lease);
	else if ((rc != -ENOMSG && rc != -EBADMSG) || !lease.why[0])
		__builtin_trap();
	return 0;
}
