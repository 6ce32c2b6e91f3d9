// SPDX-License-Identifier: MIT
/* The boot's faults, one row a case: the kind of plan row it breaks, the
 * fault (a system call's error, or what the media hold), and what the
 * boot does then. The board is union.lower=/dev/vda (squashfs) and
 * union.upper=/dev/vdb (ext4), both found, unless a case's prepare says
 * otherwise; init_run.c runs them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>

#include "../../init/boot.h"
#include "../../init/steps.h"
#include "init_run.h"
#include "init_tool.h"
#include "lib/record.h"
#include "lib/runstate.h"
#include "lib/sys.h"
#include "lib/sysx.h"
#include "fake_sys.h"

#define LOWER "mount read-only layer,look for overlayfs,"
#define DEVICE "mount the writable branch,read its control state,"
#define PERSISTENT "lay it out,save its control state,mount the overlay"
#define COPYUP "take the reset over (copy-up),lay it out,save its control state,copy up,"
#define VOLATILE "union.onfail,mount a volatile branch,mount the overlay"
#define RW "/run/unionroot/rw"
#define SAVED "/run/unionroot/saved"
/* the branch let go, then the tmpfs in its place, then the union */
#define RELEASED "umount2 " RW "|mount " RW "|mount /newroot"

/* fixtures */

static void modules_listed(void)
{
	run_boot_state()->facts.done &= ~(1u << RUN_MODULES);
	run_put("etc/unionroot/modules", "virtio_blk\n");
	run_put("lib/modules/6.1.0-fake/modules.dep", "kernel/drivers/block/virtio_blk.ko:\n");
}

/* devices_wait finds the media itself: nothing is known of them yet */
static void media_unseen(void)
{
	struct boot *b = run_boot_state();

	b->facts.done &= ~(1u << RUN_WAIT_MEDIA);
	b->facts.upper_present = PRESENT_UNKNOWN;
	b->facts.upper_dev = b->facts.upper_type = NULL;
	b->upper_dev[0] = b->upper_type[0] = b->lower_dev[0][0] = b->lower_type[0][0] = '\0';
}

/* the image's disk is there, the writable one never comes */
static void only_the_image(void)
{
	media_unseen();
	run_put("sys/class/block/vda/size", "2048\n");
	run_put_squashfs("dev/vda");
}

/* the network is up: the nbd: layer's connection comes next */
static void network_up(void)
{
	struct boot *b = run_boot_state();

	b->facts.done |= 1u << RUN_NET;
	strcpy(b->net_text, "eth0 10.0.2.15 (DHCP)");
}

/* the network is up on QEMU's first NIC: a branch's ${mac} is known */
static void network_up_with_a_mac(void)
{
	network_up();
	strcpy(run_boot_state()->net_mac, "52-54-00-12-34-56");
}

static void blank_upper(void)
{
	run_boot_state()->upper_type[0] = '\0';
}

static void e2fsck_finds_errors(void)
{
	run_put("sbin/e2fsck", "");
	tool_forget(4);
}

/* /dev/vdb holds no persistence file yet: the wait left it to be made */
static void persist_missing(void)
{
	struct boot *b = run_boot_state();

	b->facts.upper_file_missing = 1;
	b->facts.upper_present = PRESENT_UNKNOWN;
	b->facts.upper_dev = b->facts.upper_type = NULL;
	b->upper_dev[0] = b->upper_type[0] = '\0';
	snprintf(b->persist_on, sizeof(b->persist_on), "/dev/vdb");
	snprintf(b->persist_on_type, sizeof(b->persist_on_type), "vfat");
	run_put("dev/loop-control", "");
	run_put("dev/loop0", "");
}

/* no device has the persistence partition's label: it is made on the
 * disk layer 1 was found on */
