// SPDX-License-Identifier: MIT
/* Step 5: mount the read-only layers, the writable branch (upper/, work/,
 * .unionroot/), and the overlay at /newroot; every failure of the writable
 * branch goes through union.onfail. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "branch.h"
#include "log.h"
#include "overlay.h"
#include "sbuf.h"
#include "sys.h"

static char lower_dirs[SPEC_LIST_MAX][48];

static void mount_lowers(struct boot *b)
{
	for (unsigned i = 0; i < b->nlower; i++) {
		const char *type = b->lower_type[i];
		const char *data = NULL;
		char why[256];
		int rc;

		IGNORE(strfmt(lower_dirs[i], sizeof(lower_dirs[i]), RUNDIR "/lower/%u", i)); /* fits */
		rc = sys_mkdir_p(lower_dirs[i], 0755);
		if (!b->cfg.lower[0]) { /* the layer came from root= */
			if (b->cfg.rootfstype[0])
				type = b->cfg.rootfstype;
			if (b->cfg.rootflags[0])
				data = b->cfg.rootflags;
		}
		if (!type[0]) {
			IGNORE(strfmt(why, sizeof(why),
				      "read-only layer %u %s holds no file system unionroot knows", i + 1,
				      b->lower_dev[i]));
			rescue_fatal(b, why);
		}
		modules_for_fs(b, type);
		if (rc == 0)
			rc = sys_mount(b->lower_dev[i], lower_dirs[i], type, MS_RDONLY, data);
		if (rc < 0) {
			IGNORE(strfmt(why, sizeof(why), "mounting read-only layer %u %s (%s) failed: %s",
				      i + 1, b->lower_dev[i], type, strerror(-rc)));
			rescue_fatal(b, why);
		}
		log_info("read-only layer %u: %s (%s) on %s", i + 1, b->lower_dev[i], type,
			 lower_dirs[i]);
	}
}

static int mount_tmpfs_upper(struct boot *b)
{
	char opts[64];
	int rc;

	if (b->cfg.size[0])
		rc = strfmt(opts, sizeof(opts), "mode=0755,size=%s", b->cfg.size);
	else
		rc = strfmt(opts, sizeof(opts), "mode=0755");
	if (rc == 0)
		rc = sys_mount("tmpfs", RWDIR, "tmpfs", MS_NOSUID | MS_NODEV, opts);
	if (rc < 0)
		log_err("mounting a tmpfs writable branch failed: %s; booting read-only",
			strerror(-rc));
	if (!b->upper_state[0])
		IGNORE(strcopy(b->upper_state, sizeof(b->upper_state), "volatile (union.upper=tmpfs)"));
	return rc;
}

/* Mounts and lays out the writable branch; returns an fd of its top, or
 * -errno after applying union.onfail (then the caller retries as tmpfs). */
static int writable_branch(struct boot *b)
{
	const char *type = b->cfg.upperfs[0] ? b->cfg.upperfs : b->upper_type;
	const char *what = "mounting";
	struct branch_result res;
	char why[256];
	int rw, rc;

	rc = sys_mkdir_p(RWDIR, 0755);
	if (rc < 0)
		return rc;
	if (b->upper_kind == UPPER_TMPFS) {
		rc = mount_tmpfs_upper(b);
		if (rc < 0)
			return rc;
	} else {
		if (!type[0]) {
			IGNORE(strfmt(why, sizeof(why), "writable branch %s holds no known file system",
				      b->upper_dev));
			goto fail_unmounted;
		}
		modules_for_fs(b, type);
		rc = sys_mount(b->upper_dev, RWDIR, type, MS_NOATIME,
			       b->cfg.upperflags[0] ? b->cfg.upperflags : NULL);
		if (rc < 0) {
			IGNORE(strfmt(why, sizeof(why), "mounting writable branch %s (%s) failed: %s",
				      b->upper_dev, type, strerror(-rc)));
			goto fail_unmounted;
		}
	}
	rw = open(RWDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rw < 0) {
		rc = -errno;
		what = "opening";
		goto fail;
	}
	rc = branch_prepare(rw, copyup_take_reset(b, rw, b->cfg.reset != RESET_OFF), &res, &what);
	if (rc < 0) {
		close(rw);
		goto fail;
	}
	if (res.repaired)
		log_warn("writable branch %s: a non-directory stood where upper/, work/ or .unionroot/ belong; moved it aside",
			 b->upper_dev[0] ? b->upper_dev : "tmpfs");
	if (res.reset_done) {
		b->reset_applied = 1;
		log_note("factory reset: the old writable tree is set aside (%s); it is deleted after the switch",
			 res.from_request ? "requested by 'unionroot reset'" : "union.reset");
	}
	if (b->upper_kind == UPPER_DEVICE)
		IGNORE(strfmt(b->upper_state, sizeof(b->upper_state), "persistent on %s (%s)",
			      b->upper_dev, type)); /* fits: short names */
	return rw;

fail:
	IGNORE(strfmt(why, sizeof(why), "writable branch %s: %s failed: %s",
		      b->upper_dev[0] ? b->upper_dev : "tmpfs", what, strerror(-rc)));
	if (umount2(RWDIR, MNT_DETACH) < 0)
		log_warn("cannot unmount %s: %s", RWDIR, strerror(errno));
fail_unmounted:
	if (b->upper_kind == UPPER_TMPFS) {
		log_err("%s; booting read-only", why);
		return -EIO;
	}
	onfail(b, why);
	return -EAGAIN;
}

