// SPDX-License-Identifier: MIT
/* The persistence file as the writable device: opened on its medium, or,
 * when missing and the plan says to make it (union.persist.size), made after
 * the read-only layers are mounted (the image's mkfs may be the one that
 * runs) under a temporary name, sized, formatted and synced, then renamed into
 * place: a power cut never leaves a half-made file under the name booted. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "lib/log.h"
#include "lib/resolve.h"
#include "media/loopdev.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"
#include "steps.h"

#define TMP_SUFFIX ".unionroot-new"

/* fallocate where the medium has it (ext4, f2fs, btrfs, xfs; vfat, which
 * zero-fills); else a growing ftruncate, which on exFAT allocates and
 * zero-fills too: FAT and exFAT have no holes, the others need none. */
static int size_file(int fd, uint64_t bytes)
{
	int rc = sys_fallocate(fd, 0, 0, (off_t)bytes);

	if (rc != -EOPNOTSUPP)
		return rc;
	return sys_ftruncate(fd, (off_t)bytes);
}

/* mkfs on a loop over the file: the formatter wants a device, and the loop
 * keeps it beneath the medium whatever the path holds. */
static int format_file(struct boot *b, int fd, const char *fs)
{
	struct loopdev ld;
	int loop, rc;

	modules_for_need(NEED_LOOP); /* loop waits for a boot that needs it */
	loop = loop_attach(fd, LOOP_WRITABLE, &ld);
	if (loop < 0)
		return loop;
	sys_close(loop);
	rc = firstboot_mkfs(b, ld.path, fs, NULL);
	if (loop_detach(ld.path) < 0)
		log_warn("cannot detach %s; it stays attached", ld.path);
	/* the loop wrote through the file's page cache */
	if (rc == 0)
		rc = sys_fsync(fd);
	return rc;
}

/* The directory the file goes in, beneath the medium's top; *base gets the
 * file's own name. An fd or -errno. */
