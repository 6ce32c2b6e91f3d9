/* SPDX-License-Identifier: MIT */
/* The one static boot context of PID 1, with fixed capacities, and the steps
 * of SPEC.md's sequence that main() calls in order. */
#ifndef INIT_BOOT_H
#define INIT_BOOT_H

#include <stdint.h>

#include "branch/state.h"
#include "conf/config.h"
#include "conf/spec.h"
#include "conf/specvar.h"
#include "kmod/moddep.h"
#include "lib/defs.h"
#include "lib/runstate.h"
#include "media/blkdev.h"
#include "plan/plan.h"

#define CMDLINE_MAX 4096
#define CONF_MAX 4096
#define NEWROOT "/newroot"
/* RUNDIR, RWDIR, SAVEDIR and the rest of /run/unionroot: runstate.h */

/* Facts, then the plan decided from them, then what was carried out. A
 * fact is written by the step that learns it; the plan only by plan_build,
 * which init/run.c alone calls, before each step (a device found, the
 * kernel's overlayfs, the control state, a step that failed); no step
 * decides for itself. */
struct boot {
	/* facts: step 2 (configure) */
	struct config cfg;
	char cmdline[CMDLINE_MAX + 1];     /* /proc/cmdline, split in place */
	char cmdline_raw[CMDLINE_MAX + 1]; /* untouched, for module parameters */
	char conf[CONF_MAX + 1];           /* /etc/unionroot.conf */
	struct spec lower[SPEC_LIST_MAX];
	unsigned nlower;
	int pivot;                         /* no initramfs: / is the read-only layer */

	/* facts: step 4 (devwait, image, flash, firstboot, verity) */
	struct blkdev_table devs;
	char lower_dev[SPEC_LIST_MAX][DEVNODE_MAX];
	char lower_type[SPEC_LIST_MAX][FSTYPE_MAX];
	char lower_via[SPEC_LIST_MAX][SPEC_PATHS_MAX * 64]; /* medium:path..., "" */
	char lower_verity[SPEC_LIST_MAX][256]; /* "verified ...", "" when not asked */
	char upper_dev[DEVNODE_MAX];
	int upper_released;                /* given up (union.onfail): its medium released */
	char upper_type[FSTYPE_MAX];
	char upper_medium[DEVNODE_MAX];             /* a persistence file's medium, "" */
	char upper_locked[DEVNODE_MAX];    /* the LUKS container upper_dev was opened from, "" */
	char upper_via[SPEC_PATHS_MAX * 64]; /* "/dev/sda1:/persistence.img (direct I/O)" */
	char lower_disk[32];               /* the whole disk read-only layer 1 was found on,
					    * where a persistence partition is made; "" */
	uint64_t lower_disk_end;           /* the bytes its file system spans there, when
					    * found on the whole disk (a dd'd ISO); 0 */
	char persist_on[DEVNODE_MAX], persist_on_type[FSTYPE_MAX]; /* the medium of a persistence
					    * file to make, once the layers are mounted; "" none */
	char hash_missing[PLAN_FAIL_MAX];  /* a hash tree's device not found: why, "" */
	/* facts: the network (net.c), when a layer is on it */
	char net_dev[16];                  /* the NIC, "" none */
	char net_addr[16];                 /* its address */
	char net_text[64];                 /* "eth0 10.0.2.15 (DHCP)" */
	char net_ip[320];                  /* the lease as the kernel's ip= value */
	char net_mac[SPECVAR_MAC_TEXT];    /* the NIC's address as ${mac} says it, "" unknown */
	char net_host[SPECVAR_HOST_MAX];   /* DHCP's or ip='s host name for ${hostname}, "" none */
	struct spec upper_net;             /* an nbd: branch's device once connected (net_nbd.c):
					    * what the wait finds in its SPEC's place; kind SPEC_NBD
					    * until then */
	/* facts: step 5, the branch's control state (writable.c) */
	char lower_id[SPEC_LIST_MAX][STATE_ID_MAX]; /* identities of the read-only layers */
	unsigned nlower_id;                /* 0 when one could not be read */
	unsigned long upper_flags;         /* MS_NODEV|MS_NOSUID: the branch is on removable media */

	/* context of the steps: the layers' mount points, the branch's top */
	char lower_dir[SPEC_LIST_MAX][48];
	const char *lower_paths[SPEC_LIST_MAX]; /* lower_dir, for a reset */
	int rw;                            /* RWDIR's top while a step works on it, -1 */
	int mount_broken;                  /* union.break=mount was offered, once */

