// SPDX-License-Identifier: MIT
/* A read-only layer's http:// image fetched to RAM, as union.toram copies
 * one: a GET over one TCP connection (HTTP/1.1, Connection: close; the head
 * parsed by net/http.c), status 200 and a Content-Length only, the body
 * into a tmpfs of its own under /run/unionroot/http sized to it and bounded
 * by the RAM available, with progress on the console; then a read-only loop
 * device over the file, which stands in the layer's SPEC (verity, when
 * union.verity names the layer, then checks it as any device). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>

#include "boot.h"
#include "lib/fdcopy.h"
#include "lib/lines.h"
#include "lib/log.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"
#include "media/media.h"
#include "net/http.h"
#include "steps.h"

#define HTTP_DIR RUNDIR "/http"
#define HTTP_STALL_S 30 /* a body that stops flowing this long fails */

struct fetch {
	const char *url;       /* the SPEC's value, for every line */
	unsigned layer;
	uint64_t total;
	char dir[48];
};

static void tick(uint64_t done, void *ctx)
{
	const struct fetch *f = ctx;

	log_note("read-only layer %u: fetching http://%s: %llu of %llu MiB", f->layer, f->url,
		 (unsigned long long)(done >> 20), (unsigned long long)(f->total >> 20));
}

/* The request sent and the head read: the bytes of the body already read
 * are at buf + *at, up to *have. 0, or -errno with why. */
static int head(int fd, const char *path, uint32_t addr, unsigned port, char *buf, size_t *have,
		size_t *at, struct http_head *h)
{
	int rc = http_request(buf, HTTP_HEAD_MAX, addr, port, path);

	if (rc < 0 || fd_write_all(fd, buf, (size_t)rc) < 0) {
		IGNORE(strcopy(h->why, sizeof(h->why), rc < 0 ? "its path is too long" :
			       "the server did not take the request")); /* fits */
		return -EPIPE;
	}
	*have = 0;
	while ((rc = http_head_parse(buf, *have, h)) == 0) {
		ssize_t n = sys_read(fd, buf + *have, HTTP_HEAD_MAX - *have);

		if (n <= 0) {
			IGNORE(strfmt(h->why, sizeof(h->why), "%s before a whole response head",
				      n == 0 ? "the connection closed" : n == -EAGAIN ? "no answer by the deadline" :
				      strerror((int)-n))); /* fits */
			return n == 0 ? -ECONNRESET : (int)n;
		}
		*have += (size_t)n;
	}
	if (rc < 0)
		return rc;
	*at = (size_t)rc;
	return 0;
}

/* A tmpfs of the body's size at f->dir, when the RAM is there: 0 or -errno
 * with why. */
static int room(struct fetch *f, char *why, size_t cap)
{
	static char meminfo[4096];
	char opts[48];
	uint64_t avail, need;
	int rc;

	if (sys_read_file("/proc/meminfo", meminfo, sizeof(meminfo)) < 0 ||
	    proc_kb(meminfo, "MemAvailable", &avail) < 0) {
		IGNORE(strcopy(why, cap, "cannot read MemAvailable")); /* fits */
		return -ENOENT;
	}
	if (toram_fits(f->total, avail, &need) < 0) {
		IGNORE(strfmt(why, cap, "the image needs %llu MiB of RAM, %llu MiB are available",
			      (unsigned long long)(need >> 20), (unsigned long long)(avail >> 20))); /* fits */
		return -ENOMEM;
	}
	IGNORE(strfmt(f->dir, sizeof(f->dir), HTTP_DIR "/%u", f->layer)); /* fits */
	IGNORE(strfmt(opts, sizeof(opts), "mode=0700,size=%llu",
		      (unsigned long long)((f->total + (1u << 20)) & ~((1ull << 20) - 1)))); /* fits */
	rc = sys_mkdir_p(f->dir, 0700);
	if (rc == 0)
		rc = sys_mount("http", f->dir, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts);
	if (rc < 0)
		IGNORE(strfmt(why, cap, "cannot make a tmpfs at %s: %s", f->dir, strerror(-rc))); /* fits */
	return rc;
}

/* The body into f->dir/image: the bytes read with the head, then the
 * rest from fd. The file, read-only: an fd, or -errno with why. */