static void part_missing(void)
{
	struct boot *b = run_boot_state();

	b->facts.upper_present = PRESENT_NO;
	b->facts.upper_dev = b->facts.upper_type = NULL;
	b->upper_dev[0] = b->upper_type[0] = '\0';
	snprintf(b->lower_disk, sizeof(b->lower_disk), "vda");
	run_put_squashfs("dev/vda");
}

/* /dev/vdb is a LUKS container */
static void upper_luks(void)
{
	snprintf(run_boot_state()->upper_type, FSTYPE_MAX, "crypto_LUKS");
}

/* and the image carries mkfs.ext4, on its read-only layer */
static void persist_missing_image_mkfs(void)
{
	static const struct statfs ro = { .f_flags = ST_RDONLY };

	persist_missing();
	run_put("run/unionroot/lower/0/sbin/mkfs.ext4", "");
	IGNORE(sys_fchmodat(AT_FDCWD, "/run/unionroot/lower/0/sbin/mkfs.ext4", 0755));
	fake_sys_statfs(&ro);
	tool_forget(0);
}

static const char *image_mkfs_ran(void)
{
	struct boot *b = run_boot_state();

	if (strcmp(b->tools_ran, "/sbin/mkfs.ext4 (read-only layer 1)") != 0 || tool_layer != 1)
		return b->tools_ran;
	return NULL;
}

static void no_overlayfs(void)
{
	run_put("proc/filesystems", "nodev\ttmpfs\n\text4\n");
}

static void build_without_copyup(void)
{
	run_boot_state()->facts.no_copyup = 1;
}

static void boots_without_ok(void)
{
	run_put("run/unionroot/rw/.unionroot/state", "unionroot-state 1\nboots 5\n");
}

static void reset_requested(void)
{
	run_put("run/unionroot/rw/.unionroot/reset", "unionroot-reset 1\nkeeplist no\n");
}

/* OpenWrt's sysupgrade left its saved configuration on a fresh branch */
static void sysupgrade_left(void)
{
	run_put("run/unionroot/rw/sysupgrade.tgz", "settings\n");
}

/* what else the case looks at after the boot */