static int mount_overlay(struct boot *b, int with_upper)
{
	const char *lowers[SPEC_LIST_MAX];
	unsigned long flags = b->cfg.rorw == RORW_RO ? MS_RDONLY : 0;
	int rc;

	for (unsigned i = 0; i < b->nlower; i++)
		lowers[i] = lower_dirs[i];
	rc = overlay_options(b->overlay_opts, sizeof(b->overlay_opts), lowers, b->nlower,
			     with_upper ? RWDIR "/upper" : NULL, with_upper ? RWDIR "/work" : NULL);
	if (rc < 0)
		return rc;
	modules_for_fs(b, "overlay");
	return sys_mount("overlay", NEWROOT, "overlay", flags, b->overlay_opts);
}

void union_build(struct boot *b)
{
	int rw = -1, rc;

	mount_lowers(b);
	IGNORE(sys_mkdir_p(NEWROOT, 0755)); /* the initramfs ships it */
	copyup_choose(b);

	while (b->upper_kind != UPPER_NONE) {
		rw = writable_branch(b);
		if (rw != -EAGAIN)
			break;
	}
	if (rw >= 0 && b->copyup) {
		IGNORE(copyup_root(b, rw)); /* logged; without a backend the layer is bound read-only */
		close(rw);
		rw = -1;
	}
	if (rw >= 0) {
		rc = mount_overlay(b, 1);
		if (rc < 0 && rc != -ENODEV && b->upper_kind == UPPER_DEVICE) {
			/* stale or incompatible work/ (another kernel, a crash): it
			 * holds nothing of the user's, so start it afresh once */
			log_warn("overlay mount refused (%s); retrying with a fresh work/", strerror(-rc));
			if (branch_fresh_work(rw) == 0)
				rc = mount_overlay(b, 1);
		}
		if (rc < 0 && rc != -ENODEV && b->upper_kind == UPPER_DEVICE) {
			char why[160];

			close(rw);
			IGNORE(strfmt(why, sizeof(why), "overlay over writable branch %s failed: %s",
				      b->upper_dev, strerror(-rc)));
			if (umount2(RWDIR, MNT_DETACH) < 0)
				log_warn("cannot unmount %s: %s", RWDIR, strerror(errno));
			onfail(b, why);
			rw = writable_branch(b);
			rc = rw >= 0 ? mount_overlay(b, 1) : rw;
		}
		if (rc == 0) {
			b->backend = "overlay";
		} else {
			log_err("overlay mount failed: %s%s; booting the read-only layer without a writable branch",
				strerror(-rc), rc == -ENODEV ? " (no overlayfs in this kernel)" : "");
			IGNORE(strfmt(b->upper_state, sizeof(b->upper_state), "none: overlay failed: %s",
				      strerror(-rc))); /* fits */
		}
		if (rw >= 0)
			close(rw);
	}
	if (!b->backend) {
		if (b->nlower > 1 && mount_overlay(b, 0) == 0) {
			b->backend = "overlay (read-only)";
		} else {
			rc = sys_mount(lower_dirs[0], NEWROOT, NULL, MS_BIND, NULL);
			if (rc < 0)
				rescue_fatal(b, "cannot bind the read-only layer to /newroot");
			b->backend = "bind (read-only)";
			b->overlay_opts[0] = '\0';
		}
		if (!b->upper_state[0])
			IGNORE(strcopy(b->upper_state, sizeof(b->upper_state), "none (union.upper=none)"));
	}
	b->t_mounts = sys_now_ms();
	log_info("root: %s; writable branch %s", b->backend, b->upper_state);
}
