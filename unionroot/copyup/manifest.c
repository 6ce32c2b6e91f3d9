// SPDX-License-Identifier: MIT
/* Manifest text format and reader (manifest_write.c writes it).
 *
 *   unionroot-manifest 1
 *   image <identity>
 *   <type> <mode> <uid> <gid> <size> <mtime> <hash> <ino> <ctime> <path>
 *   ...
 *   end <count> <hash of every byte before this line>
 *
 * Paths escape bytes <= ' ', DEL and '\' as \xHH. The trailer catches a cut
 * or edited file; the reader also insists on tree order, so a merge can walk
 * the manifest and the image side by side without an index. */
#include "copyup/manifest.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fmt.h"
#include "lib/sbuf.h"
#include "lib/sys.h"

#define MAGIC MF_MAGIC

static int key(const char *s, size_t i)
{
	unsigned char c = (unsigned char)s[i];

	if (!c)
		return -1;
	return c == '/' ? 0 : c + 1;
}

int mf_path_cmp(const char *a, const char *b)
{
	for (size_t i = 0;; i++) {
		int x = key(a, i), y = key(b, i);

		if (x != y)
			return x < y ? -1 : 1;
		if (x < 0)
			return 0;
	}
}

int mf_path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!n)
		return 1;
	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* ---- one line ------------------------------------------------------------ */

static int must_escape(unsigned char c)
{
	return c <= ' ' || c == 0x7f || c == '\\';
}

int mf_format(const struct mrec *r, char *buf, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = fmt_sn(buf, cap, "%c %o %u %u %" PRIu64 " %" PRId64 ".%09" PRIu32 " %016" PRIx64
			 " %" PRIu64 " %" PRId64 ".%09" PRIu32 " ",
			 r->type, r->mode, r->uid, r->gid, r->size, r->mtime, r->mtime_ns, r->hash,
			 r->ino, r->ctime, r->ctime_ns);

	if (len >= cap)
		return -ENAMETOOLONG;
	for (const unsigned char *p = (const unsigned char *)r->path; *p; p++) {
		if (len + 5 >= cap)
			return -ENAMETOOLONG;
		if (must_escape(*p)) {
			buf[len++] = '\\';
			buf[len++] = 'x';
			buf[len++] = hex[*p >> 4];
			buf[len++] = hex[*p & 15];
		} else {
			buf[len++] = (char)*p;
		}
	}
	buf[len++] = '\n';
	buf[len] = '\0';
	return (int)len;
}

