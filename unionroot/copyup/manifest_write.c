// SPDX-License-Identifier: MIT
/* Writes a manifest: records in tree order into .manifest.new, the trailer
 * with their count and hash, fsync, then a rename over the old one, so a
 * cut leaves the old manifest or the new one (format: manifest.c). */
#include "copyup/manifest.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "lib/filesave.h"
#include "lib/sbuf.h"
#include "lib/sys.h"

#define NEWNAME ".manifest.new"

static int flush(struct mwriter *w)
{
	size_t off = 0;

	while (!w->err && off < w->len) {
		ssize_t n = write(w->fd, w->buf + off, w->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			w->err = -errno;
		else
			off += (size_t)n;
	}
	w->len = 0;
	return w->err;
}

static int put(struct mwriter *w, const char *s, size_t n)
{
	if (w->len + n > sizeof(w->buf) && flush(w) < 0)
		return w->err;
	chash_add(&w->h, s, n);
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	return 0;
}

int mwriter_open(struct mwriter *w, int dir, const char *image_id)
{
	char line[MF_ID_MAX + 16];
	int rc;

	w->dir = dir;
	w->len = 0;
	w->count = 0;
	w->err = 0;
	w->last[0] = '\0';
	chash_init(&w->h);
	rc = strfmt(line, sizeof(line), "image %s\n", image_id);
	if (rc < 0)
		return rc;
	w->fd = sys_file_create(dir, NEWNAME, 0600);
	if (w->fd < 0)
		return w->fd;
	IGNORE(put(w, MF_MAGIC, sizeof(MF_MAGIC) - 1)); /* errors stick in w->err */
	return put(w, line, strlen(line));
}

int mwriter_add(struct mwriter *w, const struct mrec *r)
{
	char line[MF_LINE_MAX + 2];
	int n;

	if (w->err)
		return w->err;
	if (w->count && mf_path_cmp(w->last, r->path) >= 0)
		return w->err = -EINVAL;
	n = mf_format(r, line, sizeof(line));
	if (n < 0)
		return w->err = n;
	memcpy(w->last, r->path, strlen(r->path) + 1);
	w->count++;
	return put(w, line, (size_t)n);
}

int mwriter_commit(struct mwriter *w)
{
	char line[64];
	int rc = strfmt(line, sizeof(line), "end %" PRIu64 " %016" PRIx64 "\n", w->count,
			chash_final(&w->h));

	if (rc == 0 && !w->err) {
		if (w->len + strlen(line) > sizeof(w->buf))
			IGNORE(flush(w)); /* sticks in w->err */
		memcpy(w->buf + w->len, line, strlen(line));
		w->len += strlen(line);
		rc = flush(w);
	}
	if (rc == 0 && fsync(w->fd) < 0)
		rc = -errno;
	if (close(w->fd) < 0 && rc == 0)
		rc = -errno;
	w->fd = -1;
	if (rc == 0)
		rc = sys_file_commit(w->dir, NEWNAME, MF_NAME);
	if (rc < 0)
		unlinkat(w->dir, NEWNAME, 0);
	return rc ? rc : w->err;
}

void mwriter_abort(struct mwriter *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	unlinkat(w->dir, NEWNAME, 0);
}
