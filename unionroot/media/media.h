/* SPDX-License-Identifier: MIT */
/* Pure rules about media: which devices `auto` looks at, which media carry
 * image files rather than being a layer themselves, and whether an image fits
 * in RAM for union.toram. The boot and `unionroot plan` share them. */
#ifndef UNIONROOT_MEDIA_H
#define UNIONROOT_MEDIA_H

#include <stdint.h>

#include "lib/defs.h"
#include "media/blkdev.h"

/* RAM left to the running system after a union.toram copy. */
#define TORAM_HEADROOM (64ull << 20)

/* 1 when unionroot mounts this file system type read-only to look inside. */
int media_mountable(const char *type);
/* Mount options for looking inside a medium of this type, or NULL: vfat
 * would ask for the kernel's default code page (ascii on Debian), a module
 * the initramfs does not carry; the board loads nls_utf8 for vfat. */
const char *media_mount_options(const char *type);
/* 1 when `auto` looks at d for union.image under union.scan (enum cfg_scan). */
int media_scan_candidate(const struct blkdev *d, int scan);
/* 1 when a SPEC without a path on a medium of this type means "union.image
 * inside it" (a live CD or stick: iso9660, vfat), 0 when the medium is the
 * layer itself (squashfs, erofs, ext4, ...). */
int media_holds_images(const char *type);
/* 1 when a read-only layer's medium of this type is mounted to be read
 * (an image inside it: the SPEC's chain, auto's or a DVD's union.image;
 * or union.toram's copy), 0 when the device is the layer itself: the
 * medium that media_reach's rule applies to. */
int media_opens(const struct spec *s, const char *type, int toram);
/* The order `auto` looks at devices in: fixed before removable (a stick
 * that copies a fixed disk's image must not win), then by kernel name. idx
 * receives t->n indexes of t; returns t->n. */
unsigned media_order(const struct blkdev_table *t, unsigned *idx);

/* How the file system found on d is reached without claiming a whole disk
 * (doc/live-media.md, "A stick made with dd"). Mounting a whole disk claims
 * it, and the kernel then refuses to mount any of its partitions (EBUSY):
 * a hybrid ISO written with dd, with a partition for the changes added
 * after it, would boot without them. So on a whole disk that also holds a
 * partition table, the file system is reached through the partition that
 * starts at the disk's first sector and covers it (*use, REACH_PARTITION),
 * else through a read-only loop device over the whole disk (REACH_LOOP,
 * *use is d); anything else is mounted as it is (REACH_DEVICE). A
 * partition the table names and the kernel has not shown yet counts as
 * none: the loop serves at once. */
enum media_reach { REACH_DEVICE, REACH_PARTITION, REACH_LOOP };
int media_reach(const struct blkdev_table *t, const struct blkdev *d, const struct blkdev **use);

/* Which device plays the role a SPEC names (doc/design.md, "Which device"): a
 * fixed device before any removable one, the lowest kernel name among
 * equals. A removable device alone serves at once only when the role asks
 * for removable media; otherwise the boot waits for a fixed one until the
 * deadline, and then a read-only layer takes it, a writable branch never. */
enum media_verdict { MEDIA_WAIT, MEDIA_TAKE, MEDIA_REFUSE };
struct media_choice {
	const struct blkdev *d;   /* taken; or the removable one awaited or refused; NULL none */
	unsigned matched;         /* devices that match the SPEC */
	unsigned removable;       /* of them removable */
	int verdict;              /* enum media_verdict */
};
/* 1 when a role may take a removable device at once: union.scan=removable
 * (enum cfg_scan, the board's or the command line's), `auto`, a file inside
 * the medium (a live medium's image, a stick's persistence file), or a
 * hash tree (hash: its root hash checks it). */
int media_asks_removable(int scan, const struct spec *s, int hash);
void media_choose(const struct blkdev_table *t, const struct spec *s, int upper, int asks,
		  int past_deadline, struct media_choice *c);

/* 0 when an image of size bytes fits into avail bytes of RAM with
 * TORAM_HEADROOM to spare, else -ENOMEM; *need says how much it takes. */
int toram_fits(uint64_t size, uint64_t avail, uint64_t *need) WUR;

#endif
