// SPDX-License-Identifier: MIT
/* The probe dispatcher (a static table tried in order), the byte sources it
 * reads through, and the helpers every probe_<fs>.c shares. */
#include "probe/probe.h"

#include "lib/bytes.h"

#include <errno.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Order: the LUKS header first, because what follows it is ciphertext that
 * may look like anything. Then signatures at offset 0 (squashfs, xfs), at
 * 1 KiB (ext, f2fs, erofs), at 64 KiB (btrfs) and 32 KiB (iso9660), exFAT's
 * name at 3 (with a checksum, before FAT, whose BPB it zeroes). vfat
 * is last: its "magic" is an x86 boot sector, the weakest signature, and a
 * hybrid ISO or a partitioned disk carries one too. The first match wins;
 * unlike "blkid -p" we do not refuse devices with two signatures.
 */
const struct probe_fs_row probe_table[] = {
	{ "crypto_LUKS", probe_luks },
	{ "squashfs", probe_squashfs },
	{ "xfs", probe_xfs },
	{ "ext", probe_ext },
	{ "f2fs", probe_f2fs },
	{ "erofs", probe_erofs },
	{ "btrfs", probe_btrfs },
	{ "iso9660", probe_iso9660 },
	{ "exfat", probe_exfat },
	{ "vfat", probe_vfat },
};
const size_t probe_table_len = sizeof(probe_table) / sizeof(probe_table[0]);

int probe_fs(const struct probe_src *src, struct probe_info *out)
{
	int err = 0;

	for (size_t i = 0; i < probe_table_len; i++) {
		int rc;

		memset(out, 0, sizeof(*out));
		rc = probe_table[i].fn(src, out);
		if (rc > 0 && out->type[0])
			return 1;
		/* A bad sector under one signature must not hide another:
		 * remember the first error, report it only if nothing matched. */
		if (rc < 0 && rc != -ERANGE && !err)
			err = rc;
	}
	memset(out, 0, sizeof(*out));
	return err;
}

int probe_read(const struct probe_src *src, uint64_t off, void *dst, size_t len)
{
	if (!len)
		return 0;
	if (off > UINT64_MAX - len)
		return -ERANGE;
	if (src->size && (off >= src->size || len > src->size - off))
		return -ERANGE;
	return src->read(src, off, dst, len);
}

static int buffer_read(const struct probe_src *src, uint64_t off, void *dst, size_t len)
{
	if (off > src->size || len > src->size - off)
		return -ERANGE;
	memcpy(dst, (const uint8_t *)src->ctx + off, len);
	return 0;
}

void probe_src_buffer(struct probe_src *src, const void *buf, size_t len)
{
	src->read = buffer_read;
	src->size = len;
	/* An empty buffer has no bytes: point at a static one so that the
	 * size check, not a NULL, is what stops every read. */
	src->ctx = buf ? buf : (const void *)"";
}

/* The fd rides in ctx as an integer: no allocation for a source. */
static int fd_read(const struct probe_src *src, uint64_t off, void *dst, size_t len)
{
	int fd = (int)(intptr_t)src->ctx;
	uint8_t *p = dst;

	if (off > (uint64_t)INT64_MAX - len)
		return -ERANGE;
	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ERANGE;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int probe_src_fd(struct probe_src *src, int fd)
{
	struct stat st;

	if (fd < 0)
		return -EBADF;
	if (fstat(fd, &st) < 0)
		return -errno;
	src->read = fd_read;
	src->ctx = (const void *)(intptr_t)fd;
	src->size = 0;
	if (S_ISBLK(st.st_mode)) {
		uint64_t sz = 0;

		if (ioctl(fd, BLKGETSIZE64, &sz) < 0)
			return -errno;
		src->size = sz;
	} else if (S_ISREG(st.st_mode)) {
		src->size = (uint64_t)st.st_size;
	}
	return 0;
}

/* Half-byte tables: 128 bytes of constants instead of 2 KiB, fast enough
 * for the few KiB a probe checksums. Reflected polynomials. */
static const uint32_t crc32_nib[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4,
	0x4db26158, 0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
	0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};
static const uint32_t crc32c_nib[16] = {
	0x00000000, 0x105ec76f, 0x20bd8ede, 0x30e349b1, 0x417b1dbc, 0x5125dad3,
	0x61c69362, 0x7198540d, 0x82f63b78, 0x92a8fc17, 0xa24bb5a6, 0xb21572c9,
	0xc38d26c4, 0xd3d3e1ab, 0xe330a81a, 0xf36e6f75,
};

static uint32_t crc_nib(const uint32_t *tab, uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len--) {
		crc ^= *p++;
		crc = (crc >> 4) ^ tab[crc & 15];
		crc = (crc >> 4) ^ tab[crc & 15];
	}
	return crc;
}

uint32_t crc32_update(uint32_t crc, const void *buf, size_t len)
{
	return crc_nib(crc32_nib, crc, buf, len);
}

