// SPDX-License-Identifier: MIT
/* The kernel NFS client's text options (nfs(5); fs/nfs/fs_context.c parses
 * them). mount(2) with text options does no name lookup nor address
 * choice of its own: addr= is the server's address, which the kernel
 * needs (mount.nfs adds it too, and clientaddr=, which NFSv4.0 uses for
 * its callbacks and 4.1 and later ignore). hard: a server that goes away
 * stalls the reads until it is back, never an I/O error under a running
 * root; timeo=600,retrans=2 are nfs(5)'s defaults over TCP, said so that
 * a changed default does not change the boot. One TCP port (2049 unless
 * the SPEC names one), no rpcbind nor mountd: NFSv4 only. sec=sys: the
 * initramfs carries no Kerberos. Read-only is mount(2)'s MS_RDONLY. */
#include "net/nfs.h"

#include <errno.h>
#include <string.h>

#include "lib/sbuf.h"
#include "net/dhcp.h"

int nfs_mount_options(char *buf, size_t cap, unsigned minor, uint32_t server, unsigned port, uint32_t client)
{
	char srv[16], cli[16];
	struct sbuf sb;

	if (minor > NFS_MINOR_MAX || port == 0 || port > 65535)
		return -EINVAL;
	ipv4_text(server, srv);
	ipv4_text(client, cli);
	sbuf_init(&sb, buf, cap);
	sbuf_addf(&sb, "vers=4.%u,proto=tcp,port=%u,hard,timeo=600,retrans=2,sec=sys,addr=%s,clientaddr=%s", minor,
		  port, srv, cli);
	return sbuf_done(&sb) < 0 ? -ENAMETOOLONG : (int)strlen(buf);
}

int nfs_mount_source(char *buf, size_t cap, uint32_t server, const char *export_path)
{
	char srv[16];
	struct sbuf sb;

	ipv4_text(server, srv);
	sbuf_init(&sb, buf, cap);
	sbuf_addf(&sb, "%s:%s", srv, export_path);
	return sbuf_done(&sb) < 0 ? -ENAMETOOLONG : 0;
}
