// SPDX-License-Identifier: MIT
/* Image files inside media (the live CD/DVD and multi-ISO stick cases): the
 * medium is mounted read-only under /run/unionroot/media/N, each path is
 * opened without leaving its medium and loop-attached read-only, level by
 * level; union.toram first copies the innermost image into RAM and lets the
 * media go. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "fdcopy.h"
#include "lines.h"
#include "log.h"
#include "loopdev.h"
#include "media.h"
#include "probe.h"
#include "sbuf.h"
#include "sys.h"

#define MEDIA_DIR RUNDIR "/media"
#define TORAM_DIR RUNDIR "/toram"
#define MEDIA_FLAGS (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)

struct level {
	char dir[48];    /* where the medium of this level is mounted */
	char loop[32];   /* the loop device mounted there, "" for a real device */
};

struct chain {
	struct level lv[SPEC_PATHS_MAX];
	unsigned n;
};

static unsigned media_seq, toram_seq;

/* Unmounts the levels from the innermost out, detaching their loops. */
static void chain_release(struct chain *c)
{
	while (c->n) {
		struct level *l = &c->lv[--c->n];

		if (umount2(l->dir, 0) < 0)
			log_warn("cannot unmount %s: %s; it stays", l->dir, strerror(errno));
		else if (l->loop[0] && loop_detach(l->loop) < 0)
			log_warn("cannot detach %s; it stays attached", l->loop);
	}
}

