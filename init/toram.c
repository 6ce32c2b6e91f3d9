// SPDX-License-Identifier: MIT
/* union.toram: an image (or a whole device) copied into a tmpfs of its own,
 * when the RAM it needs is there, so that the medium can go. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "boot.h"
#include "lib/fdcopy.h"
#include "lib/lines.h"
#include "lib/log.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"
#include "media/media.h"

#define TORAM_DIR RUNDIR "/toram"

static unsigned toram_seq;

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
int toram_copy(int fd, uint64_t size, const char *role)
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
	dfd = sys_open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	out = dfd < 0 ? dfd : sys_openat(dfd, "image", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400);
	rc = out < 0 ? out : 0;
	log_note("%s: union.toram: copying %llu MiB to RAM", role, (unsigned long long)(size >> 20));
	if (rc == 0)
		rc = (int)sys_lseek(fd, 0, SEEK_SET); /* the new offset, 0, or -errno */
	if (rc == 0) {
		static char buf[128 * 1024];
		struct progress p = { role, size };

		watchdog_step(0, "copying %s to RAM", role); /* it says its progress itself */
		rc = fd_copy(fd, out, size, buf, sizeof(buf), toram_tick, &p);
		watchdog_step_end();
	}
	if (out >= 0)
		sys_close(out);
	if (rc == 0)
		rc = sys_openat(dfd, "image", O_RDONLY | O_CLOEXEC, 0);
	if (dfd >= 0)
		sys_close(dfd);
	if (rc < 0) {
		int err;

		log_err("%s: union.toram: copying to %s failed: %s; running from the medium", role, dir,
			strerror(-rc));
		if ((err = sys_umount2(dir, MNT_DETACH)) < 0)
			log_warn("cannot unmount %s: %s", dir, strerror(-err));
	}
	return rc;
}