	/* the plan: facts in (the ones plan_build reads), decisions out */
	struct plan_facts facts;           /* what the boot learnt so far, for plan_build */
	struct plan plan;                  /* the last plan built from them */

	/* results: what step 5 carried out, each written by one file (tests/host/owners.sh) */
	int upper_kind;                    /* enum upper_kind: the branch mounted (writable.c) */
	char upper_state[160];             /* "persistent", "volatile: <why>" (result.c) */
	const char *backend;               /* "overlay", "bind (read-only)" (union.c) */
	char overlay_opts[1024];           /* (union.c) */
	unsigned long root_flags;          /* the removable branch's flags while in the root (union.c) */
	int reset_applied;                 /* and the three below (result.c) */
	const char *reset_why;
	unsigned reset_kept, reset_refused;
	int trash_pending;                 /* the trash holds something: clean it after the switch */
	int copyup_reset;                  /* 1 union.reset or a cut restore, 2 requested */
	int lower_changed;                 /* since the last boot */
	char upgrade[160];                 /* what union.upgrade did, "" when nothing changed */
	unsigned boots;                    /* boot counter after this boot */
	char failsafe[160];                /* why this boot is failsafe, "" when not */
	int session_layer;                 /* union.session=volatile: SAVEDIR/upper is the top layer */
	int branch_saved;                  /* failsafe or kiosk: SAVEDIR holds the branch, read-only */
	int session_copy_failed;           /* copy-up kiosk: the saved branch was not brought up to date */
	char copyup_text[160];             /* backend: "copyup (why)" */
	char tools_ran[160];               /* "/sbin/e2fsck (read-only layer 1)" (tool_place.c) */

	/* measures, for the status */
	uint64_t t_start, t_modules, t_devices, t_mounts;
	uint64_t memfree_before;           /* MemFree with the initramfs still there */
	uint64_t fsck_ms;                  /* the writable branch's check, 0 when none ran */
	char **argv;
	char **envp;
};

/* Where the union is mounted: /newroot, or mount-root's --at DIR. */
static inline const char *boot_root(const struct boot *b)
{
	return b->facts.mount_at && b->facts.mount_at[0] ? b->facts.mount_at : NEWROOT;
}
/* mount-root: PID 1's plan run inside another initramfs, which switches */
static inline int boot_hosted(const struct boot *b)
{
	return b->facts.mount_at && b->facts.mount_at[0];
}

/* init/early.c */
void early_setup(struct boot *b);
/* /run/initramfs/shutdown: the union taken apart, then reboot(2) */
NORETURN void shutdown_main(int argc, char **argv);
/* The media marked x-initrd.mount for systemd (libmount's utab) */
void utab_keep_media(void);
/* Gives the kernel back its module helper and kmsg rate limit. */
void early_restore(void);
/* Lifts the kernel's rate limit of userspace kmsg lines (until early_restore). */
void early_kmsg_unlimited(void);
/* The kernel's console log level: the lines kmsg shows on the console. */
int early_console_loglevel(void);
/* init/configure.c */
void configure(struct boot *b);
/* init/modules.c */
void modules_load(struct boot *b);
/* Loads what a mount of this file system type needs, if not loaded yet. */
void modules_for_fs(struct boot *b, const char *type);
/* Loads modules by name (space-separated) with their dependencies, once. */
void modules_by_name(const char *names);
/* Loads the board's listed modules kept for this need (moddep_need), once. */
void modules_for_need(enum mod_need need);
/* Loads the carried drivers whose modules.alias patterns match a device's
 * modalias (devpath names the device in the debug log): how many it tried. */
unsigned modules_for_device(const char *modalias, const char *devpath);
/* The first carried driver not loaded yet that modalias asks for: 1 with
 * its name (cap bytes), 0 none. */
int modules_match(const char *modalias, char *name, size_t cap);
/* init/modpack.c: mounts lib/modules/VERSION/modules.pack (dir: that
 * directory; loop and squashfs loaded): 1, or -errno (logged). modpack_open
 * opens a module in it by its modules.dep path; modpack_release unmounts it
 * after the switch, through root, the initramfs's root. */
int modpack_mount(const char *dir);
int modpack_open(const char *rel);
void modpack_release(int root);
/* init/coldplug.c: queues every device already in /sys/devices that no
 * driver has bound and a carried driver matches. */