struct cursor {
	const char *p, *end;
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int get_u64(struct cursor *c, unsigned base, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	const char *start = c->p;

	while (c->p < c->end && *c->p != ' ' && *c->p != '.') {
		int d = hexval(*c->p);

		if (d < 0 || (unsigned)d >= base || v > (max - (unsigned)d) / base)
			return -1;
		v = v * base + (unsigned)d;
		c->p++;
	}
	if (c->p == start || c->p - start > 22)
		return -1;
	*out = v;
	return 0;
}

static int sep(struct cursor *c, char ch)
{
	if (c->p >= c->end || *c->p != ch)
		return -1;
	c->p++;
	return 0;
}

static int get_time(struct cursor *c, int64_t *sec, uint32_t *nsec)
{
	uint64_t s, ns;
	int neg = 0;

	if (c->p < c->end && *c->p == '-') {
		neg = 1;
		c->p++;
	}
	if (get_u64(c, 10, INT64_MAX, &s) < 0 || sep(c, '.') < 0 ||
	    get_u64(c, 10, 999999999, &ns) < 0)
		return -1;
	*sec = neg ? -(int64_t)s : (int64_t)s;
	*nsec = (uint32_t)ns;
	return 0;
}

static int get_path(struct cursor *c, char *out, size_t cap, const char **why)
{
	size_t n = 0, comp = 0;

	*why = "a bad path";
	while (c->p < c->end) {
		unsigned char ch = (unsigned char)*c->p++;

		if (ch == '\\') {
			int hi, lo;

			if (c->end - c->p < 3 || c->p[0] != 'x')
				return -1;
			hi = hexval(c->p[1]);
			lo = hexval(c->p[2]);
			if (hi < 0 || lo < 0)
				return -1;
			ch = (unsigned char)(hi << 4 | lo);
			c->p += 3;
			if (ch == 0 || ch == '/')
				return -1;
		} else if (must_escape(ch)) {
			return -1;
		}
		if (n + 1 >= cap) {
			*why = "a path too long";
			return -1;
		}
		if (ch == '/') {
			/* empty, "." and ".." components would climb or alias */
			if (comp == 0 || (comp == 1 && out[n - 1] == '.') ||
			    (comp == 2 && out[n - 1] == '.' && out[n - 2] == '.'))
				return -1;
			comp = 0;
		} else {
			comp++;
		}
		out[n++] = (char)ch;
	}
	if (comp == 0 || (comp == 1 && out[n - 1] == '.') ||
	    (comp == 2 && out[n - 1] == '.' && out[n - 2] == '.'))
		return -1;
	out[n] = '\0';
	return 0;
}

int mf_parse(const char *line, size_t len, struct mrec *r, const char **why)
{
	struct cursor c = { line, line + len };
	uint64_t v;

	*why = "a malformed record";
	if (len < 2 || !strchr("fdlcbps", line[0]) || line[1] != ' ')
		return -EBADMSG;
	r->type = line[0];
	c.p += 2;
	if (get_u64(&c, 8, 07777, &v) < 0 || sep(&c, ' ') < 0)
		return -EBADMSG;
	r->mode = (unsigned)v;
	if (get_u64(&c, 10, UINT32_MAX, &v) < 0 || sep(&c, ' ') < 0)
		return -EBADMSG;
	r->uid = (unsigned)v;
	if (get_u64(&c, 10, UINT32_MAX, &v) < 0 || sep(&c, ' ') < 0)
		return -EBADMSG;
	r->gid = (unsigned)v;
	if (get_u64(&c, 10, UINT64_MAX, &r->size) < 0 || sep(&c, ' ') < 0 ||
	    get_time(&c, &r->mtime, &r->mtime_ns) < 0 || sep(&c, ' ') < 0 ||
	    get_u64(&c, 16, UINT64_MAX, &r->hash) < 0 || sep(&c, ' ') < 0 ||
	    get_u64(&c, 10, UINT64_MAX, &r->ino) < 0 || sep(&c, ' ') < 0 ||
	    get_time(&c, &r->ctime, &r->ctime_ns) < 0 || sep(&c, ' ') < 0)
		return -EBADMSG;
	if (get_path(&c, r->path, sizeof(r->path), why) < 0)
		return -EBADMSG;
	return 0;
}

/* ---- reader ---------------------------------------------------------------- */

void mreader_empty(struct mreader *r)
{
	memset(r, 0, sizeof(*r));
	r->map = NULL;
}

static int bad(struct mreader *r, const char *why)
{
	IGNORE(strfmt(r->err, sizeof(r->err), "%s", why)); /* a cut reason is still a reason */
	return -EBADMSG;
}

static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl;
}

/* Header, trailer and checksum of the mapped file, then the first record. */
static int check_mapped(struct mreader *r)
{
	const char *p = r->map, *end = r->map + r->size, *nl, *last;
	uint64_t want, count;
	struct cursor c;
	int rc;


	if (memcmp(p, MAGIC, sizeof(MAGIC) - 1) != 0)
		return bad(r, "no manifest header");
	p += sizeof(MAGIC) - 1;
	nl = line_end(p, end);
	if (!nl || nl - p < 7 || memcmp(p, "image ", 6) != 0 || (size_t)(nl - p - 6) >= MF_ID_MAX)
		return bad(r, "no image identity");
	memcpy(r->image, p + 6, (size_t)(nl - p - 6));
	r->image[nl - p - 6] = '\0';
	for (const char *q = r->image; *q; q++)
		if (*q <= ' ' || *q == 0x7f)
			return bad(r, "a bad image identity");
	r->pos = (size_t)(nl + 1 - r->map);

	/* the trailer: the last line, over every byte before it */
	if (end[-1] != '\n')
		return bad(r, "cut short (no end line)");
	last = end - 1;
	while (last > r->map + r->pos && last[-1] != '\n')
		last--;
	if (end - 1 - last > 64 || memcmp(last, "end ", 4) != 0)
		return bad(r, "cut short (no end line)");
	c.p = last + 4;
	c.end = end - 1;
	if (get_u64(&c, 10, UINT64_MAX, &count) < 0 || sep(&c, ' ') < 0 ||
	    get_u64(&c, 16, UINT64_MAX, &want) < 0 || c.p != c.end)
		return bad(r, "a malformed end line");
	if (chash_buf(r->map, (size_t)(last - r->map)) != want)
		return bad(r, "a checksum mismatch (edited or damaged)");
	r->end = (size_t)(last - r->map);
	r->count = count;
	rc = mreader_next(r);
	return rc < 0 ? rc : 0;
}

