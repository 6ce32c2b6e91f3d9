// SPDX-License-Identifier: MIT
/* Step 5's writable branch, a step for each row of the plan: the device
 * (mounted, its control state read, failsafe, reset and layout, the kiosk
 * session) or a tmpfs, at RWDIR with its top open in b->rw. A step that
 * fails says why; what follows is the plan's. */
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
#include "branch/reset.h"
#include "branch/state.h"
#include "copyup/manifest.h"
#include "lib/log.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"
#include "media/media.h"
#include "steps.h"


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

static void say_log(int level, const char *msg, void *ctx)
{
	(void)ctx;
	ur_log(level, "%s", msg);
}

/* Whether a copy-up finished on this branch before (its manifest is there). */
static int copyup_done_before(int rw)
{
	struct stat st;

	return sys_fstatat(rw, BRANCH_STATE "/" MF_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0;
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
		union_detach(RWDIR);
	}
	return rc;
}

/* The plan's failsafe: the persistent branch leaves the way untouched,
 * read-only, under SAVEDIR; the caller goes on with the plan's tmpfs. */
static void go_failsafe(struct boot *b, const char *dev, unsigned boots)
{
	int kept;

	IGNORE(strfmt(b->failsafe, sizeof(b->failsafe),
		      "%u boots without 'unionroot boot-ok' (union.maxfails=%d)", boots,
		      b->cfg.maxfails)); /* fits */
	/* keep_saved reports its failure; the boot goes on volatile either way */
	kept = keep_saved(dev, "failsafe") == 0;
	b->branch_saved = kept;
	log_err("failsafe boot: writable branch %s: %s; booting a volatile root, the branch %s%s",
		dev, b->failsafe, kept ? "read-only at " : "not mounted", kept ? SAVEDIR : "");
	result_branch(b, OUTCOME_FAILSAFE, NULL, 0);
}

/* The control state and the layers' identities: facts, for the plan's
 * failsafe, reset and upgrade. */
void step_read_state(struct boot *b)
{
	struct plan_facts *f = &b->facts;
	int rc = state_load(b->rw, &f->saved);
	struct stat st;

	if (rc < 0)
		log_err("control state .unionroot/%s on %s is %s; starting it afresh (boot counter 0, no layer identity known)",
			STATE_FILE, b->upper_dev,
			rc == -EINVAL ? "damaged" : rc == -EFBIG ? "oversized" : strerror(-rc));
	/* identities only matter to a persistent branch: read them here */
	b->nlower_id = b->nlower;
	for (unsigned i = 0; i < b->nlower && b->nlower_id; i++)
		lower_identity(b, i);
	state_clear(&f->now);
	f->now.nlower = b->nlower_id;
	for (unsigned i = 0; i < b->nlower_id && i < STATE_LOWER_MAX; i++)
		memcpy(f->now.lower[i], b->lower_id[i], sizeof(f->now.lower[i]));
	f->state_known = 1;
	f->state_rc = rc;
	f->reset_request = branch_reset_pending(b->rw);
	f->state_saved = sys_fstatat(b->rw, BRANCH_STATE "/" STATE_FILE, &st, AT_SYMLINK_NOFOLLOW) == 0;
	f->sysupgrade_archive = sys_fstatat(b->rw, BRANCH_SYSUPGRADE, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				S_ISREG(st.st_mode);
}

/* The plan's failsafe: the persistent branch leaves the way untouched,
 * read-only, under SAVEDIR; a tmpfs takes its place. */
void step_failsafe(struct boot *b)
{
	b->boots = b->facts.saved.boots;
	step_close_branch(b);
	go_failsafe(b, b->upper_dev, b->facts.saved.boots);
}

/* The plan's kiosk session (union.session=volatile): what the admin saved becomes the top
 * read-only layer, a tmpfs takes this session's changes. The reset, the
 * boot counter and upgrades were applied to the saved branch first. In
 * copy-up mode the tmpfs takes a copy of the saved root instead (usable: the
 * saved branch holds a whole root). */
void step_session(struct boot *b)
{
	int saved;

	step_close_branch(b);
	saved = keep_saved(b->upper_dev, "kiosk session") == 0 && !b->session_copy_failed;

	b->session_layer = saved;
	b->branch_saved = saved;
	result_branch(b, OUTCOME_SESSION, saved ? b->upper_dev : NULL, 0);
	log_note("kiosk session: %s; nothing of this boot persists", b->upper_state);
}

static int mount_tmpfs_upper(struct boot *b, char *why, size_t cap)
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
		IGNORE(strfmt(why, cap, "mounting a tmpfs writable branch failed: %s",
			      strerror(-rc))); /* fits */
	result_branch(b, OUTCOME_VOLATILE, NULL, 0);
	return rc;
}

/* A writable branch on removable media (a USB stick anyone can prepare
 * elsewhere) must not bring device nodes or setuid programs into the root:
 * the flags go on the branch and on the union itself, whose mount is the
 * one the kernel checks when such a file is opened or executed. */