void modules_coldplug(void);
/* The driver of the next queued device: 1 when one was tried, 0 none left. */
int modules_coldplug_next(void);
/* The media are found: what is still queued is left to the real init
 * (logged); modules_left() names those drivers, "" none. */
void modules_leave(void);
const char *modules_left(void);
/* The kernel's uevent socket, bound on the first call (before the coldplug
 * walk): the fd, or -errno. */
int hotplug_socket(void);
/* Reads every queued uevent; a device added gets its driver. */
void hotplug_drain(int fd);
void hotplug_close(void);
/* init/devwait.c: resolves every SPEC to a device; the read-only layers are
 * fatal when missing, the writable branch falls back to union.onfail. */
void devices_wait(struct boot *b);
/* init/reach.c: how a medium found on d is mounted without claiming a
 * whole disk that has partitions (media_reach): path is d's own, its
 * partition's at sector 0, or a read-only loop device's over the disk. */
struct reach {
	const struct blkdev *d, *use;
	const char *path;               /* what to mount */
	int how;                        /* enum media_reach */
	int loop;                       /* the loop's fd until reach_end, else -1 */
	char loop_path[32];
};
/* 0, or -errno when the loop device cannot be made. */
int reach_start(struct boot *b, const struct blkdev *d, struct reach *r) WUR;
/* After the mount (rc its result): lets go of the loop, which a failed
 * mount leaves to detach; on success says which device serves and why. */
void reach_end(struct reach *r, const char *role, int rc);
/* init/image.c: one image chain to resolve, outermost medium first. */
struct image_req {
	const char *role;               /* "read-only layer 1" */
	const char *dev, *type;         /* the medium and its file system */
	const char (*paths)[SPEC_PATH_MAX];
	unsigned npaths;                /* 0: the device itself (with toram) */
	int toram;                      /* copy the innermost image into RAM */
	int quiet_enoent;               /* auto: a medium without the image is no error */
	int rw;                         /* a persistence file: read-write, one path */
	char out_dev[DEVNODE_MAX], out_type[FSTYPE_MAX]; /* the loop device and what it holds */
	char via[SPEC_PATHS_MAX * 64];  /* "/dev/sr0:/live/x.squashfs (direct I/O)" */
};
/* Mounts the medium read-only, opens each path beneath it and loop-attaches
 * it read-only, level by level; with rw, the medium and the loop of its one
 * file read-write. 0, or -errno with the reason logged (not for -ENOENT on
 * the first level when quiet_enoent). */
int image_open(struct boot *b, struct image_req *r) WUR;
/* Why an image cannot be used, for -errno of image_open. */
const char *image_why(int rc);
/* The shared mount of medium dev, read-write, for making a file on it; dir
 * (48 bytes) gets where. 0 or -errno. image_medium_put ends that use. */
int image_medium_rw(struct boot *b, const char *dev, const char *type, char *dir) WUR;
void image_medium_put(const char *dir);
/* init/devwait.c: the writable device found: facts for the plan from now on. */
void devices_found_upper(struct boot *b);
/* init/unlock.c: the LUKS container the branch is, closed (its device is
 * the container's again); nothing when none was opened. */
void unlock_close(struct boot *b);
/* init/mkpersist.c: the persistence file (union.upper=SPEC:/file) on medium
 * d on a read-write loop, which becomes the writable device: 1, or < 0 when
 * the file cannot be used (why says so in one line); a missing file the
 * plan makes is left to step_make_persist (1, no device yet). */
int persist_file_open(struct boot *b, const struct blkdev *d, char *why, size_t whylen) WUR;
/* Makes the missing persistence file the plan names
 * (union.persist.size) on medium dev: 0, or -errno with why filled in. */
int persist_make(struct boot *b, const char *dev, const char *type, char *why, size_t whylen) WUR;
/* The persistence file cannot serve as the branch: detaches its loop and
 * unmounts its medium, or remounts it read-only when a read-only layer
 * shares it (the fallback must not leave the stick writable). */
void image_release_upper(struct boot *b);
/* 1 when path is a file on medium dev (mounted and unmounted again), 0 not,
 * -errno when the medium cannot be mounted. */
int image_present(struct boot *b, const char *dev, const char *type, const char *path) WUR;
/* init/toram.c: union.toram's copy of the image behind fd (size bytes) in a
 * tmpfs of its own: a read-only fd of the copy, or -errno (said; the caller
 * runs from the medium). */
