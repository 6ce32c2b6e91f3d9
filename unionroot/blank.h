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

#endif
