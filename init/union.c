// SPDX-License-Identifier: MIT
/* Step 5's read-only side: the layers, and the root over them: the overlay
 * with the writable branch, or without one, read-only. */
#include <errno.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "boot.h"
#include "branch/branch.h"
#include "branch/crashpoint.h"
#include "branch/identity.h"
#include "branch/reset.h"
#include "branch/state.h"
#include "copyup/manifest.h"
#include "lib/log.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"
#include "media/media.h"
#include "overlay/overlay.h"
#include "steps.h"

/* An nfs: layer's tree (init/net_nfs.c mounted the export read-only at
 * lower_dev) bound at dir, read-only there too. */
static int bind_tree(struct boot *b, unsigned layer, const char *dir, int rc, struct step_out *o)
{
	unsigned i = layer - 1;

	if (rc == 0)
		rc = sys_mount(b->lower_dev[i], dir, NULL, MS_BIND, NULL);
	if (rc == 0)
		rc = sys_mount(NULL, dir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
	if (rc < 0) {
		IGNORE(strfmt(o->why, sizeof(o->why), "binding read-only layer %u %s to %s failed: %s", layer,
			      b->lower_dev[i], dir, strerror(-rc))); /* fits */
		return rc;
	}
	log_info("read-only layer %u: %s (nfs4) on %s", layer, b->lower_dev[i], dir);
	if (layer == b->nlower)
		IGNORE(sys_mkdir_p(boot_root(b), 0755)); /* the initramfs ships it */
	return 0;
}

/* A layer that cannot be mounted has no stand-in: why says so, -errno. */
int step_mount_lower(struct boot *b, unsigned layer, struct step_out *o)
{
	unsigned i = layer - 1;
	const char *type = b->lower_type[i];
	const char *dir = b->lower_dir[i];
	int rc;

	IGNORE(strfmt(b->lower_dir[i], sizeof(b->lower_dir[i]), RUNDIR "/lower/%u", i)); /* fits */
	if (b->pivot) {
		rc = noinitramfs_lower(dir);
		if (rc < 0)
			IGNORE(strfmt(o->why, sizeof(o->why),
				      "binding the running root read-only to %s failed: %s", dir,
				      strerror(-rc))); /* fits */
	} else {
		rc = sys_mkdir_p(dir, 0755);
		if (strcmp(type, "nfs4") == 0) /* an nfs: tree, mounted by its step */
			return bind_tree(b, layer, dir, rc, o);
		if (b->plan.lower_fstype[0])
			type = b->plan.lower_fstype;
		if (!type[0]) {
			IGNORE(strfmt(o->why, sizeof(o->why),
				      "read-only layer %u %s holds no file system unionroot knows", layer,
				      b->lower_dev[i]));
			return -EMEDIUMTYPE;
		}
		modules_for_fs(b, type);
		watchdog_step(WD_STEP_S, "mounting read-only layer %u %s (%s)", layer, b->lower_dev[i], type);
		if (rc == 0)
			rc = sys_mount(b->lower_dev[i], dir, type, MS_RDONLY,
				       b->plan.lower_flags[0] ? b->plan.lower_flags : NULL);
		watchdog_step_end();
		if (rc < 0)
			IGNORE(strfmt(o->why, sizeof(o->why), "mounting read-only layer %u %s (%s) failed: %s%s",
				      layer, b->lower_dev[i], type, strerror(-rc),
				      rc == -EINVAL ? " (a damaged or truncated image?)" : ""));
		else
			log_info("read-only layer %u: %s (%s) on %s", layer, b->lower_dev[i], type, dir);
	}
	if (rc == 0 && layer == b->nlower)
		IGNORE(sys_mkdir_p(boot_root(b), 0755)); /* the initramfs ships it */
	return rc;
}

/* Lazy unmount of a mount of ours; a failure is said and left. */
void union_detach(const char *path)
{
	int rc = sys_umount2(path, MNT_DETACH);

	if (rc < 0)
		log_warn("cannot unmount %s: %s", path, strerror(-rc));
}

void step_close_branch(struct boot *b)
{
	if (b->rw >= 0)
		sys_close(b->rw);
	b->rw = -1;
}

/* The root gets the removable branch's nodev/nosuid while any of the branch
 * is in it (persistent, or kept at SAVEDIR by a failsafe or kiosk boot);
 * none once the fallback released it. */
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
		lowers[n++] = b->lower_dir[i];
	rc = overlay_options(b->overlay_opts, sizeof(b->overlay_opts), lowers, n,
			     with_upper ? RWDIR "/upper" : NULL, with_upper ? RWDIR "/work" : NULL);
	if (rc < 0)
		return rc;
	modules_for_fs(b, "overlay");
	rc = sys_mount("overlay", boot_root(b), "overlay", flags, b->overlay_opts);
	if (rc < 0 || !with_upper || (flags & MS_RDONLY) || !path_readonly(boot_root(b)))
		return rc;
	/* overlayfs mounts read-only when it cannot create work/work (a full
	 * branch): a union that cannot take a write is a failure, said as one */
	union_detach(boot_root(b));
	return -EROFS;
}

