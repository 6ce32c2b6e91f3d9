// SPDX-License-Identifier: MIT
/* A read-only layer's nfs: export, through the kernel's NFS client: mount(2)
 * with text options (net/nfs.c; no mount.nfs), NFSv4 over one TCP port,
 * read-only and hard, at /run/unionroot/nfs/N. The export's tree is the
 * layer itself (step_mount_lower binds it), or the image file the SPEC
 * names on it is opened read-only, probed and put on a read-only loop
 * device, which then stands in the layer's SPEC (verity, when
 * union.verity names the layer, checks it as any device). Many clients
 * share the export, and it never changes under a mounted union: see
 * doc/design.md, "A read-only layer shared over NFS". */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>

#include "boot.h"
#include "lib/log.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"
#include "net/dhcp.h"
#include "net/nfs.h"
#include "steps.h"

#define NFS_DIR RUNDIR "/nfs"

/* mount(2)'s errno as a reason a person acts on */
static const char *refusal(int rc)
{
	switch (rc) {
	case -ENOENT:
		return "the server exports no such path";
	case -EACCES:
	case -EPERM:
		return "the server refused this client (its export's client list, or sec=sys)";
	case -EPROTONOSUPPORT:
		return "the server speaks no NFS 4.2, 4.1 or 4.0";
	case -ENODEV:
		return "the kernel has no NFSv4 client (nfsv4 not in the initramfs?)";
	case -ETIMEDOUT:
	case -EIO:
		return "the server stopped answering";
	default:
		return strerror(-rc);
	}
}

/* The export at dir, the newest minor version the server takes first:
 * 0 with *minor, or mount(2)'s -errno. */
static int mount_export(const struct boot *b, const char *source, uint32_t addr, unsigned port, const char *dir,
			unsigned long flags, unsigned *minor)
{
	char opts[NFS_OPTS_MAX];
	uint32_t client = 0;
	int rc = -EINVAL;

	IGNORE(ipv4_parse(b->net_addr, strlen(b->net_addr), &client)); /* step_net wrote it */
	for (unsigned m = NFS_MINOR_MAX + 1; m-- > 0;) {
		if (nfs_mount_options(opts, sizeof(opts), m, addr, port, client) < 0)
			return -ENAMETOOLONG;
		watchdog_step(WD_STEP_S, "mounting nfs export %s (NFS 4.%u)", source, m);
		rc = sys_mount(source, dir, "nfs4", flags, opts);
		watchdog_step_end();
		if (rc == 0) {
			*minor = m;
			return 0;
		}
		if (rc != -EPROTONOSUPPORT && rc != -EINVAL)
			break;
	}
	return rc;
}

/* The image file on the export at dir, probed, on a read-only loop
 * device: the layer's device and type from here on. 0, or -errno with why. */
static int attach_image(struct boot *b, unsigned layer, const char *dir, const char *path, char *why, size_t cap)
{
	char what[96];
	int d, img, rc;

	d = sys_open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	img = d < 0 ? d : sys_openat(d, path + 1, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
	if (d >= 0)
		sys_close(d);
	if (img < 0) {
		IGNORE(strfmt(why, cap, "image %s %s", path, img == -ENOENT ? "is not on the export" :
			      strerror(-img))); /* a cut line still names the image */
		return img;
	}
	rc = net_image_layer(b, layer, img, what, sizeof(what));
	sys_close(img);
	if (rc < 0)
		IGNORE(strfmt(why, cap, "image %s %s", path, what)); /* a cut line still names the image */
	return rc;
}

/* The server's port answers by the deadline: 0, or -errno with why. A
 * hard mount of a server that never answers would wait past any deadline. */
static int reachable(uint32_t addr, unsigned port, uint64_t end, char *why, size_t cap)
{
	int fd = net_dial(addr, port, end);

	if (fd >= 0) {
		sys_close(fd);
		return 0;
	}
	IGNORE(strfmt(why, cap, "server unreachable on port %u: %s", port,
		      fd == -EAGAIN || fd == -EINPROGRESS || fd == -ETIMEDOUT ? "no answer by the deadline" :
		      strerror(-fd))); /* fits */
	return fd;
}

int step_nfs(struct boot *b, unsigned layer, struct step_out *o)
{
	static char name[SPEC_VALUE_MAX], image[SPEC_PATH_MAX], source[NFS_SOURCE_MAX], why[160];
	const struct spec *s = &b->lower[layer - 1];
	uint64_t end = net_deadline(b);
	char dir[48];
	const char *export_path;
	uint32_t addr;
	unsigned port, minor = 0;
	int rc;

	IGNORE(strcopy(name, sizeof(name), s->value)); /* same size; s becomes the loop */
	IGNORE(strcopy(image, sizeof(image), s->npaths ? s->paths[0] : "")); /* same size */
	if (spec_nfs_split(name, &addr, &port, &export_path) < 0 ||
	    nfs_mount_source(source, sizeof(source), addr, export_path) < 0) {
		IGNORE(strfmt(o->why, sizeof(o->why), "read-only layer %u: %s", layer, SPEC_NFS_WHY)); /* fits */
		return -EINVAL;
	}
	IGNORE(strfmt(dir, sizeof(dir), NFS_DIR "/%u", layer)); /* fits */
	watchdog_phase(end == UINT64_MAX ? 0 : (unsigned)((end - sys_now_ms()) / 1000) + WD_MARGIN_S,
		       "mounting nfs:%s", name);
	rc = reachable(addr, port, end, why, sizeof(why));
	if (rc == 0) {
		modules_for_fs(b, "nfs4");
		rc = sys_mkdir_p(dir, 0700);
		/* an image's export needs nothing but the file read */
		rc = rc < 0 ? rc : mount_export(b, source, addr, port, dir,
						MS_RDONLY | (image[0] ? MS_NOSUID | MS_NODEV | MS_NOEXEC : 0), &minor);
		if (rc < 0)
			IGNORE(strfmt(why, sizeof(why), "mounting %s failed: %s", source, refusal(rc)));
	}
	if (rc == 0 && image[0]) {
		rc = attach_image(b, layer, dir, image, why, sizeof(why));
		if (rc < 0) /* a loop keeps its file's mount; none did */
			IGNORE(sys_umount2(dir, MNT_DETACH));
	} else if (rc == 0) { /* the tree is the layer: step_mount_lower binds it */
		IGNORE(strcopy(b->lower_dev[layer - 1], sizeof(b->lower_dev[0]), dir)); /* fits */
		IGNORE(strcopy(b->lower_type[layer - 1], sizeof(b->lower_type[0]), "nfs4")); /* fits */
	}
	if (rc < 0) {
		IGNORE(strfmt(o->why, sizeof(o->why), "read-only layer %u: nfs:%s%s%s: %s", layer, name,
			      image[0] ? ":" : "", image, why)); /* a cut line still names the layer */
		return rc;
	}
	IGNORE(strfmt(b->lower_via[layer - 1], sizeof(b->lower_via[0]), "nfs:%s%s%s over %s, hard mount, NFS 4.%u",
		      name, image[0] ? ":" : "", image, b->net_text, minor)); /* a cut text still names the server */
	log_info("read-only layer %u: nfs:%s%s%s is %s (NFS 4.%u, read-only, hard)", layer, name,
		 image[0] ? ":" : "", image, image[0] ? b->lower_dev[layer - 1] : dir, minor);
	return 0;
}