static int open_parent(int top, const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	char parent[SPEC_PATH_MAX];

	*base = slash ? slash + 1 : path;
	while (slash && slash > path && slash[-1] == '/')
		slash--;
	if (!slash || slash == path) {
		return sys_openat(top, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	}
	if ((size_t)(slash - path) >= sizeof(parent))
		return -ENAMETOOLONG;
	memcpy(parent, path, (size_t)(slash - path));
	parent[slash - path] = '\0';
	return sys_open_beneath(top, parent, O_RDONLY | O_DIRECTORY);
}

/* The file under tmp in pfd, sized, formatted, synced, renamed to base. */
static int make_in(struct boot *b, int pfd, const char *tmp, const char *base, const char **what)
{
	const struct plan *p = &b->plan;
	int fd, rc, err;

	*what = "removing a half-made file a power cut left";
	rc = sys_unlinkat(pfd, tmp, 0);
	if (rc < 0 && rc != -ENOENT)
		return rc;
	*what = "creating it";
	fd = sys_openat(pfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return fd;
	*what = "allocating it";
	rc = size_file(fd, p->persist_bytes);
	if (rc == 0) {
		*what = "formatting it";
		rc = format_file(b, fd, p->persist_fs);
	}
	sys_close(fd);
	if (rc == 0) {
		*what = "renaming it into place";
		rc = sys_renameat(pfd, tmp, pfd, base);
	}
	if (rc == 0)
		rc = sys_fsync(pfd); /* the rename is what makes it */
	else if ((err = sys_unlinkat(pfd, tmp, 0)) < 0)
		log_warn("cannot remove the half-made %s: %s", tmp, strerror(-err));
	return rc;
}

int persist_make(struct boot *b, const char *dev, const char *type, char *why, size_t whylen)
{
	const struct plan *p = &b->plan;
	const char *what = "mounting its medium read-write", *base = "";
	char dir[48], tmp[SPEC_PATH_MAX + sizeof(TMP_SUFFIX)];
	uint64_t t0 = sys_now_ms();
	int top = -1, pfd = -1, rc, mounted;

	log_note("writable branch: persistence file %s on %s is missing; making it, %s as %s (union.persist.size)",
		 p->persist_path, dev, b->cfg.persist_size, p->persist_fs);
	watchdog_step(0, "making persistence file %s on %s", p->persist_path, dev); /* mkfs has its own limit */
	rc = image_medium_rw(b, dev, type, dir);
	mounted = rc == 0;
	if (mounted) {
		what = "opening its directory";
		top = sys_open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		rc = top < 0 ? top : open_parent(top, p->persist_path, &base);
		pfd = rc;
	}
	if (rc >= 0)
		rc = strfmt(tmp, sizeof(tmp), "%s" TMP_SUFFIX, base);
	if (rc >= 0)
		rc = make_in(b, pfd, tmp, base, &what);
	if (pfd >= 0)
		sys_close(pfd);
	if (top >= 0)
		sys_close(top);
	if (mounted) /* unmounted when nothing else uses it: all of it written */
		image_medium_put(dir);
	watchdog_step_end();
	if (rc < 0) {
		IGNORE(strfmt(why, whylen, "writable branch: making persistence file %s on %s failed: %s: %s%s",
			      p->persist_path, dev, what, strerror(-rc),
			      rc == -EFBIG ? " (FAT files stop at 4 GiB)" : "")); /* may cut */
		return rc;
	}
	log_note("writable branch: persistence file %s on %s made in %llu ms", p->persist_path, dev,
		 (unsigned long long)(sys_now_ms() - t0));
	return 0;
}

int persist_file_open(struct boot *b, const struct blkdev *d, char *why, size_t whylen)
{
	const struct spec *s = &b->cfg.upper_spec;
	struct image_req r = { .role = "writable branch", .dev = d->path, .type = d->info.type,
			       .paths = s->paths, .npaths = s->npaths, .quiet_enoent = 1, .rw = 1 };
	int rc;

	if (!s->npaths)
		return 1;
	rc = image_open(b, &r);
	if (rc == -ENOENT && !b->persist_on[0]) {
		b->facts.upper_file_missing = 1; /* the plan makes it when union.persist.size says how big */
		if (b->plan.persist_bytes) {
			/* made after the layers are mounted (step_make_persist),
			 * for the image's mkfs may be the one that runs */
			IGNORE(strcopy(b->persist_on, sizeof(b->persist_on), d->path)); /* same sizes */
			IGNORE(strcopy(b->persist_on_type, sizeof(b->persist_on_type), d->info.type));
			b->upper_dev[0] = b->upper_type[0] = '\0';
			return 1;
		}
	}
	if (rc < 0) {
		if (!why[0])
			IGNORE(strfmt(why, whylen, "writable branch: persistence file %s on %s: %s",
				      r.paths[0], d->path, image_why(rc))); /* may cut */
		return rc;
	}
	IGNORE(strcopy(b->upper_dev, sizeof(b->upper_dev), r.out_dev));    /* both DEVNODE_MAX */
	IGNORE(strcopy(b->upper_type, sizeof(b->upper_type), r.out_type)); /* both FSTYPE_MAX */
	IGNORE(strcopy(b->upper_medium, sizeof(b->upper_medium), d->path)); /* both DEVNODE_MAX */
	IGNORE(strcopy(b->upper_via, sizeof(b->upper_via), r.via)); /* same size */
	return 1;
}

int step_make_persist(struct boot *b, struct step_out *o)
{
	struct blkdev d = { .probed = 1 };
	int rc;

	o->step = STEP_FIND;
	IGNORE(strcopy(d.path, sizeof(d.path), b->persist_on)); /* same sizes */
	IGNORE(strcopy(d.info.type, sizeof(d.info.type), b->persist_on_type));
	rc = persist_make(b, d.path, d.info.type, o->why, sizeof(o->why));
	if (rc == 0)
		rc = persist_file_open(b, &d, o->why, sizeof(o->why));
	if (rc < 0)
		return rc;
	devices_found_upper(b);
	return 0;
}
