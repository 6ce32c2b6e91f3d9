// SPDX-License-Identifier: MIT
/* Image files inside media (the live CD/DVD and multi-ISO stick cases): the
 * medium is mounted read-only under /run/unionroot/media/N, each path is
 * opened without leaving its medium and loop-attached read-only, level by
 * level; union.toram first copies the innermost image into RAM and lets the
 * media go. A persistence file (the writable branch) goes on a read-write
 * loop, its medium mounted read-write and shared with the image chains. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "lib/log.h"
#include "lib/resolve.h"
#include "media/loopdev.h"
#include "media/media.h"
#include "probe/probe.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"

#define MEDIA_DIR RUNDIR "/media"
#define MEDIA_FLAGS (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
/* O_NONBLOCK: a FIFO at the image path would block the open (sys_file_check) */
#define IMAGE_FLAGS (O_NOCTTY | O_NONBLOCK)
/* A medium holding a persistence file: its blocks are allocated once, so the
 * loop's writes never touch the FAT or a directory's clusters; noatime keeps
 * reads from rewriting the file's directory entry. (vfat's flush acts on
 * close, which the loop never does; sync would write the entry on every
 * write: more to tear in a power cut, not less.) */
#define MEDIA_RW_FLAGS (MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME)

struct level {
	char dir[48];    /* where the medium of this level is mounted */
	char loop[32];   /* the loop device mounted there, "" for a real device */
};

struct chain {
	struct level lv[SPEC_PATHS_MAX];
	unsigned n;
};

static unsigned media_seq;

/* A device is mounted once and shared by every chain that starts on it: the
 * kernel refuses a second mount of a block device with another read-only
 * state (EBUSY), so the stick holding both the image and the persistence
 * file is mounted read-write once, and the image opened read-only from it. */
struct medium {
	char dev[DEVNODE_MAX];
	char dir[48];
	unsigned users;
	int rw;
};

static struct medium media[SPEC_LIST_MAX + 1];

/* The medium in use mounted from dev (by_dev) or at dir. */
static struct medium *medium_find(const char *name, int by_dev)
{
	for (size_t i = 0; i < ARRAY_SIZE(media); i++)
		if (media[i].users && strcmp(by_dev ? media[i].dev : media[i].dir, name) == 0)
			return &media[i];
	return NULL;
}

/* The shared mount of dev at dir (already filled in for a new one), made
 * read-write when rw: 0 or -errno. */
static int medium_get(struct boot *b, const char *dev, const char *type, char *dir, int rw)
{
	struct medium *m = medium_find(dev, 1);
	int rc;

	if (m && (m->rw || !rw)) {
		m->users++;
		return strcopy(dir, sizeof(m->dir), m->dir); /* both 48 bytes */
	}
	if (m) {
		rc = sys_mount(NULL, m->dir, NULL, MS_REMOUNT | MEDIA_RW_FLAGS, NULL);
		if (rc == 0) {
			m->rw = 1;
			m->users++;
			rc = strcopy(dir, sizeof(m->dir), m->dir); /* both 48 bytes */
		}
		return rc;
	}
	for (size_t i = 0; i < ARRAY_SIZE(media) && !m; i++)
		if (!media[i].users)
			m = &media[i];
	if (!m)
		return -EMFILE;
	rc = sys_mkdir_p(dir, 0755);
	if (rc < 0)
		return rc;
	modules_for_fs(b, type);
	rc = sys_mount(dev, dir, type, rw ? MEDIA_RW_FLAGS : MEDIA_FLAGS, media_mount_options(type));
	if (rc == 0)
		rc = strcopy(m->dev, sizeof(m->dev), dev);
	if (rc == 0)
		rc = strcopy(m->dir, sizeof(m->dir), dir);
	if (rc < 0)
		return rc;
	m->users = 1;
	m->rw = rw;
	return 0;
}

/* 1 when dir is a shared medium another chain still uses. */
static int medium_put(const char *dir)
{
	struct medium *m = medium_find(dir, 0);

	return m && --m->users > 0;
}