int toram_copy(int fd, uint64_t size, const char *role) WUR;
/* Up to cap bytes of the file path on medium dev (mounted and unmounted
 * again), never through a symlink out of it: how many, or -errno. */
ssize_t image_read_file(struct boot *b, const char *dev, const char *type, const char *path, void *buf,
			size_t cap) WUR;
/* init/flash.c: resolves mtd:/ubi: SPECs for devices_wait(); 1 when done
 * (type "" when the medium holds something unusable, already reported),
 * 0 to wait on. dev holds DEVNODE_MAX bytes, type FSTYPE_MAX. */
int flash_resolve(struct boot *b, const struct spec *s, int is_upper, char *dev, char *type,
		  const char *role) WUR;
/* 1 when the writable MTD bears OpenWrt's end-of-image marker (blank from
 * there on, as erased flash is), else 0. */
int flash_upper_marked(void);
/* Erases the writable MTD for union.format=jffs2, or from OpenWrt's marker
 * on, the block that tells it last; 0 or -errno (reported). */
int flash_format_upper(struct boot *b) WUR;
/* A tool and where it runs from (init/tool_place.c). */
struct tool {
	const char *path;               /* as its table names it */
	unsigned layer;                 /* TOOL_INITRAMFS, else read-only layer N */
};
/* init/tool.c: runs a tool with its output logged ("NAME: line"), in on its
 * standard input, and a time limit. Its exit status (128 + signal when one killed it), -ETIMEDOUT when
 * it ran out of time, or -errno. */
int tool_run_input(const struct tool *t, char *const argv[], unsigned timeout_s, const void *in,
		   size_t len);
/* in: its standard input (a key, under 64 KiB), NULL /dev/null. */
static inline int tool_run(const struct tool *t, char *const argv[], unsigned timeout_s)
{
	return tool_run_input(t, argv, timeout_s, NULL, 0);
}
/* init/tool_place.c: of the n candidate paths, the one that runs and where
 * from (plan_tool_choose: the initramfs, else a mounted read-only layer's
 * regular executable on that layer's own read-only file system, resolved
 * inside it), recorded in tools_ran; its index, or -ENOENT. */
int tool_find(struct boot *b, const char *const *paths, unsigned n, struct tool *t) WUR;
/* In tool_run's child: execs t, a layer's confined to it (a mount namespace
 * of its own with /dev and /proc, chrooted); returns -errno on failure. */
int tool_exec(const struct tool *t, char *const argv[], char *const envp[]);
/* init/fsck.c: checks the persistent writable branch of type TYPE before it
 * is mounted, when union.fsck is on and the initramfs carries a checker. 0
 * (clean, repaired, or not checked: logged), or -EUCLEAN with why filled:
 * errors the checker could not repair. */
int fsck_branch(struct boot *b, const char *type, char *why, size_t cap);
/* init/firstboot.c: a blank writable medium gets the file system that
 * union.format= names; sets upper_type when it did. */
void firstboot(struct boot *b);
/* Runs the formatter the initramfs (else the image) carries for type on dev,
 * labelling the file system label (NULL: none): 0, -ENOENT when there is
 * none, or -errno; failures are logged. */
int firstboot_mkfs(struct boot *b, const char *dev, const char *type, const char *label) WUR;
/* init/noinitramfs.c: without an initramfs, makes the running root the
 * read-only layer (sets pivot) or, when no union can be built on it, starts
 * the real init on it; the mount of layer 1; the pivot_root in handoff. */
void noinitramfs_setup(struct boot *b);
int noinitramfs_lower(const char *dir) WUR;
int noinitramfs_switch(void) WUR;
/* init/verity.c: the layers the plan verifies get a dm-verity device
 * that replaces lower_dev: 0, or -errno with why for a layer refused
 * (never mounted unverified; the boot stops as the plan says). */
int verity_layers(struct boot *b, char *why, size_t cap) WUR;
/* init/net.c: the network's deadline (the first nbd: layer's, else
 * union.wait), in sys_now_ms() time; UINT64_MAX none. */
uint64_t net_deadline(const struct boot *b);
/* init/net_dhcp.c: a lease for b->net_dev by end: 0, or -errno with why. */
/* init/net_nbd.c: a TCP connection to addr:port by end, its reads and
 * writes ending there too: the fd, or -errno. */
