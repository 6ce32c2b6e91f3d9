/* SPDX-License-Identifier: MIT */
/* What the kernel's NFS client is given for a read-only layer on an NFSv4
 * export, through mount(2) with text options (no mount.nfs): the source
 * ("ADDRESS:/EXPORT") and the option string. No I/O. */
#ifndef UNIONROOT_NFS_H
#define UNIONROOT_NFS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/defs.h"

#define NFS_OPTS_MAX 160   /* the longest option string fits, with room */
#define NFS_SOURCE_MAX 160 /* "255.255.255.255:" and an export of SPEC_VALUE_MAX */

#define NFS_MINOR_MAX 2    /* 4.2, the newest the kernel speaks */

/* mount(2)'s options for NFS 4.minor on server:port from client (host
 * order): its length, or -ENAMETOOLONG when cap is too small, -EINVAL for
 * a minor over NFS_MINOR_MAX or a port outside 1-65535. */
int nfs_mount_options(char *buf, size_t cap, unsigned minor, uint32_t server, unsigned port,
		      uint32_t client) WUR;
/* mount(2)'s source, "ADDRESS:/EXPORT": 0, or -ENAMETOOLONG. */
int nfs_mount_source(char *buf, size_t cap, uint32_t server, const char *export_path) WUR;

#endif