/* The overlay over the branch at b->rw (closed once it is up). On the
 * persistent device a refusal says why, for the fallback: 0 or -errno. */
int step_overlay(struct boot *b, int device, struct step_out *o)
{
	int rc;

	set_root_flags(b);
	rc = mount_overlay(b, 1);
	if (rc == 0) {
		b->backend = "overlay";
		step_close_branch(b);
		return 0;
	}
	o->step = STEP_OVERLAY;
	if (device && (rc == -EROFS || rc == -ENOSPC))
		IGNORE(strfmt(o->why, sizeof(o->why),
			      "overlay over writable branch %s %s: no room for work/ (%d%% full)",
			      b->upper_dev, rc == -EROFS ? "came up read-only" : "failed",
			      room_used_percent(b->rw)));
	else if (device)
		IGNORE(strfmt(o->why, sizeof(o->why), "overlay over writable branch %s failed: %s",
			      b->upper_dev, strerror(-rc)));
	return rc;
}

/* The overlay refused the device: its work/ holds nothing of the user's. */
int step_fresh_work(struct boot *b)
{
	return branch_fresh_work(b->rw);
}

/* The copy-up root: upper/ of the branch bound at /newroot with the
 * flags the branch's medium asks for: 0, or -errno (said). */
int union_copyup_root(struct boot *b)
{
	int rc;

	set_root_flags(b);
	rc = sys_mount(RWDIR "/" BRANCH_UPPER, boot_root(b), NULL, MS_BIND, NULL);
	/* the root has the flags union.removable asks for, not the tmpfs's */
	if (rc == 0)
		rc = sys_remount(boot_root(b), MS_BIND | b->root_flags | (b->cfg.rorw == RORW_RO ? MS_RDONLY : 0),
				 MS_NODEV | MS_NOSUID);
	if (rc < 0) {
		log_err("copy-up: binding %s/upper to %s failed: %s; booting the read-only layer",
			RWDIR, boot_root(b), strerror(-rc));
		return rc;
	}
	IGNORE(strfmt(b->copyup_text, sizeof(b->copyup_text), "copyup (%s)", b->plan.backend_why)); /* fits */
	b->backend = b->copyup_text;
	return 0;
}

/* The root without a writable branch: the layers as a read-only overlay, or
 * the one layer bound. */
int step_readonly(struct boot *b, struct step_out *o)
{
	int rc;

	if (b->nlower > 1 && mount_overlay(b, 0) == 0) {
		b->backend = "overlay (read-only)";
	} else {
		rc = sys_mount(b->lower_dir[0], boot_root(b), NULL, MS_BIND, NULL);
		if (rc < 0) {
			IGNORE(strfmt(o->why, sizeof(o->why), "binding the read-only layer to %s failed: %s",
				      boot_root(b), strerror(-rc))); /* fits */
			return rc;
		}
		b->backend = "bind (read-only)";
		b->overlay_opts[0] = '\0';
	}
	result_branch(b, OUTCOME_NONE, NULL, 0);
	return 0;
}