int net_dial(uint32_t addr, unsigned port, uint64_t end) WUR;
/* init/net.c: an image file fetched or on an export (img, the caller's to
 * close) as read-only layer's device: probed, then on a read-only loop
 * device, which is its SPEC from here on (the plan waits for no other). 0,
 * or -errno with why the image's predicate ("holds no file system
 * unionroot knows"), for the caller to name the image. */
int net_image_layer(struct boot *b, unsigned layer, int img, char *why, size_t cap) WUR;
struct dhcp_lease;
int net_dhcp(struct boot *b, uint64_t end, struct dhcp_lease *l, char *why, size_t cap) WUR;
/* init/result.c: what the writable branch became (enum branch_outcome; for
 * OUTCOME_LOST, what failed and its -errno), the status's upper_state. */
enum branch_outcome {
	OUTCOME_PERSISTENT,  /* detail: its file system */
	OUTCOME_VOLATILE,    /* the plan's tmpfs, unless said already */
	OUTCOME_FALLBACK,    /* union.onfail's tmpfs; detail: why */
	OUTCOME_FAILSAFE,    /* the failsafe's tmpfs (b->failsafe says why) */
	OUTCOME_SESSION,     /* a kiosk session; detail: the saved branch, NULL: none */
	OUTCOME_NONE,        /* no branch (union.upper=none), unless said already */
	OUTCOME_NO_COPYUP,   /* copy-up needed in a build without it */
	OUTCOME_LOST         /* the branch could not serve the root; detail: the step */
};
void result_branch(struct boot *b, int what, const char *detail, int err);
/* A factory reset was carried out: why, and its keep paths. */
void result_reset(struct boot *b, const char *why, unsigned kept, unsigned refused);
/* Lazy unmount of a mount of ours; a failure is said and left. */
void union_detach(const char *path);
/* The branch as messages name it: its device, or "tmpfs" (none, or released). */
const char *writable_name(const struct boot *b);
/* room.c: a full writable branch gives up its reserve before anything is
 * written to it; after the boot's writes, the fullness warning and a new
 * reserve when there is room for one. */
void room_at_mount(struct boot *b, int rw);
void room_after_boot(struct boot *b, int rw);
/* How full the branch is, in percent; -1 when it cannot tell. */
int room_used_percent(int rw);
/* init/watchdog.c: a child of PID 1 that names the phase or step PID 1
 * is stuck in, once its budget (seconds, 0: none) has passed, with where in
 * the kernel PID 1 waits. A step (a mount, a module) overrides the phase
 * until watchdog_step_end(); stop ends and reaps the child. */
#define WD_STEP_S 20   /* a mount, a module */
#define WD_PHASE_S 60  /* a phase's own work between its steps */
#define WD_MARGIN_S 10 /* beyond a deadline the step keeps itself */
void watchdog_start(void);
void watchdog_phase(unsigned budget_s, const char *fmt, ...) PRINTF(2, 3);
void watchdog_step(unsigned budget_s, const char *fmt, ...) PRINTF(2, 3);
void watchdog_step_end(void);
void watchdog_stop(void);
/* init/handoff.c: never returns. */
NORETURN void handoff(struct boot *b);
/* What the real root finds in /run/unionroot: the runtime copy of this
 * binary, the shutdown's way back, the board defaults, the status and plan. */
void handoff_records(struct boot *b);
/* init/mountroot.c: `unionroot mount-root --at DIR` in another initramfs:
 * the plan's steps with the union at DIR; the exit status (never returns
 * from the boot's loop: mountroot_done exits). */
int mountroot_main(struct boot *b, int argc, char **argv, char **envp);
NORETURN void mountroot_done(struct boot *b);
/* Exits with status after one line: mount-root's end when the boot stops. */
NORETURN void mountroot_fail(const char *why, int status);
/* init/rescue.c */
void rescue_break(struct boot *b, int phase, const char *name);
/* A reboot after a countdown of RESCUE_REBOOT_S, or a power off; what:
 * "rebooting", said. */
#define RESCUE_REBOOT_S 10
NORETURN void rescue_power(int halt, const char *what);
NORETURN void rescue_fatal(struct boot *b, const char *why);
int rescue_have_shell(void);
/* Runs the rescue shell and waits for it; 0 when it ran. */
int rescue_shell(const char *why);
/* init/status.c */
void status_write(struct boot *b);
/* After the switch, just before the exec: appends the hand-off's cost, PID
 * 1's resident memory and the memory the freed initramfs gave back. */
void status_handoff(struct boot *b);

#endif