/* Unmounts the levels from the innermost out, detaching their loops. */
static void chain_release(struct chain *c)
{
	while (c->n) {
		struct level *l = &c->lv[--c->n];
		int rc;

		if (!l->loop[0] && medium_put(l->dir))
			continue;
		if ((rc = sys_umount2(l->dir, 0)) < 0)
			log_warn("cannot unmount %s: %s; it stays", l->dir, strerror(-rc));
		else if (l->loop[0] && loop_detach(l->loop) < 0)
			log_warn("cannot detach %s; it stays attached", l->loop);
	}
}

static int mount_level(struct boot *b, struct chain *c, const char *dev, const char *type,
		       const char *loop, int rw)
{
	struct level *l = &c->lv[c->n];
	int rc;

	if (c->n >= ARRAY_SIZE(c->lv))
		return -E2BIG;
	rc = strfmt(l->dir, sizeof(l->dir), MEDIA_DIR "/%u", media_seq++);
	if (rc == 0)
		rc = strcopy(l->loop, sizeof(l->loop), loop);
	if (rc == 0 && !loop[0]) {
		rc = medium_get(b, dev, type, l->dir, rw);
		if (rc == 0)
			c->n++;
		return rc;
	}
	if (rc == 0)
		rc = sys_mkdir_p(l->dir, 0755);
	if (rc < 0)
		return rc;
	modules_for_fs(b, type);
	rc = sys_mount(dev, l->dir, type, MEDIA_FLAGS, media_mount_options(type));
	if (rc < 0)
		return rc;
	c->n++;
	return 0;
}