static unsigned long removable_flags(struct boot *b)
{
	static const char names[][13] = { "nodev,nosuid", "nodev", "none" };
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

const char *writable_name(const struct boot *b)
{
	return b->upper_dev[0] && !b->upper_released ? b->upper_dev : "tmpfs";
}

/* A step of the branch failed: why says which and how, -errno returned. */
static int failed(const struct boot *b, const char *what, int rc, char *why, size_t cap)
{
	IGNORE(strfmt(why, cap, "writable branch %s: %s failed: %s", writable_name(b), what,
		      strerror(-rc))); /* may cut */
	return rc;
}

/* Lays out upper/, work/ and .unionroot/ on the mounted branch with the
 * reset env asks for, and says what it did; 0, or -errno with why. */
static int lay_out(struct boot *b, int rw, const struct reset_env *env, char *why, size_t cap)
{
	const char *what = "laying out";
	struct branch_result res;
	int rc = branch_prepare(rw, env, &res, &what);

	if (rc < 0)
		return failed(b, what, rc, why, cap);
	if (res.repaired)
		log_warn("writable branch %s: a non-directory stood where upper/, work/ or .unionroot/ belong; moved it aside",
			 writable_name(b));
	if (res.recovered)
		log_note("factory reset: finished a reset a power cut had interrupted");
	if (res.reset_done) {
		result_reset(b, res.from_request ? "requested by 'unionroot reset'" :
				b->plan.reset_why ? b->plan.reset_why : "union.reset", res.kept, res.refused);
		log_note("factory reset (%s): the old writable tree is set aside, %u keep path(s) carried over%s; it is deleted after the switch",
			 b->reset_why, res.kept, res.refused ? ", some refused (see above)" : "");
	}
	/* copy-up's merges and restores move replaced files to the trash too */
	b->trash_pending = res.trash_pending || res.reset_done || b->plan.backend == PLAN_COPYUP;
	return 0;
}

/* The plan's volatile branch, laid out: 0, or -errno with why (nothing of
 * it stays mounted). */
int step_tmpfs(struct boot *b, struct step_out *o)
{
	struct reset_env env = { RESET_NONE, b->lower_paths, b->nlower, crashpoint_hit, say_log, NULL };
	int rc = sys_mkdir_p(RWDIR, 0755);

	o->step = STEP_TMPFS;
	if (rc < 0) {
		IGNORE(strfmt(o->why, sizeof(o->why), "making %s failed: %s", RWDIR, strerror(-rc)));
		b->upper_kind = UPPER_NONE;
		return rc;
	}
	rc = mount_tmpfs_upper(b, o->why, sizeof(o->why));
	if (rc < 0) {
		b->upper_kind = UPPER_NONE;
		return rc;
	}
	b->rw = sys_open(RWDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rc = b->rw < 0 ? failed(b, "opening", b->rw, o->why, sizeof(o->why)) :
			 lay_out(b, b->rw, &env, o->why, sizeof(o->why));
	if (rc < 0) {
		step_close_branch(b);
		union_detach(RWDIR);
		b->upper_kind = UPPER_NONE;
		return rc;
	}
	b->upper_kind = UPPER_TMPFS;
	return 0;
}

/* Checks and mounts the plan's device at RWDIR: 0, or -errno with why and
 * the step that failed. */
static int device_mount(struct boot *b, const char *type, char *why, size_t cap, int *step)
{
	int rc;

	*step = STEP_MOUNT;
	if (fsck_branch(b, type, why, cap) < 0) {
		*step = STEP_FSCK;
		return -EUCLEAN;
	}
	modules_for_fs(b, type);
	/* kept when a failsafe or kiosk boot goes on with a tmpfs: the stick
	 * stays mounted at SAVEDIR, and in a kiosk is a layer */
	b->upper_flags = removable_flags(b);
	watchdog_step(WD_STEP_S, "mounting writable branch %s (%s)", b->upper_dev, type);
	crashpoint_stall(); /* tests: a mount that takes its time */
	/* vfat: the kernel's default iocharset may be a module it lacks */
	rc = sys_mount(b->upper_dev, RWDIR, type, MS_NOATIME | b->upper_flags,
		       b->cfg.upperflags[0] ? b->cfg.upperflags : media_mount_options(type));
	watchdog_step_end();
	if (rc < 0)
		IGNORE(strfmt(why, cap, "mounting writable branch %s (%s) failed: %s%s", b->upper_dev,
			      type, strerror(-rc),
			      rc == -EROFS || rc == -EACCES ? " (a write-protected medium?)" : ""));
	return rc;
}

/* The mounted device's top, when it can serve: it takes writes and, for
 * copy-up, symbolic links. An fd, or -errno with why and the step, the
 * device unmounted again. */
static int device_open(struct boot *b, const char *type, char *why, size_t cap, int *step)
{
	int rw = sys_open(RWDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (rw < 0) {
		rw = failed(b, "opening", rw, why, cap);
	} else if (fd_readonly(rw)) {
		/* "ro" in union.upperflags, or a file system that turns itself
		 * read-only on errors it meets while mounting */
		sys_close(rw);
		rw = -EROFS;
		IGNORE(strfmt(why, cap,
			      "writable branch %s (%s) is mounted read-only: file system errors (see dmesg) or ro in union.upperflags",
			      b->upper_dev, type));
	} else if (b->plan.backend == PLAN_COPYUP && !copyup_done_before(rw) &&
		   branch_holds_symlinks(rw) == 0) {
		/* copy-up onto it would lose every link of the image, /bin/sh
		 * and the init among them: a root that cannot start. A branch
		 * with a manifest took a copy before: no probe write each boot */
		sys_close(rw);
		rw = -EOPNOTSUPP;
		*step = STEP_COPYUP;
		IGNORE(strfmt(why, cap,
			      "writable branch %s (%s) cannot hold symbolic links, so no root can live on it (use ext4, f2fs, ubifs or jffs2)",
			      b->upper_dev, type));
	}
	if (rw < 0)
		union_detach(RWDIR);
	return rw;
}

/* The plan's device, checked, mounted and open in b->rw: 0, or -errno with
 * why and the step that failed (nothing of it mounted). */
int step_mount_branch(struct boot *b, struct step_out *o)
{
	const char *type = plan_upper_fs(&b->plan);
	int rc = sys_mkdir_p(RWDIR, 0755);

	o->step = STEP_MOUNT;
	if (rc < 0)
		return failed(b, "making " RWDIR, rc, o->why, sizeof(o->why));
	rc = device_mount(b, type, o->why, sizeof(o->why), &o->step);
	rc = rc < 0 ? rc : device_open(b, type, o->why, sizeof(o->why), &o->step);
	if (rc < 0)
		return rc;
	b->rw = rc;
	room_at_mount(b, b->rw);
	return 0;
}

/* upper/, work/ and .unionroot/ with the plan's reset (copy-up restores
 * itself: its reset was taken over): 0, or -errno with why, unmounted. */
int step_layout(struct boot *b, struct step_out *o)
{
	struct reset_env env = { RESET_NONE, b->lower_paths, b->nlower, crashpoint_hit, say_log, NULL };
	const struct boot_decision *d = &b->plan.decided;
	int rc;

	b->lower_changed = d->upgraded;
	if (d->upgraded) {
		static const char policy[][9] = { "keep", "reset", "keeplist" };

		IGNORE(strfmt(b->upgrade, sizeof(b->upgrade), "read-only layer changed; union.upgrade=%s: %s",
			      policy[b->cfg.upgrade],
			      d->reset_mode == RESET_FACTORY ? "factory reset" :
			      d->reset_mode == RESET_FACTORY_KEEPLIST ? "factory reset keeping the keep list" :
			      "user changes stay on top of the new image")); /* fits */
		log_note("%s", b->upgrade);
	}
	b->boots = d->next.boots;
	if (b->plan.backend != PLAN_COPYUP)
		env.mode = d->reset_mode;
	o->step = STEP_LAYOUT;
	rc = lay_out(b, b->rw, &env, o->why, sizeof(o->why));
	if (rc < 0) {
		step_close_branch(b);
		union_detach(RWDIR);
	}
	return rc;
}

/* OpenWrt's sysupgrade.tgz where the plan puts it (doc/design.md); a
 * failure leaves it at the branch's top, said, and the boot goes on. */
void step_sysupgrade(struct boot *b)
{
	static const unsigned char to[] = {
		[SYSUPGRADE_RESTORE] = SYSUPGRADE_TO_UPPER,
		[SYSUPGRADE_KEEPLIST] = SYSUPGRADE_TO_STATE,
		[SYSUPGRADE_TRASH] = SYSUPGRADE_TO_TRASH,
	};
	int action = b->plan.sysupgrade, rc;

	if (action <= SYSUPGRADE_NONE || action >= (int)ARRAY_SIZE(to))
		return;
	rc = branch_sysupgrade(b->rw, to[action]);
	if (rc < 0)
		log_err("writable branch %s: placing OpenWrt's sysupgrade.tgz failed: %s; it stays at the branch's top, unused",
			b->upper_dev, strerror(-rc));
	else if (rc > 0)
		log_note("writable branch %s: OpenWrt's sysupgrade.tgz %s", b->upper_dev,
			 b->plan.sysupgrade_why);
	if (rc > 0 && action == SYSUPGRADE_TRASH)
		b->trash_pending = 1;
}

/* The next control state: a failure costs this boot its count. */
void step_branch_none(struct boot *b)
{
	b->upper_kind = UPPER_NONE;
}

void step_save_state(struct boot *b)
{
	int rc = state_save(b->rw, &b->plan.decided.next);

	if (rc < 0)
		log_err("saving the control state on %s failed: %s; boot counting and upgrade detection miss this boot",
			b->upper_dev, strerror(-rc));
	result_branch(b, OUTCOME_PERSISTENT, plan_upper_fs(&b->plan), 0);
	room_after_boot(b, b->rw);
	b->upper_kind = UPPER_DEVICE;
}
