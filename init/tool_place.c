// SPDX-License-Identifier: MIT
/* Where a tool (mkfs, fsck) runs from: the initramfs, else the read-only
 * image's own, confined to its layer. Never a program of the writable
 * branch: a layer's file must lie on that layer's own read-only mount. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "lib/log.h"
#include "lib/resolve.h"
#include "lib/runstate.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"

/* An O_PATH fd of path inside the layer at root: resolved within it (its
 * merged-/usr symlinks too), a regular executable on the layer's own file
 * system, mounted read-only. -errno otherwise. */
static int layer_exe(int root, const char *path)
{
	struct stat st, top;
	/* relative: the same inside the root, and a path the fake edge leaves alone */
	int fd = sys_openat2(root, path + (path[0] == '/'), O_PATH,
			     RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);

	if (fd < 0)
		return fd;
	if (sys_fstat(fd, &st) < 0 || sys_fstat(root, &top) < 0 || !S_ISREG(st.st_mode) ||
	    !(st.st_mode & 0111) || st.st_dev != top.st_dev || !fd_readonly(root)) {
		sys_close(fd);
		return -EPERM;
	}
	return fd;
}

static int layer_root(unsigned layer, char *dir, size_t cap)
{
	int rc = strfmt(dir, cap, RUN_LOWER_FMT, layer - 1);

	return rc < 0 ? rc : sys_open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* bit 0: in the initramfs; bit N: in mounted read-only layer N */
static unsigned found_at(const struct boot *b, const char *path)
{
	char dir[sizeof(RUN_LOWER_FMT) + 8];
	struct stat st;
	unsigned found = sys_stat(path, &st) == 0;

	for (unsigned n = 1; n <= b->facts.lowers_mounted && n <= SPEC_LIST_MAX; n++) {
		int root = layer_root(n, dir, sizeof(dir)), fd = root < 0 ? root : layer_exe(root, path);

		if (fd >= 0) {
			found |= 1u << n;
			sys_close(fd);
		}
		if (root >= 0)
			sys_close(root);
	}
	return found;
}

int tool_find(struct boot *b, const char *const *paths, unsigned n, struct tool *t)
{
	unsigned found[8] = { 0 }, place = TOOL_INITRAMFS;
	struct sbuf sb;
	int i;

	for (unsigned k = 0; k < n && k < ARRAY_SIZE(found); k++)
		found[k] = found_at(b, paths[k]);
	i = plan_tool_choose(found, n < ARRAY_SIZE(found) ? n : ARRAY_SIZE(found), &place);
	if (i < 0)
		return -ENOENT;
	*t = (struct tool){ paths[i], place };
	sbuf_init(&sb, b->tools_ran + strlen(b->tools_ran),
		  sizeof(b->tools_ran) - strlen(b->tools_ran));
	if (place == TOOL_INITRAMFS) {
		sbuf_addf(&sb, "%s%s (initramfs)", b->tools_ran[0] ? ", " : "", t->path);
	} else {
		sbuf_addf(&sb, "%s%s (read-only layer %u)", b->tools_ran[0] ? ", " : "", t->path, place);
		log_note("%s: none in this initramfs; running read-only layer %u's own, confined to it",
			 t->path, place);
	}
	IGNORE(sbuf_done(&sb)); /* a cut list still names the first */
	b->facts.tools_ran = b->tools_ran;
	return i;
}

/* The layer's tool in a mount namespace of the child's own: /dev and /proc
 * on the layer's (read-only) directories go with it when it ends, so
 * nothing stays on the layer. The file is verified again here, and the
 * fd of the verified file is what is executed. */
int tool_exec(const struct tool *t, char *const argv[], char *const envp[])
{
	char dir[sizeof(RUN_LOWER_FMT) + 8], sub[sizeof(dir) + 8];
	int root, fd, rc;

	if (t->layer == TOOL_INITRAMFS)
		return sys_execve(t->path, argv, envp);
	root = layer_root(t->layer, dir, sizeof(dir));
	fd = root < 0 ? root : layer_exe(root, t->path);
	if (fd < 0)
		return fd;
	if ((rc = sys_unshare(CLONE_NEWNS)) < 0 || (rc = sys_mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) < 0 ||
	    (rc = strfmt(sub, sizeof(sub), "%s/dev", dir)) < 0 ||
	    (rc = sys_mount("/dev", sub, NULL, MS_BIND | MS_REC, NULL)) < 0 ||
	    (rc = strfmt(sub, sizeof(sub), "%s/proc", dir)) < 0 ||
	    (rc = sys_mount("proc", sub, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) < 0 ||
	    (rc = sys_chroot(dir)) < 0 || (rc = sys_chdir("/")) < 0)
		return rc;
	return sys_fexecve(fd, argv, envp);
}
