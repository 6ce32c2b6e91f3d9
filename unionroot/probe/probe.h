/* SPDX-License-Identifier: MIT */
/* Filesystem identification from superblocks, blkid-compatible TYPE, UUID
 * and LABEL, without allocation: PID 1 calls it on every candidate device. */
#ifndef UNIONROOT_PROBE_H
#define UNIONROOT_PROBE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/defs.h"

#define PROBE_WUR __attribute__((warn_unused_result))

/* Where the bytes come from: a device fd, or a buffer in tests and fuzzing. */
struct probe_src {
	/* 0, or -errno: -ERANGE when [off, off + len) passes the end. */
	int (*read)(const struct probe_src *src, uint64_t off, void *dst, size_t len);
	uint64_t size; /* bytes, 0 when unknown */
	const void *ctx;
};

struct probe_info {
	char type[FSTYPE_MAX];   /* blkid TYPE: "squashfs", "ext4", ...; "" unknown */
	char uuid[64];   /* as blkid prints UUID, "" when none */
	char label[256]; /* as blkid prints LABEL (UTF-8), "" when none */
	int encrypted;   /* 1 for LUKS */
	uint64_t bytes;  /* the file system's own size where its probe reads it
			  * (iso9660), 0 unknown */
};

/* 1 match (out filled), 0 unknown (out cleared), -errno I/O error. */
int probe_fs(const struct probe_src *src, struct probe_info *out) PROBE_WUR;
void probe_src_buffer(struct probe_src *src, const void *buf, size_t len);
/* fd-backed (pread); size from BLKGETSIZE64 or fstat. 0 or -errno. */
int probe_src_fd(struct probe_src *src, int fd) PROBE_WUR;

/* The probe table, in the order probe_fs tries it (tests walk it). */
struct probe_fs_row {
	char name[12]; /* an array: static-pie relocates each pointer */
	int (*fn)(const struct probe_src *src, struct probe_info *out);
};
extern const struct probe_fs_row probe_table[];
extern const size_t probe_table_len;

/* ---- for probe_<fs>.c and parttab.c ---- */

/* Bounded read: -ERANGE past the known size or on offset overflow. */
int probe_read(const struct probe_src *src, uint64_t off, void *dst, size_t len) PROBE_WUR;
/* A read past the end means "not this filesystem", not an error. */
static inline int probe_miss(int rc)
{
	return rc == -ERANGE ? 0 : rc;
}

/* Raw CRC updates: no inversion in or out; callers apply the convention of
 * their format (GPT and btrfs invert both ends, ext4 and erofs do not). */
uint32_t crc32_update(uint32_t crc, const void *buf, size_t len);
uint32_t crc32c_update(uint32_t crc, const void *buf, size_t len);
/* Raw CRC32C of [off, off + len) on src, with the 4 bytes at hole (relative
 * to off) read as zero; reads in small chunks. 0 or -errno. */
int probe_crc32c_range(const struct probe_src *src, uint64_t off, uint64_t len,
		       uint64_t hole, uint32_t *crc) PROBE_WUR;
#define PROBE_NO_HOLE UINT64_MAX

/* Label from on-disk bytes: up to the first NUL or len, trailing whitespace
 * trimmed, other bytes kept as they are (blkid does the same, so LABEL=
 * matches what udev and blkid show). Always NUL-terminated; truncation never
 * splits a UTF-8 sequence that was valid. */
void probe_label_bytes(char *dst, size_t dstsz, const uint8_t *src, size_t len);
/* UTF-16 (big_endian 0/1) to UTF-8, stopping at a NUL code unit; unpaired
 * surrogates become U+FFFD; never splits a character; whitespace trimmed. */
void probe_label_utf16(char *dst, size_t dstsz, const uint8_t *src, size_t len,
		       int big_endian);
/* 16 bytes as 8-4-4-4-12 lower-case hex; "" when all zero (blkid skips). */
void probe_uuid(char *dst, size_t dstsz, const uint8_t *u);
/* GUID layout: the first three groups are little-endian on disk. */
void probe_guid(char *dst, size_t dstsz, const uint8_t *g);
void probe_set_type(struct probe_info *out, const char *type);

int probe_luks(const struct probe_src *src, struct probe_info *out) PROBE_WUR;
int probe_squashfs(const struct probe_src *src, struct probe_info *out) PROBE_WUR;
int probe_xfs(const struct probe_src *src, struct probe_info *out) PROBE_WUR;
int probe_ext(const struct probe_src *src, struct probe_info *out) PROBE_WUR;
int probe_f2fs(const struct probe_src *src, struct probe_info *out) PROBE_WUR;
int probe_erofs(const struct probe_src *src, struct probe_info *out) PROBE_WUR;
int probe_btrfs(const struct probe_src *src, struct probe_info *out) PROBE_WUR;
int probe_iso9660(const struct probe_src *src, struct probe_info *out) PROBE_WUR;
int probe_exfat(const struct probe_src *src, struct probe_info *out) PROBE_WUR;
int probe_vfat(const struct probe_src *src, struct probe_info *out) PROBE_WUR;

#endif
