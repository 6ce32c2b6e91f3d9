/* SPDX-License-Identifier: MIT */
/* Small shared definitions: attributes and array sizes. */
#ifndef UNIONROOT_DEFS_H
#define UNIONROOT_DEFS_H

#define WUR __attribute__((warn_unused_result))
#define FALLTHROUGH __attribute__((fallthrough))
#define PRINTF(a, b) __attribute__((format(printf, a, b)))
#define NORETURN __attribute__((noreturn))
/* Drops a warn_unused_result value on purpose; say why at the call site.
 * gcc ignores a plain (void) cast for this attribute. */
#define IGNORE(x) ((void)!(x))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* A device node's path ("/dev/mmcblk0p19", "/dev/ubiblock0_1") and a file
 * system's type as blkid names it ("squashfs", "iso9660"), with their NUL. */
#define DEVNODE_MAX 48
#define FSTYPE_MAX 16

#endif
