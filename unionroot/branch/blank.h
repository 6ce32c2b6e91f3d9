/* SPDX-License-Identifier: MIT */
/* Is a medium blank (never formatted), so that a first boot may give it a
 * file system? Pure: judged from its first bytes. */
#ifndef UNIONROOT_BLANK_H
#define UNIONROOT_BLANK_H

#include <stddef.h>
#include <stdint.h>

#define BLANK_CHECK_BYTES (1024u * 1024u) /* the first MiB */

/* 1 when every byte is 0x00, or every byte is 0xFF (erased flash, a fresh
 * eMMC); 0 otherwise, and for an empty buffer. */
int blank_bytes(const uint8_t *buf, size_t len);

/* A first-boot format in progress. mkfs writes its superblock last, so a
 * cut inside it leaves a medium that is neither blank nor formatted. The
 * boot writes this mark into the medium's last MiB, which the new file
 * system leaves out, and clears it once mkfs is done: a medium that bears
 * it was being formatted by us, and is formatted again. */
#define FORMAT_MARK_SPAN (1024u * 1024u)
#define FORMAT_MARK "unionroot: union.format in progress\n"
#define FORMAT_MARK_BLOCK 4096u

/* 1 when buf (the first bytes of the last MiB) starts with the mark. */
int format_mark_is(const uint8_t *buf, size_t len);

#endif