static int mount_level(struct boot *b, struct chain *c, const char *dev, const char *type,
		       const char *loop)
{
	struct level *l = &c->lv[c->n];
	int rc;

	if (c->n >= ARRAY_SIZE(c->lv))
		return -E2BIG;
	rc = strfmt(l->dir, sizeof(l->dir), MEDIA_DIR "/%u", media_seq++);
	if (rc == 0)
		rc = strcopy(l->loop, sizeof(l->loop), loop);
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
	return open(c->lv[c->n - 1].dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

struct progress {
	const char *role;
	uint64_t total;
};

static void toram_tick(uint64_t done, void *ctx)
{
	const struct progress *p = ctx;

	log_note("%s: copying to RAM: %llu of %llu MiB", p->role, (unsigned long long)(done >> 20),
		 (unsigned long long)(p->total >> 20));
}

/* union.toram: the image behind fd into a tmpfs of its own. Returns a
 * read-only fd of the copy, or -errno (the caller keeps the medium). */
static int toram_copy(int fd, uint64_t size, const char *role)
{
	char meminfo[4096], dir[48], opts[48];
	uint64_t avail, need;
	int dfd, out, rc;

	if (sys_read_file("/proc/meminfo", meminfo, sizeof(meminfo)) < 0 ||
	    proc_kb(meminfo, "MemAvailable", &avail) < 0) {
		log_err("%s: union.toram: cannot read MemAvailable; running from the medium", role);
		return -ENOENT;
	}
	if (toram_fits(size, avail, &need) < 0) {
		log_err("%s: union.toram: the image needs %llu MiB of RAM, %llu MiB are available; running from the medium (it cannot be removed)",
			role, (unsigned long long)(need >> 20), (unsigned long long)(avail >> 20));
		return -ENOMEM;
	}
	rc = strfmt(dir, sizeof(dir), TORAM_DIR "/%u", toram_seq++);
	if (rc == 0)
		rc = strfmt(opts, sizeof(opts), "mode=0700,size=%llu",
			    (unsigned long long)((size + (1u << 20)) & ~((1ull << 20) - 1)));
	if (rc == 0)
		rc = sys_mkdir_p(dir, 0700);
	if (rc == 0)
		rc = sys_mount("toram", dir, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts);
	if (rc < 0) {
		log_err("%s: union.toram: cannot make a tmpfs at %s: %s; running from the medium", role,
			dir, strerror(-rc));
		return rc;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	out = dfd < 0 ? -1 : openat(dfd, "image", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400);
	rc = out < 0 ? -errno : 0;
	log_note("%s: union.toram: copying %llu MiB to RAM", role, (unsigned long long)(size >> 20));
	if (rc == 0 && lseek(fd, 0, SEEK_SET) < 0)
		rc = -errno;
	if (rc == 0) {
		static char buf[128 * 1024];
		struct progress p = { role, size };

		watchdog_step(0, "copying %s to RAM", role); /* it says its progress itself */
		rc = fd_copy(fd, out, size, buf, sizeof(buf), toram_tick, &p);
		watchdog_step_end();
	}
	if (out >= 0)
		close(out);
	if (rc == 0) {
		rc = openat(dfd, "image", O_RDONLY | O_CLOEXEC);
		if (rc < 0)
			rc = -errno;
	}
	if (dfd >= 0)
		close(dfd);
	if (rc < 0) {
		log_err("%s: union.toram: copying to %s failed: %s; running from the medium", role, dir,
			strerror(-rc));
		if (umount2(dir, MNT_DETACH) < 0)
			log_warn("cannot unmount %s: %s", dir, strerror(errno));
	}
	return rc;
}

/* Loop-attaches fd and probes the loop device. */
static int attach(int fd, int dio, struct loopdev *ld, struct probe_info *info)
{
	struct probe_src src;
	int loop = loop_attach(fd, dio, ld), rc;

	if (loop < 0)
		return loop;
	rc = probe_src_fd(&src, loop);
	if (rc == 0)
		rc = probe_fs(&src, info);
	close(loop);
	if (rc == 0)
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
	default:
		return strerror(-rc);
	}
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
		struct stat st;
		int dir, fd;

		rc = mount_level(b, &c, dev, type, i ? ld.path : "");
		if (rc == 0)
			loose = 0;
		if (rc < 0) {
			log_err("%s: mounting %s (%s) read-only to look for %s failed: %s", r->role, dev,
				type, r->paths[i], strerror(-rc));
			goto fail;
		}
		dir = level_fd(&c);
		fd = dir < 0 ? -errno : sys_open_beneath(dir, r->paths[i], O_RDONLY | O_NOCTTY);
		if (dir >= 0)
			close(dir);
		if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
			close(fd);
			fd = -EISDIR;
		}
		if (fd < 0) {
			rc = fd;
			if (!(r->quiet_enoent && i == 0 && rc == -ENOENT))
				log_err("%s: image %s on %s: %s", r->role, r->paths[i], dev, why_text(rc));
			goto fail;
		}
		if (i + 1 == r->npaths && r->toram) {
			int copy = toram_copy(fd, (uint64_t)st.st_size, r->role);

			if (copy >= 0) {
				close(fd);
				fd = copy;
				in_ram = 1;
			}
		}
		rc = attach(fd, !in_ram, &ld, &info);
		close(fd);
		if (rc < 0) {
			log_err("%s: image %s on %s: %s", r->role, r->paths[i], dev,
				rc == -ENOENT ? "no loop device support (module loop)" : why_text(rc));
			goto fail;
		}
		loose = 1;
		log_info("%s: image %s on %s is %s (%s, read-only%s%s)", r->role, r->paths[i], dev,
			 ld.path, info.type, ld.direct_io ? ", direct I/O" : "",
			 in_ram ? ", in RAM" : "");
		dev = ld.path;
		type = info.type;
		IGNORE(strcopy(r->out_type, sizeof(r->out_type), info.type)); /* 16 bytes both */
	}
	if (r->npaths == 0 && r->toram) {
		int fd = open(r->dev, O_RDONLY | O_CLOEXEC), copy;
		struct probe_src src;

		if (fd < 0 || probe_src_fd(&src, fd) < 0)
			copy = -EIO;
		else
			copy = toram_copy(fd, src.size, r->role);
		if (fd >= 0)
			close(fd);
		if (copy >= 0) {
			rc = attach(copy, 0, &ld, &info);
			close(copy);
			if (rc < 0) {
				log_err("%s: the copy of %s in RAM: %s", r->role, r->dev, why_text(rc));
				goto fail;
			}
			in_ram = 1;
			dev = ld.path;
			IGNORE(strcopy(r->out_type, sizeof(r->out_type), info.type)); /* 16 bytes both */
		}
	}
	IGNORE(strcopy(r->out_dev, sizeof(r->out_dev), dev)); /* 48 bytes both */
	if (r->npaths == 0 && !in_ram)
		IGNORE(strcopy(r->out_type, sizeof(r->out_type), r->type));
	{
		struct sbuf sb;

		sbuf_init(&sb, r->via, sizeof(r->via));
		sbuf_add(&sb, r->dev);
		for (unsigned i = 0; i < r->npaths; i++)
			sbuf_addf(&sb, ":%s", r->paths[i]);
		if (in_ram)
			sbuf_add(&sb, " (copied to RAM)");
		else if (r->npaths)
			sbuf_add(&sb, ld.direct_io ? " (direct I/O)" : " (buffered I/O)");
		IGNORE(sbuf_done(&sb)); /* a cut status line is fine */
	}
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

int image_present(struct boot *b, const char *dev, const char *type, const char *path)
{
	struct chain c = { .n = 0 };
	int dir, fd, rc;

	rc = mount_level(b, &c, dev, type, "");
	if (rc < 0) {
		chain_release(&c);
		return rc;
	}
	dir = level_fd(&c);
	fd = dir < 0 ? -errno : sys_open_beneath(dir, path, O_RDONLY | O_NOCTTY);
	if (dir >= 0)
		close(dir);
	if (fd >= 0)
		close(fd);
	chain_release(&c);
	return fd >= 0;
}
