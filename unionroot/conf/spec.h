/* SPDX-License-Identifier: MIT */
/* The SPEC grammar of SPEC.md: which medium, which image file inside it
 * (nesting), and its own deadline.
 *   SPEC  := BASE { ":" "/" PATH } [ "@" SECONDS ]
 *   BASE  := /dev/NAME | LABEL=x | UUID=x | PARTUUID=x | PARTLABEL=x
 *          | mtd:NAME | ubi:VOLUME | auto
 *          | nbd:ADDRESS:PORT/EXPORT   (an IPv4 address: no DNS in PID 1)
 *          | http://ADDRESS[:PORT]/PATH (an image fetched into RAM)
 *          | nfs:ADDRESS[:PORT]:/EXPORT  (the export's ":/" is the base's
 *            own: nfs:S:/srv:/img.squashfs is an image on the export)
 * A path segment starts at ":/", so a label may hold a colon but not ":/";
 * a trailing "@digits" is always a deadline (a URL's ":/" and '@' too).
 * A list splits at every ',': no value holds one. */
#ifndef UNIONROOT_SPEC_H
#define UNIONROOT_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "lib/defs.h"

#define SPEC_VALUE_MAX 128
#define SPEC_PATHS_MAX 4
#define SPEC_PATH_MAX 256
#define SPEC_LIST_MAX 8
#define SPEC_DEADLINE_MAX 3600

enum spec_kind {
	SPEC_DEV,
	SPEC_LABEL,
	SPEC_UUID,
	SPEC_PARTUUID,
	SPEC_PARTLABEL,
	SPEC_MTD,
	SPEC_UBI,
	SPEC_AUTO,
	SPEC_NBD,                     /* value: "ADDRESS:PORT/EXPORT", checked */
	SPEC_HTTP,                    /* value: "ADDRESS[:PORT]/PATH", checked */
	SPEC_NFS,                     /* value: "ADDRESS[:PORT]:/EXPORT", checked;
				       * paths: at most one, an image file on it */
};

struct spec {
	int kind;                     /* enum spec_kind */
	char value[SPEC_VALUE_MAX];   /* device path, label, uuid, name */
	unsigned npaths;              /* image files, outermost first */
	char paths[SPEC_PATHS_MAX][SPEC_PATH_MAX];
	int deadline;                 /* seconds, -1 = union.wait */
};

/* 0, or -EINVAL / -ENAMETOOLONG with a reason in err. */
int spec_parse(const char *text, struct spec *out, char *err, size_t errlen) WUR;
/* A comma-separated list; returns the count (>= 1) or -errno with a reason. */
int spec_list_parse(const char *text, struct spec *out, unsigned max, char *err,
		    size_t errlen) WUR;
/* Canonical text of a spec (for plan and status); 0 or -ENAMETOOLONG. */
int spec_format(const struct spec *s, char *buf, size_t cap) WUR;
const char *spec_kind_name(int kind);
/* An nbd: SPEC's value ("10.0.2.100:10809/root") into its server (host
 * order), port and export name (may be ""): 0 or -EINVAL with why. */
#define SPEC_NBD_WHY "want nbd:ADDRESS:PORT/EXPORT, an IPv4 address and a port 1-65535"
int spec_nbd_split(const char *value, uint32_t *addr, unsigned *port, const char **export_name) WUR;
/* An http:// SPEC's value ("10.0.2.100:8000/img.squashfs") into its server
 * (host order), port (80 unless given) and path (from its '/', printable
 * ASCII without spaces): 0 or -EINVAL. */
#define SPEC_HTTP_WHY "want http://ADDRESS[:PORT]/PATH, an IPv4 address, a port 1-65535, a path without spaces"
int spec_http_split(const char *value, uint32_t *addr, unsigned *port, const char **path) WUR;
/* An nfs: SPEC's value ("10.0.2.100:/srv", "10.0.2.100:2050:/srv") into its
 * server (host order), port (2049, NFSv4's, unless given) and export (from
 * its '/': printable ASCII, no space, no ',' nor '"', no ".." component):
 * 0 or -EINVAL. */
#define SPEC_NFS_WHY "want nfs:ADDRESS[:PORT]:/EXPORT[:/IMAGE], an IPv4 address, a port 1-65535, an export without spaces"
#define SPEC_NFS_PORT 2049
int spec_nfs_split(const char *value, uint32_t *addr, unsigned *port, const char **export_path) WUR;

#endif
