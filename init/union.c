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
#include "crashpoint.h"
#include "identity.h"
#include "log.h"
#include "manifest.h"
#include "media.h"
#include "overlay.h"
#include "reset.h"
#include "sbuf.h"
#include "state.h"
#include "sys.h"

static char lower_dirs[SPEC_LIST_MAX][48];
static const char *lower_paths[SPEC_LIST_MAX];

/* The layer's identity for upgrade detection; unknown identities switch the
 * detection off for this boot rather than guess. */
static void lower_identity(struct boot *b, unsigned i)
{
	int rc = identity_path(b->lower_dev[i], b->lower_id[i], sizeof(b->lower_id[i]));

	if (rc < 0) {
		log_warn("read-only layer %u %s: reading its identity failed: %s; upgrade detection is off for this boot",
			 i + 1, b->lower_dev[i], strerror(-rc));
		b->nlower_id = 0;
	}
}

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

static void say_log(int level, const char *msg, void *ctx)
{
	(void)ctx;
	ur_log(level, "%s", msg);
}

/* Whether a copy-up finished on this branch before (its manifest is there). */
static int copyup_done_before(int rw)
{
	struct stat st;

	return fstatat(rw, BRANCH_STATE "/" MF_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Lazy unmount of a mount of ours; a failure is said and left. */
static void detach(const char *path)
{
	if (umount2(path, MNT_DETACH) < 0)
		log_warn("cannot unmount %s: %s", path, strerror(errno));
}

/* Moves the mounted persistent branch out of the way, read-only, to SAVEDIR,
 * with the nodev/nosuid of removable media kept (it is reachable in the
 * root). 0, or -errno after unmounting it (reported, with what for). */
static int keep_saved(const char *dev, const char *what)
{
	int rc = sys_mkdir_p(SAVEDIR, 0755);

	if (rc == 0)
		rc = sys_remount(RWDIR, MS_RDONLY | MS_NOATIME, 0);
	if (rc == 0)
		rc = sys_mount(RWDIR, SAVEDIR, NULL, MS_MOVE, NULL);
	if (rc < 0) {
		log_err("%s: keeping writable branch %s read-only at %s failed: %s; it is not mounted",
			what, dev, SAVEDIR, strerror(-rc));
		detach(RWDIR);
	}
	return rc;
}

/* The persistent branch leaves the way untouched: read-only, under SAVEDIR;
 * the caller goes on with a tmpfs writable branch. */
static void go_failsafe(struct boot *b, const char *dev, unsigned boots)
{
	IGNORE(strfmt(b->failsafe, sizeof(b->failsafe),
		      "%u boots without 'unionroot boot-ok' (union.maxfails=%d)", boots,
		      b->cfg.maxfails)); /* fits */
	IGNORE(keep_saved(dev, "failsafe")); /* reported; the boot goes on volatile */
	log_err("failsafe boot: writable branch %s: %s; booting a volatile root, the branch read-only at %s",
		dev, b->failsafe, SAVEDIR);
	IGNORE(strfmt(b->upper_state, sizeof(b->upper_state), "volatile: failsafe: %s",
		      b->failsafe)); /* fits */
	b->upper_kind = UPPER_TMPFS;
}

/* Control state: boot counter and layer identities decide failsafe and the
 * upgrade policy; a reset asked for wins over failsafe (the way out of a
 * failsafe loop). 1 when this boot goes failsafe. */
static int control_state(struct boot *b, int rw, struct reset_env *env, struct ur_state *next)
{
	static struct ur_state saved, now;
	struct boot_decision d;
	int rc = state_load(rw, &saved);

	if (rc < 0)
		log_err("control state .unionroot/%s on %s is %s; starting it afresh (boot counter 0, no layer identity known)",
			STATE_FILE, b->upper_dev,
			rc == -EINVAL ? "damaged" : rc == -EFBIG ? "oversized" : strerror(-rc));
	/* identities only matter to a persistent branch: read them here */
	b->nlower_id = b->nlower;
	for (unsigned i = 0; i < b->nlower && b->nlower_id; i++)
		lower_identity(b, i);
	state_clear(&now);
	now.nlower = b->nlower_id;
	for (unsigned i = 0; i < b->nlower_id && i < STATE_LOWER_MAX; i++)
		memcpy(now.lower[i], b->lower_id[i], sizeof(now.lower[i]));
	b->facts.state_known = 1;
	b->facts.state_rc = rc;
	b->facts.saved = saved;
	b->facts.now = now;
	b->facts.reset_request = branch_reset_pending(rw);
	plan_build(&b->facts, &b->plan);
	d = b->plan.decided;
	if (d.failsafe) {
		b->boots = saved.boots;
		go_failsafe(b, b->upper_dev, saved.boots);
		return 1;
	}
	b->lower_changed = d.upgraded;
	if (d.upgraded) {
		static const char *const policy[] = { "keep", "reset", "keeplist" };

		IGNORE(strfmt(b->upgrade, sizeof(b->upgrade), "read-only layer changed; union.upgrade=%s: %s",
			      policy[b->cfg.upgrade],
			      d.reset_mode == RESET_FACTORY ? "factory reset" :
			      d.reset_mode == RESET_FACTORY_KEEPLIST ? "factory reset keeping the keep list" :
			      "user changes stay on top of the new image")); /* fits */
		log_note("%s", b->upgrade);
	}
	env->mode = d.reset_mode;
	b->reset_why = d.reset_mode != RESET_NONE ? d.why : NULL;
	*next = d.next;
	b->boots = d.next.boots;
	return 0;
}


/* union.session=volatile (kiosk): what the admin saved becomes the top
 * read-only layer, a tmpfs takes this session's changes. The reset, the
 * boot counter and upgrades were applied to the saved branch first. In
 * copy-up mode the tmpfs takes a copy of the saved root instead (usable: the
 * saved branch holds a whole root). */
static void go_session(struct boot *b, int usable)
{
	int saved = keep_saved(b->upper_dev, "kiosk session") == 0 && usable;

	b->session_layer = saved;
	IGNORE(strfmt(b->upper_state, sizeof(b->upper_state),
		      "volatile: kiosk session (union.session=volatile)%s%s%s",
		      saved ? "; the saved branch " : "", saved ? b->upper_dev : "",
		      !saved ? "" : b->copyup ? " is copied into RAM (copy-up)" : " is a read-only layer")); /* fits */
	log_note("kiosk session: %s; nothing of this boot persists", b->upper_state);
	b->upper_kind = UPPER_TMPFS;
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

/* A writable branch on removable media (a USB stick anyone can prepare
 * elsewhere) must not bring device nodes or setuid programs into the root:
 * the flags go on the branch and on the union itself, whose mount is the
 * one the kernel checks when such a file is opened or executed. */
static unsigned long removable_flags(struct boot *b)
{
	static const char *const names[] = { "nodev,nosuid", "nodev", "none" };
	/* a persistence file: the stick it lies on */
	const char *dev = b->upper_medium[0] ? b->upper_medium : b->upper_dev;
	unsigned long flags;

	for (unsigned i = 0; i < b->devs.n; i++) {
		const struct blkdev *d = &b->devs.d[i];

		if (strcmp(d->path, dev) != 0 || !d->removable)
			continue;
		if (b->cfg.removable == REMOVABLE_NONE)
			flags = 0;
		else
			flags = MS_NODEV | (b->cfg.removable == REMOVABLE_NODEV_NOSUID ? MS_NOSUID : 0);
		log_note("writable branch %s is on removable media: the root is mounted %s (union.removable=%s)",
			 b->upper_dev, flags ? names[b->cfg.removable] : "without nodev or nosuid",
			 names[b->cfg.removable]);
		return flags;
	}
	return 0;
}

/* Mounts and lays out the writable branch; returns an fd of its top, or
 * -errno after applying union.onfail (then the caller retries as tmpfs). */
static int writable_branch(struct boot *b)
{
	const char *type = b->cfg.upperfs[0] ? b->cfg.upperfs : b->upper_type;
	const char *what = "mounting";
	struct reset_env env = { RESET_NONE, NULL, 0, crashpoint_hit, say_log, NULL };
	static struct ur_state next;
	struct branch_result res;
	char why[256];
	int rw, rc;

	rc = sys_mkdir_p(RWDIR, 0755);
	if (rc < 0)
		return rc;
	state_clear(&next);
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
		if (fsck_branch(b, type, why, sizeof(why)) < 0)
			goto fail_unmounted;
		modules_for_fs(b, type);
		/* kept when a failsafe or kiosk boot goes on with a tmpfs: the
		 * stick stays mounted at SAVEDIR, and in a kiosk is a layer */
		b->root_flags = removable_flags(b);
		watchdog_step(WD_STEP_S, "mounting writable branch %s (%s)", b->upper_dev, type);
		crashpoint_stall(); /* tests: a mount that takes its time */
		/* vfat: the kernel's default iocharset may be a module it lacks */
		rc = sys_mount(b->upper_dev, RWDIR, type, MS_NOATIME | b->root_flags,
			       b->cfg.upperflags[0] ? b->cfg.upperflags : media_mount_options(type));
		watchdog_step_end();
		if (rc < 0) {
			IGNORE(strfmt(why, sizeof(why), "mounting writable branch %s (%s) failed: %s%s",
				      b->upper_dev, type, strerror(-rc),
				      rc == -EROFS || rc == -EACCES ? " (a write-protected medium?)" : ""));
			goto fail_unmounted;
		}
	}
	rw = open(RWDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rw < 0) {
		rc = -errno;
		what = "opening";
		goto fail;
	}
	if (b->upper_kind == UPPER_DEVICE && fd_readonly(rw)) {
		/* mounted, but read-only: "ro" in union.upperflags, or a file
		 * system that turns itself read-only on errors it meets while
		 * mounting. A writable branch it is not. */
		close(rw);
		IGNORE(strfmt(why, sizeof(why),
			      "writable branch %s (%s) is mounted read-only: file system errors (see dmesg) or ro in union.upperflags",
			      b->upper_dev, type));
		goto fail_mounted;
	}
	if (b->upper_kind == UPPER_DEVICE && b->copyup && !copyup_done_before(rw) &&
	    branch_holds_symlinks(rw) == 0) {
		/* copy-up onto it would lose every link of the image, /bin/sh
		 * and the init among them: a root that cannot start. A branch
		 * with a manifest took a copy before: no probe write each boot */
		close(rw);
		IGNORE(strfmt(why, sizeof(why),
			      "writable branch %s (%s) cannot hold symbolic links, so no root can live on it (use ext4, f2fs, ubifs or jffs2)",
			      b->upper_dev, type));
		goto fail_mounted;
	}
	if (b->upper_kind == UPPER_DEVICE)
		room_at_mount(b, rw);
	env.lowers = lower_paths;
	env.nlower = b->nlower;
	if (b->upper_kind == UPPER_DEVICE && control_state(b, rw, &env, &next) == 1) {
		close(rw);
		return -EAGAIN;
	}
	if (b->copyup) {
		/* copy-up restores the factory tree itself, only what differs: the
		 * request becomes its marker and upper/ stays where it is */
		IGNORE(copyup_take_reset(b, rw, env.mode)); /* 0 in copy-up mode */
		env.mode = RESET_NONE;
	}
	rc = branch_prepare(rw, &env, &res, &what);
	if (rc < 0) {
		close(rw);
		goto fail;
	}
	if (res.repaired)
		log_warn("writable branch %s: a non-directory stood where upper/, work/ or .unionroot/ belong; moved it aside",
			 b->upper_dev[0] ? b->upper_dev : "tmpfs");
	if (res.recovered)
		log_note("factory reset: finished a reset a power cut had interrupted");
	if (res.reset_done) {
		b->reset_applied = 1;
		b->reset_kept = res.kept;
		b->reset_refused = res.refused;
		if (!b->reset_why || res.from_request)
			b->reset_why = res.from_request ? "requested by 'unionroot reset'" : "union.reset";
		log_note("factory reset (%s): the old writable tree is set aside, %u keep path(s) carried over%s; it is deleted after the switch",
			 b->reset_why, res.kept, res.refused ? ", some refused (see above)" : "");
	}
	b->trash_pending = res.trash_pending || res.reset_done;
	if (b->upper_kind != UPPER_DEVICE)
		return rw;
	rc = state_save(rw, &next);
	if (rc < 0)
		log_err("saving the control state on %s failed: %s; boot counting and upgrade detection miss this boot",
			b->upper_dev, strerror(-rc));
	IGNORE(strfmt(b->upper_state, sizeof(b->upper_state), "persistent on %s (%s)",
		      b->upper_dev, type)); /* fits: short names */
	room_after_boot(b, rw);
	if (b->cfg.session_volatile) {
		int usable = !b->copyup || copyup_saved(b, rw) == 0;

		close(rw);
		go_session(b, usable);
		return -EAGAIN;
	}
	return rw;

fail:
	IGNORE(strfmt(why, sizeof(why), "writable branch %s: %s failed: %s",
		      b->upper_dev[0] ? b->upper_dev : "tmpfs", what, strerror(-rc)));
fail_mounted:
	detach(RWDIR);
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
	detach(NEWROOT);
	return -EROFS;
}

void union_build(struct boot *b)
{
	int rw = -1, rc;

	verity_layers(b);       /* before any mount: a refused layer is never mounted */
	mount_lowers(b);
	IGNORE(sys_mkdir_p(NEWROOT, 0755)); /* the initramfs ships it */
	copyup_choose(b);

	while (b->upper_kind != UPPER_NONE) {
		rw = writable_branch(b);
		if (rw != -EAGAIN)
			break;
		/* a fall to union.onfail=tmpfs leaves the file system that
		 * forced copy-up behind: tmpfs hosts an overlay. Not so a
		 * kiosk session of a copy-up branch: its saved root is no layer */
		if (b->copyup && b->cfg.mode != MODE_COPYUP && !b->session_layer)
			copyup_choose(b);
	}
	if (rw >= 0 && b->copyup) {
		IGNORE(copyup_root(b, rw)); /* logged; without a backend the layer is bound read-only */
		b->trash_pending = 1; /* merges and restores move replaced files to the trash */
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
			detach(RWDIR);
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
			if (rc < 0) {
				char why[160];

				IGNORE(strfmt(why, sizeof(why), "binding the read-only layer to %s failed: %s",
					      NEWROOT, strerror(-rc))); /* fits */
				rescue_fatal(b, why);
			}
			b->backend = "bind (read-only)";
			b->overlay_opts[0] = '\0';
		}
		if (!b->upper_state[0])
			IGNORE(strcopy(b->upper_state, sizeof(b->upper_state), "none (union.upper=none)"));
	}
	b->t_mounts = sys_now_ms();
	log_info("root: %s; writable branch %s", b->backend, b->upper_state);
}
