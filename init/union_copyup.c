// SPDX-License-Identifier: MIT
/* Step 5 with the copy-up backend: choose it (union.mode, or auto when the
 * kernel has no overlayfs even after trying the image's own module, or when
 * the writable fs cannot be an upper), take over a pending reset, then copy,
 * merge or restore into upper/ and bind it to /newroot. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "branch/branch.h"
#include "branch/identity.h"
#include "branch/reset.h"
#include "copyup/copyup.h"
#include "lib/filesave.h"
#include "lib/log.h"
#include "lib/resolve.h"
#include "lib/rmtree.h"
#include "lib/sbuf.h"
#include "lib/strnum.h"
#include "lib/sys.h"
#include "lib/sysx.h"
#include "overlay/overlay.h"
#include "steps.h"

#define LOWER0 RUNDIR "/lower/0"
#define MODULE_INIT_COMPRESSED 4 /* MODULE_INIT_COMPRESSED_FILE, 5.17 */

/* A missing module is the usual reason an overlay root silently does not
 * happen: the image may carry one built for this kernel. Symlinks inside
 * the image (/lib -> usr/lib) resolve within the image. */
static void overlay_from_image(void)
{
	char path[256];
	int root, fd = -1, rc = -ENOENT, compressed = 0;

	root = sys_open(LOWER0, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return;
	for (unsigned i = 0; fd < 0 && (compressed = overlay_module_path(i, path, sizeof(path))) >= 0; i++)
		fd = sys_file_check(sys_openat2(root, path, O_RDONLY | O_NONBLOCK,
						RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS),
				    NULL);
	sys_close(root);
	if (fd < 0) {
		log_info("no overlay module in the image either (the last tried: %s)", path);
		return;
	}
	rc = sys_finit_module(fd, "", compressed ? MODULE_INIT_COMPRESSED : 0);
	sys_close(fd);
	if (rc < 0 && rc != -EEXIST)
		log_warn("loading the image's overlay module (%s) failed: %s", path, strerror(-rc));
	else
		log_note("overlayfs: loaded the image's own module %s", path);
}

/* The kernel's offer, a fact for the plan: the initramfs' module first,
 * then (unless copy-up is asked for anyway) the image's. */
void step_probe_overlay(struct boot *b)
{
	modules_for_fs(b, "overlay");
	b->facts.have_overlay = overlay_in_kernel();
	if (!b->facts.have_overlay && b->cfg.mode != MODE_COPYUP) {
		overlay_from_image();
		b->facts.have_overlay = overlay_in_kernel();
	}
}

/* Copy-up is needed where the build has none, and even the fallback's
 * branch needs it: the root is the read-only layer alone. */
void step_no_copyup(struct boot *b)
{
	log_err("union backend: copy-up is needed (%s), and this build has none; booting the read-only layer without a writable branch",
		b->plan.copyup_missing);
	result_branch(b, OUTCOME_NO_COPYUP, NULL, 0);
}

/* The plan's copy-up backend said, once, as the branch is made. */
static void say_copyup(struct boot *b)
{
	const char *why = b->plan.backend_why;

	if (b->cfg.mode == MODE_COPYUP)
		log_info("union backend: copy-up (%s)", why);
	else
		log_warn("union backend: copy-up, because %s; the first boot copies the image into the writable branch",
			 why);
	if (b->nlower > 1)
		log_warn("copy-up uses read-only layer 1 only; layers 2-%u are not part of the root", b->nlower);
}

static int take_reset(struct boot *b, int rw, int reset)
{
	struct stat st;
	int state, keep_unsupported = 0;

	state = sys_openat(rw, BRANCH_STATE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (state < 0)
		return 0; /* nothing was ever copied: the first copy is a factory state */
	/* the request becomes our marker, cleared after the restore: a cut in
	 * between restores again at the next boot */
	if (sys_fstatat(state, BRANCH_RESET_REQUEST, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		static char text[RESET_REQUEST_MAX];
		static struct reset_req req;

		if (sys_read_fileat(state, BRANCH_RESET_REQUEST, text, sizeof(text)) >= 0 &&
		    reset_request_parse(text, &req) == 0 && (req.keeplist || req.keep.n))
			keep_unsupported = 1;
		if (sys_renameat(state, BRANCH_RESET_REQUEST, state, COPYUP_RESET) == 0 && sys_fsync(state) == 0)
			b->copyup_reset = 2;
	} else if (reset) {
		if (sys_write_file_atomic(state, COPYUP_RESET, "reset\n", 6, 0600) == 0)
			b->copyup_reset = 1;
	}
	if (!b->copyup_reset && sys_fstatat(state, COPYUP_RESET, &st, AT_SYMLINK_NOFOLLOW) == 0)
		b->copyup_reset = 1;
	sys_close(state);
	if (b->copyup_reset && (keep_unsupported || reset == RESET_FACTORY_KEEPLIST))
		log_warn("factory reset in copy-up mode: keep paths are not supported there yet; restoring the whole factory tree");
	return 0;
}

/* copy-up restores the factory tree itself, only what differs: a pending
 * reset becomes its marker and upper/ stays where it is. */
void step_take_reset(struct boot *b)
{
	say_copyup(b);
	IGNORE(take_reset(b, b->rw, b->plan.decided.reset_mode)); /* said when it matters */
}

/* Copies, merges or restores the tree at src into upper/ of rw; then says
 * what happens when it failed. 0 or -errno (logged). */
static int copyup_fill(struct boot *b, int rw, const char *src, const char *then)
{
	const char *dev = writable_name(b);
	struct copyup_result res;
	const char *done = "";
	char id[MF_ID_MAX];
	uint64_t t0 = sys_now_ms();
	int img, rc;

	rc = identity_path(b->lower_dev[0], id, sizeof(id));
	if (rc < 0) {
		log_err("copy-up: identity of read-only layer %s: %s; %s", b->lower_dev[0],
			strerror(-rc), then);
		return rc;
	}
	img = sys_open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (img < 0)
		return img;
	watchdog_step(0, "copying the image into writable branch %s", dev); /* as long as it is big */
	rc = copyup_apply(img, rw, id, b->copyup_reset != 0, b->cfg.upgrade, &res, &done);
	watchdog_step_end();
	sys_close(img);
	if (res.base_damaged)
		log_warn("copy-up manifest on %s is damaged (%s); merged without it: files you deleted from the image may be back",
			 dev, res.base_err);
	if (rc < 0) {
		log_err("copy-up into writable branch %s failed: %s; %s", dev, strerror(-rc), then);
		result_branch(b, OUTCOME_LOST, "copy-up", rc);
		return rc;
	}
	if (b->copyup_reset) {
		int state = sys_openat(rw, BRANCH_STATE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);

		if (state >= 0) {
			/* rmtree_at: a directory planted there would restore every boot */
			int rc2 = rmtree_at(state, COPYUP_RESET);

			if (rc2 == 0)
				rc2 = sys_fsync(state);
			if (rc2 < 0)
				log_warn("copy-up: clearing the reset marker failed: %s; the next boot restores again",
					 strerror(-rc2));
			sys_close(state);
		}
		result_reset(b, b->plan.reset_why ? b->plan.reset_why : "union.reset", 0, 0);
		log_note("factory reset (copy-up, %s): restored %u, removed %u",
			 b->copyup_reset == 2 ? "requested by 'unionroot reset'" : "union.reset",
			 res.updated + res.copied, res.removed);
	}
	log_info("copy-up: %s: copied %u, updated %u, removed %u, kept %u (conflicts %u), stay deleted %u, errors %u; %llu ms",
		 strcmp(src, LOWER0) ? "kiosk session: copying the saved root into RAM" : done,
		 res.copied, res.updated, res.removed, res.kept, res.conflicts, res.stay_deleted,
		 res.errors, (unsigned long long)(sys_now_ms() - t0));
	if (res.errors)
		log_warn("copy-up: %u entries of %s could not be copied to %s", res.errors, src, dev);
	return 0;
}

/* union.session=volatile under copy-up: the saved branch is merged or
 * restored before it is kept read-only for the session. */
void step_session_copy(struct boot *b)
{
	b->session_copy_failed = copyup_fill(b, b->rw, LOWER0, "the kiosk session starts from the image") < 0;
	b->copyup_reset = 0; /* done on the saved branch: the session copies it */
}

/* Copies, merges or restores into upper/ of the branch and binds it to
 * /newroot: 0, or -errno (said; the root is then the read-only layer). */
int step_copyup(struct boot *b)
{
	/* in copy-up mode the saved upper/ is a whole root, not a layer */
	int rc;

	if (!(b->facts.done >> RUN_TAKE_RESET & 1))
		say_copyup(b); /* a device said it when it took its reset over */
	rc = copyup_fill(b, b->rw, b->session_layer ? SAVEDIR "/" BRANCH_UPPER : LOWER0,
			 "booting the read-only layer without it");
	step_close_branch(b);
	if (rc < 0)
		return rc;
	return union_copyup_root(b);
}