uint32_t crc32c_update(uint32_t crc, const void *buf, size_t len)
{
	return crc_nib(crc32c_nib, crc, buf, len);
}

int probe_crc32c_range(const struct probe_src *src, uint64_t off, uint64_t len,
		       uint64_t hole, uint32_t *crc)
{
	uint8_t buf[512];
	uint64_t done = 0;

	while (done < len) {
		size_t n = len - done < sizeof(buf) ? (size_t)(len - done) : sizeof(buf);
		int rc = probe_read(src, off + done, buf, n);

		if (rc)
			return rc;
		for (size_t i = 0; i < n; i++)
			if (hole != PROBE_NO_HOLE && done + i >= hole && done + i < hole + 4)
				buf[i] = 0;
		*crc = crc32c_update(*crc, buf, n);
		done += n;
	}
	return 0;
}

static int is_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static void rtrim(char *s)
{
	size_t n = strlen(s);

	while (n && is_space((unsigned char)s[n - 1]))
		s[--n] = 0;
}

/* Drops a multi-byte sequence cut short at the end of s[0..n). */
static size_t utf8_drop_partial(const char *s, size_t n)
{
	size_t i = n, back = 0;

	while (i && back < 3 && ((unsigned char)s[i - 1] & 0xc0) == 0x80) {
		i--;
		back++;
	}
	if (i && (unsigned char)s[i - 1] >= 0xc0) {
		unsigned char lead = (unsigned char)s[i - 1];
		size_t want = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;

		if (n - (i - 1) < want)
			return i - 1;
	}
	return n;
}

void probe_label_bytes(char *dst, size_t dstsz, const uint8_t *src, size_t len)
{
	size_t n = 0;

	if (!dstsz)
		return;
	while (n < len && src[n] && n + 1 < dstsz) {
		dst[n] = (char)src[n];
		n++;
	}
	if (n < len && src[n] && n + 1 >= dstsz)
		n = utf8_drop_partial(dst, n);
	dst[n] = 0;
	rtrim(dst);
}

static size_t utf8_put(char *dst, size_t room, uint32_t c)
{
	uint8_t b[4];
	size_t n;

	if (c < 0x80) {
		b[0] = (uint8_t)c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = (uint8_t)(0xc0 | c >> 6);
		b[1] = (uint8_t)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		b[0] = (uint8_t)(0xe0 | c >> 12);
		b[1] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
		b[2] = (uint8_t)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		b[0] = (uint8_t)(0xf0 | c >> 18);
		b[1] = (uint8_t)(0x80 | (c >> 12 & 0x3f));
		b[2] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
		b[3] = (uint8_t)(0x80 | (c & 0x3f));
		n = 4;
	}
	if (n > room)
		return 0;
	memcpy(dst, b, n);
	return n;
}

void probe_label_utf16(char *dst, size_t dstsz, const uint8_t *src, size_t len,
		       int big_endian)
{
	size_t o = 0;

	if (!dstsz)
		return;
	for (size_t i = 0; i + 1 < len;) {
		uint32_t c = big_endian ? get_be16(src + i) : get_le16(src + i);
		size_t put;

		i += 2;
		if (c == 0)
			break;
		if (c >= 0xd800 && c <= 0xdbff && i + 1 < len) {
			uint32_t lo = big_endian ? get_be16(src + i) : get_le16(src + i);

			if (lo >= 0xdc00 && lo <= 0xdfff) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				i += 2;
			}
		}
		if (c >= 0xd800 && c <= 0xdfff)
			c = 0xfffd;
		put = utf8_put(dst + o, dstsz - 1 - o, c);
		if (!put)
			break;
		o += put;
	}
	dst[o] = 0;
	rtrim(dst);
}

static const char hexdig[] = "0123456789abcdef";

static void hex_groups(char *dst, size_t dstsz, const uint8_t b[16])
{
	size_t o = 0;

	if (dstsz < 37) {
		if (dstsz)
			dst[0] = 0;
		return;
	}
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			dst[o++] = '-';
		dst[o++] = hexdig[b[i] >> 4];
		dst[o++] = hexdig[b[i] & 15];
	}
	dst[o] = 0;
}

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

void probe_uuid(char *dst, size_t dstsz, const uint8_t *u)
{
	if (all_zero(u, 16)) {
		if (dstsz)
			dst[0] = 0;
		return;
	}
	hex_groups(dst, dstsz, u);
}

void probe_guid(char *dst, size_t dstsz, const uint8_t *g)
{
	const uint8_t b[16] = { g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6],
				g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15] };

	hex_groups(dst, dstsz, b);
}

void probe_set_type(struct probe_info *out, const char *type)
{
	size_t n = strlen(type);

	if (n >= sizeof(out->type))
		n = sizeof(out->type) - 1;
	memcpy(out->type, type, n);
	out->type[n] = 0;
}