static int body(int fd, struct fetch *f, const char *got, size_t n, char *why, size_t cap)
{
	static char buf[128 * 1024];
	struct timeval tv = { .tv_sec = HTTP_STALL_S };
	int dfd, out, rc;

	if (n > f->total)
		n = (size_t)f->total; /* what follows the body is not the image's */
	dfd = sys_open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	out = dfd < 0 ? dfd : sys_openat(dfd, "image", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400);
	rc = out < 0 ? out : fd_write_all(out, got, n);
	IGNORE(sys_setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	if (rc == 0) {
		watchdog_step(0, "fetching http://%s to RAM", f->url); /* it says its progress itself */
		rc = fd_copy(fd, out, f->total - n, buf, sizeof(buf), tick, f);
		watchdog_step_end();
	}
	if (out >= 0)
		sys_close(out);
	if (rc == 0)
		rc = sys_openat(dfd, "image", O_RDONLY | O_CLOEXEC, 0);
	else
		IGNORE(strfmt(why, cap, "%s", rc == -EIO ? "the body ended short of its Content-Length" :
			      rc == -EAGAIN ? "the body stopped flowing" : strerror(-rc))); /* fits */
	if (dfd >= 0)
		sys_close(dfd);
	return rc;
}

/* The image as the layer's device; a body no probe knows (a server's page
 * of text) is refused here, in one line, not at the mount. */
static int attach(struct boot *b, struct fetch *f, int img, char *why, size_t cap)
{
	char what[96];
	int rc = net_image_layer(b, f->layer, img, what, sizeof(what));

	if (rc < 0)
		IGNORE(strfmt(why, cap, "the body %s", what)); /* fits */
	return rc;
}

/* The fetch over fd: 0, or -errno with why. */
static int fetch(struct boot *b, int fd, struct fetch *f, const char *path, uint32_t addr, unsigned port,
		 struct step_out *o)
{
	static char buf[HTTP_HEAD_MAX];
	static struct http_head h;
	size_t have = 0, at = 0;
	int rc = head(fd, path, addr, port, buf, &have, &at, &h), img;

	if (rc == 0 && (h.status != 200 || !h.has_length || !h.length)) {
		IGNORE(strfmt(o->why, sizeof(o->why), "read-only layer %u: http://%s: status %u %s%s", f->layer,
			      f->url, h.status, h.reason, h.status != 200 ? " (only 200 is taken)" :
			      h.has_length ? " with an empty body" : " without a Content-Length")); /* a cut line still names the URL */
		return h.status == 404 ? -ENOENT : -EPROTO;
	}
	if (rc < 0) {
		IGNORE(strfmt(o->why, sizeof(o->why), "read-only layer %u: http://%s: %s", f->layer, f->url,
			      h.why)); /* a cut line still names the URL */
		return rc;
	}
	f->total = h.length;
	log_info("read-only layer %u: fetching http://%s to RAM (%llu MiB)", f->layer, f->url,
		 (unsigned long long)(f->total >> 20));
	rc = room(f, h.why, sizeof(h.why));
	img = rc < 0 ? rc : body(fd, f, buf + at, have - at, h.why, sizeof(h.why));
	rc = img < 0 ? img : attach(b, f, img, h.why, sizeof(h.why));
	if (img >= 0)
		sys_close(img);
	if (rc < 0 && f->dir[0]) /* the part fetched goes; a loop keeps a whole one */
		IGNORE(sys_umount2(f->dir, MNT_DETACH));
	if (rc < 0)
		IGNORE(strfmt(o->why, sizeof(o->why), "read-only layer %u: http://%s: %s", f->layer, f->url,
			      h.why)); /* a cut line still names the URL */
	return rc;
}

int step_http(struct boot *b, unsigned layer, struct step_out *o)
{
	const struct spec *s = &b->lower[layer - 1];
	struct fetch f = { .url = s->value, .layer = layer };
	static char url[SPEC_VALUE_MAX];
	uint64_t end = net_deadline(b);
	const char *path;
	uint32_t addr;
	unsigned port;
	int fd, rc;

	IGNORE(strcopy(url, sizeof(url), s->value)); /* same size; s->value becomes the loop */
	f.url = url;
	if (spec_http_split(url, &addr, &port, &path) < 0) {
		IGNORE(strfmt(o->why, sizeof(o->why), "read-only layer %u: %s", layer, SPEC_HTTP_WHY)); /* fits */
		return -EINVAL;
	}
	if (!plan_verity(&b->plan, layer))
		log_warn("read-only layer %u: http://%s is taken unauthenticated (union.insecure=1)", layer, url);
	watchdog_phase(end == UINT64_MAX ? 0 : (unsigned)((end - sys_now_ms()) / 1000) + WD_MARGIN_S,
		       "fetching http://%s", url);
	fd = net_dial(addr, port, end);
	if (fd < 0) {
		IGNORE(strfmt(o->why, sizeof(o->why), "read-only layer %u: http server of http://%s unreachable: %s",
			      layer, url, fd == -EAGAIN || fd == -EINPROGRESS ? "no answer by the deadline" :
			      strerror(-fd))); /* fits */
		return fd;
	}
	rc = fetch(b, fd, &f, path, addr, port, o);
	sys_close(fd);
	if (rc < 0)
		return rc;
	IGNORE(strfmt(b->lower_via[layer - 1], sizeof(b->lower_via[0]), "http://%s over %s, in RAM%s", url,
		      b->net_text, plan_verity(&b->plan, layer) ? "" : ", unauthenticated (union.insecure=1)"));
	log_info("read-only layer %u: http://%s is %s (%llu bytes in RAM)", layer, url, s->value,
		 (unsigned long long)f.total);
	return 0;
}