static const char *sysupgrade_restored(void)
{
	struct stat st;

	if (sys_fstatat(AT_FDCWD, RW "/sysupgrade.tgz", &st, AT_SYMLINK_NOFOLLOW) == 0)
		return "sysupgrade.tgz is still at the branch's top";
	if (sys_fstatat(AT_FDCWD, RW "/upper/sysupgrade.tgz", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return "no sysupgrade.tgz in upper/, where the root shows it";
	return NULL;
}

static const char *sysupgrade_held(void)
{
	struct stat st;

	if (sys_fstatat(AT_FDCWD, RW "/sysupgrade.tgz", &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    sys_fstatat(AT_FDCWD, RW "/upper/sysupgrade.tgz", &st, AT_SYMLINK_NOFOLLOW) == 0)
		return "sysupgrade.tgz is at the top or in upper/, where the root shows it";
	if (sys_fstatat(AT_FDCWD, RW "/.unionroot/sysupgrade.tgz", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return "no sysupgrade.tgz held in .unionroot/";
	return NULL;
}

static const char *sysupgrade_trashed(void)
{
	struct stat st;

	if (sys_fstatat(AT_FDCWD, RW "/sysupgrade.tgz", &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    sys_fstatat(AT_FDCWD, RW "/upper/sysupgrade.tgz", &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    sys_fstatat(AT_FDCWD, RW "/.unionroot/sysupgrade.tgz", &st, AT_SYMLINK_NOFOLLOW) == 0)
		return "sysupgrade.tgz was kept somewhere";
	return run_boot_state()->trash_pending ? NULL : "the trash is not marked for emptying";
}

static const char *copyup_reset_taken(void)
{
	return run_boot_state()->copyup_reset ? "the copy-up took the reset over" : NULL;
}

static const char *nothing_saved(void)
{
	static char text[RECORD_MAX];

	status_write(run_boot_state()); /* as the hand-off does */
	if (sys_read_file(RUN_STATUS, text, sizeof(text)) < 0)
		return "no status record";
	return strstr(text, "\nsaved=") ? "the status record says the branch is kept at " SAVED : NULL;
}

static const char *session_layered(void)
{
	return run_boot_state()->session_layer ? "the saved branch is a layer of the session" : NULL;
}

#define NBD_LAYER "union.lower=nbd:10.0.2.100:10809/root union.onfail=halt"

const struct run_case run_cases[] = {
	{ .kind = RUN_NET, .name = "no IPv4 socket: the network layer never comes, union.onfail=halt",
	  .cmdline = NBD_LAYER, .fault = { { "socket", NULL, 0, -EAFNOSUPPORT } },
	  .rows = "bring the network up", .power = RB_POWER_OFF,
	  .said = "network: no IPv4 socket: Address family not supported by protocol; powering off (union.onfail=halt)",
	  .never = "mount /run/unionroot/lower/0" },
	{ .kind = RUN_NBD, .name = "an nbd server unreachable: one line, union.onfail=halt",
	  .cmdline = NBD_LAYER, .prepare = network_up, .fault = { { "socket", NULL, 0, -ENETUNREACH } },
	  .rows = "connect the nbd export of layer", .power = RB_POWER_OFF,
	  .said = "read-only layer 1: nbd server 10.0.2.100:10809/root unreachable: Network is unreachable; powering off (union.onfail=halt)",
	  .never = "mount /run/unionroot/lower/0" },
	{ .kind = RUN_REFUSE, .name = "an unverified http:// layer is refused before the network, union.onfail=halt",
	  .cmdline = "union.lower=http://10.0.2.100:8000/root.img union.onfail=halt",
	  .rows = "refuse layer", .power = RB_POWER_OFF,
	  .said = "read-only layer 1: http://10.0.2.100:8000/root.img is an unauthenticated image: give union.verity or union.insecure=1; powering off (union.onfail=halt)",
	  .never = "socket" },
	{ .kind = RUN_HTTP, .name = "an http server unreachable: one line, union.onfail=halt",
	  .cmdline = "union.lower=http://10.0.2.100:8000/root.img union.insecure=1 union.onfail=halt",
	  .prepare = network_up, .fault = { { "socket", NULL, 0, -ENETUNREACH } },
	  .rows = "fetch the http image of layer", .power = RB_POWER_OFF,
	  .said = "read-only layer 1: http server of http://10.0.2.100:8000/root.img unreachable: Network is unreachable; powering off (union.onfail=halt)",
	  .never = "mount /run/unionroot/lower/0" },
	{ .kind = RUN_NFS, .name = "an nfs server unreachable: one line, union.onfail=halt",
	  .cmdline = "union.lower=nfs:10.0.2.100:/srv:/root.img union.onfail=halt",
	  .prepare = network_up, .fault = { { "socket", NULL, 0, -ENETUNREACH } },
	  .rows = "mount the nfs export of layer", .power = RB_POWER_OFF,
	  .said = "read-only layer 1: nfs:10.0.2.100:/srv:/root.img: server unreachable on port 2049: Network is unreachable; powering off (union.onfail=halt)",
	  .never = "mount /run/unionroot/nfs/1" },
	{ .kind = RUN_NBD_UPPER, .name = "a branch's nbd server unreachable: union.onfail's tmpfs, in one line",
	  .cmdline = "union.upper=nbd:10.0.2.100:10809/clients-${mac}", .prepare = network_up_with_a_mac,
	  .fault = { { "socket", NULL, 0, -ENETUNREACH } },
	  .rows = "connect the branch's nbd export,union.onfail," LOWER "mount a volatile branch,mount the overlay",
	  .state = "volatile: writable branch: nbd server 10.0.2.100:10809/clients-52-54-00-12-34-56 unreachable",
	  .backend = "overlay",
	  .said = "writable branch: nbd server 10.0.2.100:10809/clients-52-54-00-12-34-56 unreachable: Network is unreachable; booting with a volatile writable branch in RAM (union.onfail=tmpfs)",
	  .never = "umount2 " RW },
	{ .kind = -1, .name = "a persistent branch",
	  .rows = LOWER DEVICE PERSISTENT, .state = "persistent on /dev/vdb (ext4)", .backend = "overlay",
	  .never = "umount2 " RW },
	{ .kind = RUN_MODULES, .name = "an unreadable modules.dep: no modules, the boot goes on",
	  .prepare = modules_listed,
	  .fault = { { "openat", "/lib/modules/6.1.0-fake/modules.dep", 0, -EIO } },
	  .rows = "load modules," LOWER DEVICE PERSISTENT, .backend = "overlay",
	  .said = "reading /lib/modules/6.1.0-fake/modules.dep failed: Input/output error; no modules will be loaded",
	  .never = "finit_module" },
	{ .kind = RUN_WAIT_MEDIA, .name = "an image that never appears stops the boot",
	  .cmdline = "union.wait=2", .prepare = media_unseen,
	  .fault = { { "openat", "/sys/class/block", 0, -ENOENT } },
	  .rows = "wait for the media", .power = RB_AUTOBOOT,
	  .said = "read-only layer 1 /dev/vda not found", .never = "mount /run/unionroot/lower/0" },
	{ .kind = RUN_WAIT_MEDIA, .name = "a writable device that never appears takes union.onfail",
	  .cmdline = "union.wait=2", .prepare = only_the_image,
	  .rows = "wait for the media,union.onfail," LOWER "mount a volatile branch,mount the overlay",
	  .state = "volatile: writable device /dev/vdb not found", .backend = "overlay",
	  .said = "writable device /dev/vdb not found; booting with a volatile writable branch in RAM (union.onfail=tmpfs)" },
	{ .kind = RUN_FORMAT, .name = "a blank device that cannot be read is not formatted",
	  .cmdline = "union.format=ext4", .prepare = blank_upper,
	  .fault = { { "openat", "/dev/vdb", 0, -EIO } },
	  .rows = "mount read-only layer,format the writable device,look for overlayfs," VOLATILE,
	  .backend = "overlay",
	  .said = "writable branch /dev/vdb: reading it failed: Input/output error; not formatting it" },
	{ .kind = RUN_FALLBACK, .name = "union.onfail=shell without a shell: a volatile branch",
	  .cmdline = "union.onfail=shell", .fault = { { "mount", RW, 1, -EIO }, { "fork", NULL, 0, -EAGAIN } },
	  .rows = LOWER "mount the writable branch," VOLATILE,
	  .state = "volatile: mounting writable branch", .backend = "overlay",
	  .said = "no rescue shell in the initramfs (union.onfail=shell)" },
	{ .kind = RUN_FALLBACK, .name = "union.onfail=reboot reboots", .cmdline = "union.onfail=reboot",
	  .fault = { { "mount", RW, 1, -EIO } },
	  .rows = LOWER "mount the writable branch,union.onfail", .power = RB_AUTOBOOT,
	  .said = "rebooting (union.onfail=reboot)", .never = "mount /newroot" },
	{ .kind = RUN_FALLBACK, .name = "union.onfail=halt powers off", .cmdline = "union.onfail=halt",
	  .fault = { { "mount", RW, 1, -EIO } },
	  .rows = LOWER "mount the writable branch,union.onfail", .power = RB_POWER_OFF,
	  .said = "powering off (union.onfail=halt)", .never = "mount /newroot" },
	{ .kind = RUN_VERIFY, .name = "a refused union.verity stops the boot before any mount",
	  .cmdline = "union.verity=zz", .rows = "verify the read-only layers", .power = RB_AUTOBOOT,
	  .said = "read-only layer 1 /dev/vda: verity refused it: union.verity cannot be honoured",
	  .never = "mount /run/unionroot/lower/0" },
	{ .kind = RUN_MOUNT_LOWER, .name = "a layer that does not mount stops the boot",
	  .fault = { { "mount", "/run/unionroot/lower/0", 1, -EINVAL } },
	  .rows = "mount read-only layer", .power = RB_AUTOBOOT,
	  .said = "mounting read-only layer 1 /dev/vda (squashfs) failed: ", .never = "mount " RW },
	{ .kind = RUN_MAKE_PERSIST, .name = "no mkfs in the initramfs nor the image: union.onfail",
	  .cmdline = "union.upper=/dev/vdb:/p.img union.persist.size=64M", .prepare = persist_missing,
	  .rows = "mount read-only layer,make the persistence file,union.onfail,look for overlayfs,"
		  "mount a volatile branch,mount the overlay",
	  .state = "volatile: writable branch: making persistence file /p.img on /dev/vdb failed: formatting it: No such file",
	  .said = "no mkfs for ext4 in this initramfs or in the image (/sbin/mkfs.ext4 or /usr/sbin/mkfs.ext4)",
	  .never = "fexecve" },
	{ .kind = RUN_MAKE_PART, .name = "a disk whose size cannot be read gets no partition: union.onfail",
	  .cmdline = "union.upper=LABEL=persist union.persist.size=64M", .prepare = part_missing,
	  .fault = { { "ioctl", "/dev/vda", 0, -ENOTTY } },
	  .rows = "mount read-only layer,make the persistence partition,union.onfail,look for overlayfs,"
		  "mount a volatile branch,mount the overlay",
	  .state = "volatile: writable branch: making persistence partition persist on /dev/vda failed: "
		   "reading its size: Inappropriate ioctl",
	  .said = "no partition labelled persist; making one of 64M as ext4 behind the last on /dev/vda",
	  .never = "pwrite" },
	{ .kind = RUN_UNLOCK, .name = "a LUKS branch without cryptsetup anywhere: union.onfail",
	  .prepare = upper_luks,
	  .rows = "mount read-only layer,unlock the LUKS container,look for overlayfs,union.onfail,"
		  "mount a volatile branch,mount the overlay",
	  .state = "volatile: writable branch: opening LUKS container /dev/vdb failed: no cryptsetup in this initramfs or in the image",
	  .said = "writable branch /dev/vdb is a LUKS container; opening it with a passphrase",
	  .never = "pipe2" },
	{ .kind = -1, .name = "no mkfs in the initramfs: the image's makes the persistence file",
	  .cmdline = "union.upper=/dev/vdb:/p.img union.persist.size=64M", .prepare = persist_missing_image_mkfs,
	  /* what follows the mkfs is the fake's: its mounts are directories (the
	   * file made is not where the loop looks) and every statfs answers
	   * read-only (so the overlay is refused) */
	  .rows = "mount read-only layer,make the persistence file,union.onfail,look for overlayfs,"
		  "mount a volatile branch,mount the overlay,mount the read-only root",
	  .said = "/sbin/mkfs.ext4: none in this initramfs; running read-only layer 1's own, confined to it",
	  .check = image_mkfs_ran },
	{ .kind = RUN_PROBE_OVERLAY, .name = "no overlayfs in the kernel nor the image: copy-up",
	  .prepare = no_overlayfs, .rows = LOWER DEVICE COPYUP "mount the read-only root",
	  .backend = "bind (read-only)", .said = "no overlay module in the image either" },
	{ .kind = RUN_NO_COPYUP, .name = "copy-up asked of a build without it: the read-only layer",
	  .cmdline = "union.mode=copyup", .prepare = build_without_copyup,
	  .rows = LOWER "union.onfail,no copy-up in this build,mount the read-only root",
	  .backend = "bind (read-only)", .said = "and this build has none; booting the read-only layer",
	  .unsaid = "booting with a volatile writable branch" },
	{ .kind = RUN_MOUNT_BRANCH, .name = "a branch that does not mount takes union.onfail=tmpfs",
	  .fault = { { "mount", RW, 1, -EIO } }, .rows = LOWER "mount the writable branch," VOLATILE,
	  .state = "volatile: mounting writable branch /dev/vdb (ext4) failed: ", .backend = "overlay",
	  .said = "booting with a volatile writable branch in RAM (union.onfail=tmpfs)" },
	{ .kind = RUN_MOUNT_BRANCH, .name = "a device gone before its mount is a branch that does not mount",
	  .fault = { { "mount", RW, 1, -ENXIO } }, .rows = LOWER "mount the writable branch," VOLATILE,
	  .state = "volatile: mounting writable branch /dev/vdb (ext4) failed: " },
	{ .kind = RUN_MOUNT_BRANCH, .name = "errors fsck cannot repair: the branch is not mounted",
	  .cmdline = "union.fsck=1", .prepare = e2fsck_finds_errors,
	  .rows = LOWER "mount the writable branch," VOLATILE,
	  .state = "volatile: writable branch /dev/vdb (ext4): /sbin/e2fsck found errors it cannot repair (exit 4)",
	  .said = "booting with a volatile writable branch in RAM (union.onfail=tmpfs)" },
	{ .kind = RUN_READ_STATE, .name = "an unreadable control state starts afresh",
	  .fault = { { "openat", ".unionroot", 1, -EIO } }, .rows = LOWER DEVICE PERSISTENT,
	  .state = "persistent on /dev/vdb", .backend = "overlay",
	  .said = "control state .unionroot/state on /dev/vdb is Input/output error; starting it afresh" },
	{ .kind = RUN_FAILSAFE, .name = "a failsafe branch that cannot be kept is unmounted",
	  .cmdline = "union.maxfails=3", .prepare = boots_without_ok,
	  .fault = { { "remount", RW, 0, -EIO } },
	  .rows = LOWER DEVICE "keep it read-only (failsafe),mount a volatile branch,mount the overlay",
	  .backend = "overlay", .calls = "remount " RW "|" RELEASED,
	  .said = "failsafe: keeping writable branch /dev/vdb read-only at " SAVED " failed: Input/output error; it is not mounted",
	  .unsaid = "the branch read-only at", .check = nothing_saved },
	{ .kind = RUN_TAKE_RESET, .name = "a reset copy-up cannot take over is the layout's",
	  .cmdline = "union.mode=copyup", .prepare = reset_requested,
	  .fault = { { "renameat2", "copyup-reset", 0, -EIO } },
	  .rows = LOWER DEVICE COPYUP "mount the read-only root", .check = copyup_reset_taken,
	  .said = "factory reset (requested by 'unionroot reset')" },
	{ .kind = RUN_LAYOUT, .name = "ENOSPC on the layout's third mkdir (upper/) takes union.onfail",
	  .fault = { { "mkdirat", "upper", 1, -ENOSPC } },
	  .rows = LOWER DEVICE "lay it out," VOLATILE, .backend = "overlay",
	  .state = "volatile: writable branch /dev/vdb: creating upper/ failed: No space left on device",
	  .calls = "mkdirat .unionroot|mkdirat trash|mkdirat upper|" RELEASED,
	  .said = "booting with a volatile writable branch in RAM (union.onfail=tmpfs)" },
	{ .kind = -1, .name = "OpenWrt's sysupgrade.tgz on a fresh branch goes into upper/",
	  .prepare = sysupgrade_left,
	  .rows = LOWER DEVICE "lay it out,place OpenWrt's sysupgrade.tgz,save its control state,mount the overlay",
	  .state = "persistent on /dev/vdb (ext4)", .backend = "overlay", .check = sysupgrade_restored,
	  .said = "writable branch /dev/vdb: OpenWrt's sysupgrade.tgz restored: the firmware was upgraded and union.upgrade=keep" },
	{ .kind = -1, .name = "union.upgrade=keeplist holds sysupgrade.tgz in .unionroot/ for the shim",
	  .cmdline = "union.upgrade=keeplist", .prepare = sysupgrade_left,
	  .rows = LOWER DEVICE "lay it out,place OpenWrt's sysupgrade.tgz,save its control state,mount the overlay",
	  .backend = "overlay", .check = sysupgrade_held,
	  .said = "OpenWrt's sysupgrade.tgz held for the keep list: the firmware was upgraded and union.upgrade=keeplist" },
	{ .kind = -1, .name = "union.upgrade=reset sets sysupgrade.tgz aside with the trash",
	  .cmdline = "union.upgrade=reset", .prepare = sysupgrade_left,
	  .rows = LOWER DEVICE "lay it out,place OpenWrt's sysupgrade.tgz,save its control state,mount the overlay",
	  .backend = "overlay", .check = sysupgrade_trashed,
	  .said = "OpenWrt's sysupgrade.tgz set aside: the firmware was upgraded and union.upgrade=reset" },
	{ .kind = RUN_SYSUPGRADE, .name = "sysupgrade.tgz that cannot be placed stays, and the boot goes on",
	  .prepare = sysupgrade_left, .fault = { { "renameat2", "sysupgrade.tgz", 0, -EIO } },
	  .rows = LOWER DEVICE "lay it out,place OpenWrt's sysupgrade.tgz,save its control state,mount the overlay",
	  .state = "persistent on /dev/vdb (ext4)", .backend = "overlay",
	  .said = "placing OpenWrt's sysupgrade.tgz failed: Input/output error; it stays at the branch's top, unused" },
	{ .kind = RUN_SAVE_STATE, .name = "a control state that cannot be saved costs the count only",
	  .fault = { { "openat", ".state.new", 0, -ENOSPC } }, .rows = LOWER DEVICE PERSISTENT,
	  .state = "persistent on /dev/vdb (ext4)", .backend = "overlay", .never = "umount2 " RW,
	  .said = "saving the control state on /dev/vdb failed: No space left on device; boot counting and upgrade detection miss this boot" },
	{ .kind = RUN_SESSION_COPY, .name = "a kiosk copy that fails starts from the image",
	  .cmdline = "union.mode=copyup union.session=volatile",
	  .fault = { { "openat", "/dev/vda", 0, -EIO } },
	  .rows = LOWER DEVICE "take the reset over (copy-up),lay it out,save its control state,"
		  "bring the saved branch up to date,keep it read-only (kiosk session),mount a volatile branch,"
		  "copy up,mount the read-only root", .check = session_layered,
	  .said = "copy-up: identity of read-only layer /dev/vda: Input/output error; the kiosk session starts from the image" },
	{ .kind = RUN_SESSION, .name = "a kiosk branch that cannot be kept: a session on the image",
	  .cmdline = "union.session=volatile", .fault = { { "mount", SAVED, 0, -EINVAL } },
	  .rows = LOWER DEVICE "lay it out,save its control state,keep it read-only (kiosk session),"
		  "mount a volatile branch,mount the overlay",
	  .backend = "overlay", .check = session_layered, .calls = "mount " SAVED "|" RELEASED,
	  .said = "kiosk session: keeping writable branch /dev/vdb read-only at " SAVED " failed: Invalid argument; it is not mounted" },
	{ .kind = RUN_TMPFS, .name = "a volatile branch that fails: a read-only root", .cmdline = "union.upper=tmpfs",
	  .fault = { { "mount", RW, 0, -ENOMEM } },
	  .rows = LOWER "mount a volatile branch,mount the read-only root", .backend = "bind (read-only)",
	  .said = "mounting a tmpfs writable branch failed: " },
	{ .kind = RUN_OVERLAY, .name = "an overlay refused twice: work/ afresh, then union.onfail",
	  .fault = { { "mount", "/newroot", 1, -EINVAL }, { "mount", "/newroot", 1, -EINVAL } },
	  .rows = LOWER DEVICE PERSISTENT ",renew work/,mount the overlay," VOLATILE,
	  .state = "volatile: overlay over writable branch /dev/vdb failed: ", .backend = "overlay",
	  .calls = "mount /newroot|mount /newroot|" RELEASED, .said = "retrying with a fresh work/" },
	{ .kind = RUN_OVERLAY, .name = "no overlayfs at the mount: the read-only layer alone",
	  .fault = { { "mount", "/newroot", 1, -ENODEV } },
	  .rows = LOWER DEVICE PERSISTENT ",mount the read-only root",
	  .state = "none: overlay failed: ", .backend = "bind (read-only)",
	  .calls = "mount /newroot|umount2 " RW "|mount /newroot", .said = "no overlayfs in this kernel" },
	{ .kind = RUN_FRESH_WORK, .name = "a work/ that cannot be renewed: the refusal takes union.onfail",
	  .fault = { { "mount", "/newroot", 1, -EINVAL }, { "mkdirat", "work", 2, -ENOSPC } },
	  .rows = LOWER DEVICE PERSISTENT ",renew work/," VOLATILE,
	  .state = "volatile: overlay over writable branch /dev/vdb failed: Invalid argument",
	  .backend = "overlay", .calls = "mount /newroot|mkdirat work|" RELEASED },
	{ .kind = RUN_COPYUP, .name = "a copy-up that fails leaves the read-only layer",
	  .cmdline = "union.mode=copyup", .fault = { { "openat", "/dev/vda", 0, -EIO } },
	  .rows = LOWER DEVICE COPYUP "mount the read-only root", .state = "persistent on /dev/vdb (ext4)",
	  .backend = "bind (read-only)", .said = "copy-up: identity of read-only layer /dev/vda: Input/output error" },
	{ .kind = RUN_READONLY, .name = "a read-only root that cannot be bound stops the boot",
	  .cmdline = "union.upper=none", .fault = { { "mount", "/newroot", 0, -EIO } },
	  .rows = "mount read-only layer,mount the read-only root", .power = RB_AUTOBOOT,
	  .said = "binding the read-only layer to /newroot failed: Input/output error" },
	{ .kind = RUN_HANDOFF, .name = "no init in the new root stops the boot",
	  .fault = { { "openat2", NULL, 0, -ENOENT } },
	  .rows = LOWER DEVICE PERSISTENT ",switch to the real init", .power = RB_AUTOBOOT,
	  .said = "no init in the new root (tried init=, ", .never = "chroot ." },
	/* mount-root: the same plan inside another initramfs, the union at --at */
	{ .kind = RUN_MOUNT_AT, .name = "mount-root: a status that cannot be written still leaves the union",
	  .at = "/sysroot", .fault = { { "openat", "/run/unionroot", 0, -EROFS } },
	  .rows = LOWER DEVICE PERSISTENT ",leave it for the host to switch", .power = RUN_EXITED(0),
	  .backend = "overlay", .said = "the union is at /sysroot on overlay root", .calls = "mount /sysroot",
	  .never = "chroot ." },
	{ .kind = RUN_MOUNT_LOWER, .name = "mount-root: a layer that cannot be mounted exits 1, no reboot",
	  .at = "/sysroot", .fault = { { "mount", "/run/unionroot/lower/0", 0, -EIO } },
	  .rows = "mount read-only layer", .power = RUN_EXITED(1),
	  .said = "mount-root gives up (exit 1), the host's initramfs takes over", .never = "power" },
	{ .kind = RUN_FALLBACK, .name = "mount-root: union.onfail=shell exits 1 to the host's shell",
	  .at = "/sysroot", .cmdline = "union.onfail=shell", .fault = { { "mount", "/run/unionroot/rw", 0, -EIO } },
	  .rows = LOWER "mount the writable branch,union.onfail", .power = RUN_EXITED(1),
	  .said = "mount-root gives up (exit 1)", .never = "fork" },
};

const size_t run_ncases = sizeof(run_cases) / sizeof(run_cases[0]);
