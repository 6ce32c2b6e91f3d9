// SPDX-License-Identifier: MIT
/* Step 5: mount the read-only layers, the writable branch (upper/, work/,
 * .unionroot/) as the plan says (init/writable.c), and the overlay at
 * /newroot; every failure of the writable branch goes through union.onfail. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "branch/branch.h"
#include "branch/crashpoint.h"
#include "branch/identity.h"
#include "lib/log.h"
#include "copyup/manifest.h"
#include "media/media.h"
#include "overlay/overlay.h"
#include "branch/reset.h"
#include "lib/sbuf.h"
#include "branch/state.h"
#include "lib/sys.h"

static char lower_dirs[SPEC_LIST_MAX][48];
static const char *lower_paths[SPEC_LIST_MAX];

static void mount_lowers(struct boot *b)
{
	for (unsigned i = 0; i < b->nlower; i++) {
		const char *type = b->lower_type[i];
		const char *data = NULL;
		char why[256];
		int rc;

		IGNORE(strfmt(lower_dirs[i], sizeof(lower_dirs[i]), RUNDIR "/lower/%u", i)); /* fits */
		if (b->pivot) {
			rc = noinitramfs_lower(lower_dirs[i]);
			if (rc < 0) {
				IGNORE(strfmt(why, sizeof(why),
					      "binding the running root read-only to %s failed: %s",
					      lower_dirs[i], strerror(-rc))); /* fits */
				rescue_fatal(b, why);
			}
			lower_paths[i] = lower_dirs[i];
			continue;
		}
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
		watchdog_step(WD_STEP_S, "mounting read-only layer %u %s (%s)", i + 1, b->lower_dev[i], type);
		if (rc == 0)
			rc = sys_mount(b->lower_dev[i], lower_dirs[i], type, MS_RDONLY, data);
		watchdog_step_end();
		if (rc < 0) {
			IGNORE(strfmt(why, sizeof(why), "mounting read-only layer %u %s (%s) failed: %s%s",
				      i + 1, b->lower_dev[i], type, strerror(-rc),
				      rc == -EINVAL ? " (a damaged or truncated image?)" : ""));
			rescue_fatal(b, why);
		}
		log_info("read-only layer %u: %s (%s) on %s", i + 1, b->lower_dev[i], type,
			 lower_dirs[i]);
		lower_paths[i] = lower_dirs[i];
	}
}

/* Lazy unmount of a mount of ours; a failure is said and left. */
void union_detach(const char *path)
{
	if (umount2(path, MNT_DETACH) < 0)
		log_warn("cannot unmount %s: %s", path, strerror(errno));
}

/* The root gets the removable branch's nodev/nosuid while any of the branch
 * is in it (persistent, or kept at SAVEDIR by a failsafe or kiosk boot);
 * none once union.onfail released it. */
static void set_root_flags(struct boot *b)
{
	b->root_flags = b->upper_released ? 0 : b->upper_flags;
}

static int mount_overlay(struct boot *b, int with_upper)
{
	const char *lowers[SPEC_LIST_MAX + 1];
	unsigned long flags = (b->cfg.rorw == RORW_RO ? MS_RDONLY : 0) | b->root_flags;
	unsigned n = 0;
	int rc;

	if (b->session_layer) /* whiteouts and opaque dirs in it keep their meaning */
		lowers[n++] = SAVEDIR "/upper";
	for (unsigned i = 0; i < b->nlower; i++)
		lowers[n++] = lower_paths[i];
	rc = overlay_options(b->overlay_opts, sizeof(b->overlay_opts), lowers, n,
			     with_upper ? RWDIR "/upper" : NULL, with_upper ? RWDIR "/work" : NULL);
	if (rc < 0)
		return rc;
	modules_for_fs(b, "overlay");
	rc = sys_mount("overlay", NEWROOT, "overlay", flags, b->overlay_opts);
	if (rc < 0 || !with_upper || (flags & MS_RDONLY) || !path_readonly(NEWROOT))
		return rc;
	/* overlayfs mounts read-only when it cannot create work/work (a full
	 * branch): a union that cannot take a write is a failure, said as one */
	union_detach(NEWROOT);
	return -EROFS;
}