static int level_fd(const struct chain *c)
{
	return sys_open(c->lv[c->n - 1].dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Loop-attaches fd (how: LOOP_* bits) and probes the loop device; a
 * writable one may be blank (info->type "": union.format= can fill it). */
static int attach(int fd, int how, struct loopdev *ld, struct probe_info *info)
{
	struct probe_src src;
	int loop, rc;

	modules_for_need(NEED_LOOP);
	loop = loop_attach(fd, how, ld);

	memset(info, 0, sizeof(*info));
	if (loop < 0)
		return loop;
	rc = probe_src_fd(&src, loop);
	if (rc == 0)
		rc = probe_fs(&src, info);
	sys_close(loop);
	if (rc == 0 && !(how & LOOP_WRITABLE))
		rc = -EMEDIUMTYPE;
	return rc < 0 ? rc : 0;
}

static const char *why_text(int rc)
{
	switch (rc) {
	case -EXDEV:
		return "the path leaves the medium (a symlink out of it, or another mount)";
	case -EMEDIUMTYPE:
		return "it holds no file system unionroot knows";
	case -ENOENT:
		return "no such file on the medium";
	case -EINVAL:
		return "not a regular file (a FIFO, a device or a directory)";
	default:
		return strerror(-rc);
	}
}

const char *image_why(int rc)
{
	return why_text(rc);
}

/* Mounts level i of the chain (the medium, or the loop of the level
 * before, ld) and opens r->paths[i] beneath it: the fd (st its stat), or
 * -errno with the reason logged. */
static int open_level(struct boot *b, struct chain *c, const struct image_req *r, unsigned i,
		      const char *dev, const char *type, const struct loopdev *ld, struct stat *st)
{
	int rc, dir, fd;

	rc = mount_level(b, c, dev, type, i ? ld->path : "", r->rw);
	if (rc < 0) {
		log_err("%s: mounting %s (%s) %s to look for %s failed: %s", r->role, dev,
			type, r->rw ? "read-write" : "read-only", r->paths[i], strerror(-rc));
		return rc;
	}
	dir = level_fd(c);
	fd = dir < 0 ? dir :
		       sys_file_check(sys_open_beneath(dir, r->paths[i],
						       (r->rw ? O_RDWR : O_RDONLY) | IMAGE_FLAGS),
				      st);
	if (dir >= 0)
		sys_close(dir);
	if (fd < 0 && !(r->quiet_enoent && i == 0 && fd == -ENOENT))
		log_err("%s: image %s on %s: %s", r->role, r->paths[i], dev, why_text(fd));
	return fd;
}

/* union.toram of a whole device (no path): its copy in RAM attached to ld.
 * 1 done, 0 not copied (the device serves), -errno the copy's loop failed. */
static int device_toram(const struct image_req *r, struct loopdev *ld, struct probe_info *info)
{
	int fd = sys_open(r->dev, O_RDONLY | O_CLOEXEC), copy, rc;
	struct probe_src src;

	if (fd < 0 || probe_src_fd(&src, fd) < 0)
		copy = -EIO;
	else
		copy = toram_copy(fd, src.size, r->role);
	if (fd >= 0)
		sys_close(fd);
	if (copy < 0)
		return 0;
	rc = attach(copy, 0, ld, info);
	sys_close(copy);
	if (rc < 0) {
		log_err("%s: the copy of %s in RAM: %s", r->role, r->dev, why_text(rc));
		return rc;
	}
	return 1;
}

/* r->via: "/dev/sr0:/live/x.squashfs (direct I/O)", for the status. */
static void via_text(struct image_req *r, int in_ram, int direct_io)
{
	struct sbuf sb;

	sbuf_init(&sb, r->via, sizeof(r->via));
	sbuf_add(&sb, r->dev);
	for (unsigned i = 0; i < r->npaths; i++)
		sbuf_addf(&sb, ":%s", r->paths[i]);
	if (in_ram)
		sbuf_add(&sb, " (copied to RAM)");
	else if (r->npaths)
		sbuf_add(&sb, direct_io ? " (direct I/O)" : " (buffered I/O)");
	IGNORE(sbuf_done(&sb)); /* a cut status line is fine */
}

int image_open(struct boot *b, struct image_req *r)
{
	struct chain c = { .n = 0 };
	struct loopdev ld = { .path = "" };
	struct probe_info info;
	const char *dev = r->dev, *type = r->type;
	int rc = 0, in_ram = 0, loose = 0; /* loose: ld attached, not in the chain */

	r->via[0] = '\0';
	for (unsigned i = 0; i < r->npaths; i++) {
		struct stat st = { .st_size = 0 }; /* set by sys_file_check when fd >= 0 */
		int fd = open_level(b, &c, r, i, dev, type, &ld, &st);

		if (c.n > i)
			loose = 0; /* level i is mounted: the loop before it is the chain's now */
		if (fd < 0) {
			rc = fd;
			goto fail;
		}
		/* a writable file with holes: its blocks are taken only as they
		 * are written, so a full medium fails a write inside the file
		 * (ENOSPC) long after the boot said the branch is there */
		if (r->rw && i + 1 == r->npaths && (uint64_t)st.st_blocks * 512u < (uint64_t)st.st_size)
			log_warn("%s: %s on %s is sparse (%llu of %llu bytes allocated): a write can fail inside it once the medium is full; allocate it whole (fallocate, or dd from /dev/zero)",
				 r->role, r->paths[i], dev, (unsigned long long)st.st_blocks * 512u,
				 (unsigned long long)st.st_size);
		if (i + 1 == r->npaths && r->toram) {
			int copy = toram_copy(fd, (uint64_t)st.st_size, r->role);

			if (copy >= 0) {
				sys_close(fd);
				fd = copy;
				in_ram = 1;
			}
		}
		rc = attach(fd, (in_ram ? 0 : LOOP_WANT_DIO) | (r->rw ? LOOP_WRITABLE : 0), &ld,
			    &info);
		sys_close(fd);
		if (rc < 0) {
			log_err("%s: image %s on %s: %s", r->role, r->paths[i], dev,
				rc == -ENOENT ? "no loop device support (module loop)" : why_text(rc));
			goto fail;
		}
		loose = 1;
		log_info("%s: image %s on %s is %s (%s, %s%s%s)", r->role, r->paths[i], dev,
			 ld.path, info.type[0] ? info.type : "blank", r->rw ? "read-write" : "read-only",
			 ld.direct_io ? ", direct I/O" : "",
			 in_ram ? ", in RAM" : "");
		dev = ld.path;
		type = info.type;
		IGNORE(strcopy(r->out_type, sizeof(r->out_type), info.type)); /* FSTYPE_MAX both */
	}
	if (r->npaths == 0 && r->toram) {
		rc = device_toram(r, &ld, &info);
		if (rc < 0)
			goto fail;
		in_ram = rc;
		if (in_ram) {
			dev = ld.path;
			IGNORE(strcopy(r->out_type, sizeof(r->out_type), info.type)); /* FSTYPE_MAX both */
		}
	}
	IGNORE(strcopy(r->out_dev, sizeof(r->out_dev), dev)); /* DEVNODE_MAX both */
	if (r->npaths == 0 && !in_ram)
		IGNORE(strcopy(r->out_type, sizeof(r->out_type), r->type));
	via_text(r, in_ram, ld.direct_io);
	if (in_ram) {
		chain_release(&c); /* the media may go now */
		log_note("%s: running from RAM; %s can be removed", r->role, r->dev);
	}
	return 0;
fail:
	if (loose && loop_detach(ld.path) < 0)
		log_warn("cannot detach %s; it stays attached", ld.path);
	chain_release(&c);
	return rc;
}

int image_medium_rw(struct boot *b, const char *dev, const char *type, char *dir)
{
	int rc = strfmt(dir, 48, MEDIA_DIR "/%u", media_seq++);

	return rc < 0 ? rc : medium_get(b, dev, type, dir, 1);
}

void image_medium_put(const char *dir)
{
	int rc;

	if (!medium_put(dir) && (rc = sys_umount2(dir, 0)) < 0)
		log_warn("cannot unmount %s: %s; it stays", dir, strerror(-rc));
}

void image_release_upper(struct boot *b)
{
	struct medium *m = medium_find(b->upper_medium, 1);

	b->upper_released = 1; /* nothing of it is in the root now, nor its flags */
	unlock_close(b); /* a LUKS container is closed before its loop or medium goes */
	if (!b->upper_medium[0])
		return;
	b->upper_medium[0] = '\0';
	b->upper_via[0] = '\0';
	/* a loop still open somewhere (a lazy unmount) clears itself at its
	 * last close: LOOP_CLR_FD then sets autoclear and succeeds */
	if (loop_detach(b->upper_dev) < 0)
		log_warn("cannot detach %s; it stays attached", b->upper_dev);
	if (!m)
		return;
	if (--m->users == 0) {
		int rc;

		if (sys_umount2(m->dir, 0) < 0 && (rc = sys_umount2(m->dir, MNT_DETACH)) < 0)
			log_warn("cannot unmount %s: %s; it stays read-write", m->dir, strerror(-rc));
	} else if (m->rw) { /* a read-only layer's image lives on it too */
		if (sys_mount(NULL, m->dir, NULL, MS_REMOUNT | MEDIA_FLAGS, NULL) < 0)
			log_warn("cannot make %s read-only again; it stays read-write", m->dir);
		else
			m->rw = 0;
	}
}

/* The file path on medium dev, mounted for it: *n gets up to cap bytes of
 * it read (0 with no buf) or -errno; the mount's own -errno, else 0. */
static int read_beneath(struct boot *b, const char *dev, const char *type, const char *path, void *buf,
			size_t cap, ssize_t *n)
{
	struct chain c = { .n = 0 };
	int dir, fd, rc = mount_level(b, &c, dev, type, "", 0);

	dir = rc < 0 ? rc : level_fd(&c);
	fd = dir < 0 ? dir : sys_file_check(sys_open_beneath(dir, path, O_RDONLY | IMAGE_FLAGS), NULL);
	*n = fd < 0 ? fd : buf ? sys_read(fd, buf, cap) : 0;
	if (dir >= 0)
		sys_close(dir);
	if (fd >= 0)
		sys_close(fd);
	chain_release(&c);
	return rc;
}

ssize_t image_read_file(struct boot *b, const char *dev, const char *type, const char *path, void *buf,
			size_t cap)
{
	ssize_t n;
	int rc = read_beneath(b, dev, type, path, buf, cap, &n);

	return rc < 0 ? rc : n;
}

int image_present(struct boot *b, const char *dev, const char *type, const char *path)
{
	ssize_t n;
	int rc = read_beneath(b, dev, type, path, NULL, 0, &n);

	return rc < 0 ? rc : n >= 0;
}