int mreader_open(struct mreader *r, int dir, const char *name)
{
	struct stat st;
	void *map;
	int fd, rc;

	mreader_empty(r);
	fd = sys_file_open(dir, name, O_RDONLY, &st);
	if (fd == -EINVAL || fd == -ELOOP) /* a FIFO, device, directory, symlink */
		return bad(r, "not a regular file");
	if (fd < 0)
		return fd;
	if (st.st_size < (off_t)sizeof(MAGIC) || (uint64_t)st.st_size > MF_FILE_MAX) {
		close(fd);
		return bad(r, "a size out of bounds");
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	rc = map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (rc < 0)
		return rc;
	r->map = map;
	r->size = (size_t)st.st_size;
	rc = check_mapped(r);
	if (rc < 0) { /* nothing stays mapped: the reason does */
		char err[MF_ERR_MAX];

		memcpy(err, r->err, sizeof(err));
		mreader_close(r);
		memcpy(r->err, err, sizeof(err));
	}
	return rc;
}

int mreader_next(struct mreader *r)
{
	static char prev[MF_PATH_MAX];
	const char *p, *nl, *why;
	int rc;

	if (!r->map || r->pos >= r->end) {
		r->have = 0;
		if (r->map && r->seen != r->count)
			return bad(r, "a record count that does not match");
		return 0;
	}
	if (r->have)
		memcpy(prev, r->cur.path, strlen(r->cur.path) + 1);
	p = r->map + r->pos;
	nl = line_end(p, r->map + r->end);
	if (!nl || nl - p > MF_LINE_MAX)
		return bad(r, "an over-long line");
	rc = mf_parse(p, (size_t)(nl - p), &r->cur, &why);
	if (rc < 0) {
		char msg[MF_ERR_MAX];

		r->have = 0;
		IGNORE(strfmt(msg, sizeof(msg), "%s at byte %zu", why, r->pos)); /* cut is fine */
		return bad(r, msg);
	}
	if (r->have && mf_path_cmp(prev, r->cur.path) >= 0) {
		r->have = 0;
		return bad(r, "records out of tree order");
	}
	r->pos = (size_t)(nl + 1 - r->map);
	r->seen++;
	r->have = 1;
	return 1;
}

void mreader_close(struct mreader *r)
{
	if (r->map)
		munmap((void *)r->map, r->size);
	mreader_empty(r);
}

static ssize_t read_head(int dir, const char *name, char *buf, size_t cap)
{
	int fd = sys_file_open(dir, name, O_RDONLY, NULL);
	ssize_t n;

	if (fd < 0)
		return fd;
	do
		n = pread(fd, buf, cap, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

int manifest_read_id(int dir, const char *name, char *id, size_t cap)
{
	char head[sizeof(MAGIC) + 8 + MF_ID_MAX];
	ssize_t n = read_head(dir, name, head, sizeof(head));
	const char *p, *nl;

	if (n < 0)
		return (int)n;
	if ((size_t)n < sizeof(MAGIC) || memcmp(head, MAGIC, sizeof(MAGIC) - 1) != 0)
		return -EBADMSG;
	p = head + sizeof(MAGIC) - 1;
	nl = memchr(p, '\n', (size_t)(head + n - p));
	if (!nl || nl - p < 7 || memcmp(p, "image ", 6) != 0)
		return -EBADMSG;
	if ((size_t)(nl - p - 6) >= cap)
		return -ENAMETOOLONG;
	memcpy(id, p + 6, (size_t)(nl - p - 6));
	id[nl - p - 6] = '\0';
	return 0;
}