/* The overlay over the branch at rw (closed here). A persistent branch the
 * overlay refuses is a fact for onfail(): the plan's fallback branch takes
 * its place. 0, or the mount's -errno. */
static int overlay_root(struct boot *b, int rw)
{
	int rc = mount_overlay(b, 1);

	if (rc < 0 && rc != -ENODEV && b->upper_kind == UPPER_DEVICE) {
		/* stale or incompatible work/ (another kernel, a crash): it holds
		 * nothing of the user's, so start it afresh once */
		log_warn("overlay mount refused (%s); retrying with a fresh work/", strerror(-rc));
		if (branch_fresh_work(rw) == 0)
			rc = mount_overlay(b, 1);
	}
	if (rc < 0 && rc != -ENODEV && b->upper_kind == UPPER_DEVICE) {
		char why[200];

		if (rc == -EROFS || rc == -ENOSPC)
			IGNORE(strfmt(why, sizeof(why),
				      "overlay over writable branch %s %s: no room for work/ (%d%% full)",
				      b->upper_dev, rc == -EROFS ? "came up read-only" : "failed",
				      room_used_percent(rw)));
		else
			IGNORE(strfmt(why, sizeof(why), "overlay over writable branch %s failed: %s",
				      b->upper_dev, strerror(-rc)));
		close(rw);
		union_detach(RWDIR);
		onfail(b, STEP_OVERLAY, rc, why);
		rw = writable_branch(b, lower_paths);
		set_root_flags(b);
		rc = rw >= 0 ? mount_overlay(b, 1) : rw;
	}
	if (rc == 0) {
		b->backend = "overlay";
	} else {
		log_err("overlay mount failed: %s%s; booting the read-only layer without a writable branch",
			strerror(-rc), rc == -ENODEV ? " (no overlayfs in this kernel)" : "");
		result_branch(b, OUTCOME_LOST, "overlay", rc);
	}
	if (rw >= 0)
		close(rw);
	return rc;
}

/* The root without a writable branch: the layers as a read-only overlay, or
 * the one layer bound. */
static void readonly_root(struct boot *b)
{
	int rc;

	if (b->nlower > 1 && mount_overlay(b, 0) == 0) {
		b->backend = "overlay (read-only)";
	} else {
		rc = sys_mount(lower_dirs[0], NEWROOT, NULL, MS_BIND, NULL);
		if (rc < 0) {
			char why[160];

			IGNORE(strfmt(why, sizeof(why), "binding the read-only layer to %s failed: %s",
				      NEWROOT, strerror(-rc))); /* fits */
			rescue_fatal(b, why);
		}
		b->backend = "bind (read-only)";
		b->overlay_opts[0] = '\0';
	}
	result_branch(b, OUTCOME_NONE, NULL, 0);
}

/* The copy-up root (copyup_root) over the branch at rw: its backend. */
static void copyup_backend(struct boot *b, int rw)
{
	static char text[160];

	if (copyup_root(b, rw) < 0)
		return; /* logged; without a backend the layer is bound read-only */
	IGNORE(strfmt(text, sizeof(text), "copyup (%s)", b->plan.backend_why)); /* fits */
	b->backend = text;
}

void union_build(struct boot *b)
{
	int rw;

	verity_layers(b);       /* before any mount: a refused layer is never mounted */
	mount_lowers(b);
	IGNORE(sys_mkdir_p(NEWROOT, 0755)); /* the initramfs ships it */
	copyup_choose(b);       /* the kernel's overlayfs, a fact: the plan's backend */
	rw = writable_branch(b, lower_paths); /* the plan's branch, or its fallback */
	set_root_flags(b);
	if (rw >= 0 && b->plan.backend == PLAN_COPYUP) {
		copyup_backend(b, rw);
		close(rw);
	} else if (rw >= 0) {
		IGNORE(overlay_root(b, rw)); /* logged */
	}
	if (!b->backend)
		readonly_root(b);
	b->t_mounts = sys_now_ms();
	log_info("root: %s; writable branch %s", b->backend, b->upper_state);
}
