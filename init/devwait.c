// SPDX-License-Identifier: MIT
/* Step 4: wait for the media the SPECs name, woken by kernel uevents (no
 * fixed sleeps), each SPEC with its own deadline. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "lib/log.h"
#include "media/media.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"

#define PROGRESS_MS 3000

struct want {
	const struct spec *spec;
	int kind;              /* enum plan_wait_kind */
	const char *role;      /* "read-only layer 1", "writable branch" */
	char *dev;             /* where the answer goes (DEVNODE_MAX bytes) */
	char *type;            /* FSTYPE_MAX bytes */
	uint64_t deadline_ms;  /* UINT64_MAX: no deadline */
	int done;
	int no_flash;          /* the plan's: raw flash, which this build leaves out */
	int said_removable;    /* the wait for a fixed device was said */
};

static int supported(const struct spec *s, int upper)
{
	if (s->kind == SPEC_AUTO)
		return !upper;
	if (upper && s->npaths > 1)
		return 0; /* a persistence file lies on its medium, not in an image */
	if (s->kind == SPEC_MTD || s->kind == SPEC_UBI)
		return s->npaths == 0;
	return s->kind == SPEC_DEV || s->kind == SPEC_LABEL || s->kind == SPEC_UUID ||
	       s->kind == SPEC_PARTUUID || s->kind == SPEC_PARTLABEL;
}

static int is_upper(const struct boot *b, const struct want *w)
{
	(void)b;
	return w->kind == WAIT_UPPER;
}

/* The writable branch's SPEC as the wait finds it: an nbd: export's
 * device once connected, else as configured. */
static const struct spec *upper_spec(const struct boot *b)
{
	return b->cfg.upper_spec.kind == SPEC_NBD && b->upper_net.value[0] ? &b->upper_net : &b->cfg.upper_spec;
}

/* The image chain of a read-only layer on medium d: the SPEC's paths, or
 * union.image on a live medium named without a path, or the device itself
 * copied to RAM (union.toram). 1 resolved (or nothing to do), < 0 failed. */
_Static_assert(CFG_PATH_MAX == SPEC_PATH_MAX, "union.image must fit a SPEC path");

static int open_chain(struct boot *b, struct want *w, const struct blkdev *d, int quiet)
{
	const char (*image)[SPEC_PATH_MAX] = (const char (*)[SPEC_PATH_MAX])b->cfg.image;
	struct image_req r = { .role = w->role, .dev = d->path, .type = d->info.type,
			       .paths = w->spec->paths, .npaths = w->spec->npaths,
			       .toram = b->cfg.toram, .quiet_enoent = quiet };
	struct reach via;
	int rc;

	if (w->spec == b->lower) { /* a persistence partition goes on its disk, past it */
		IGNORE(strcopy(b->lower_disk, sizeof(b->lower_disk), d->partnum ? d->disk : d->name));
		b->lower_disk_end = d->partnum ? 0 : d->info.bytes;
	}
	if (is_upper(b, w) || !media_opens(w->spec, d->info.type, r.toram))
		return 1;
	if (!r.npaths && (w->spec->kind == SPEC_AUTO || media_holds_images(d->info.type))) {
		r.paths = image;
		r.npaths = 1;
	}
	rc = reach_start(b, d, &via);
	if (rc == 0) {
		r.dev = via.path;
		rc = image_open(b, &r);
	}
	reach_end(&via, w->role, rc);
	if (rc < 0)
		return rc;
	IGNORE(strcopy(w->dev, DEVNODE_MAX, r.out_dev));
	IGNORE(strcopy(w->type, FSTYPE_MAX, r.out_type));
	IGNORE(strcopy(b->lower_via[w->spec - b->lower], sizeof(b->lower_via[0]), r.via));
	return 1;
}

static void announce(const struct want *w, const char *text, const struct blkdev *d)
{
	log_info("%s: %s is %s (%s%s%s%s)", w->role, text, d->path,
		 d->probed == 1 ? d->info.type : "unknown type", d->info.label[0] ? ", label " : "",
		 d->info.label, d->removable ? ", removable" : "");
}

/* auto: the devices present now, fixed before removable and then by the
 * lowest kernel name (media_order), each mounted once to look for
 * union.image; the first that holds it wins, and any other that holds it
 * too is named (the choice rule of doc/design.md, "Which device"). */
static int try_auto(struct boot *b, struct want *w)
{
	static unsigned char looked[BLKDEV_MAX];
	const struct blkdev *t = b->devs.d, *use;
	unsigned idx[BLKDEV_MAX], n = media_order(&b->devs, idx);
	int found = -1, how;

	for (unsigned k = 0; k < n; k++) {
		unsigned i = idx[k];
		int rc;

		if (looked[i] || !media_scan_candidate(&t[i], b->cfg.scan))
			continue;
		looked[i] = 1;
		/* a partition showing the whole disk's medium is the same one */
		if ((how = media_reach(&b->devs, &t[i], &use)) == REACH_PARTITION)
			looked[use - t] = 1;
		if (found >= 0) {
			if (how != REACH_LOOP && image_present(b, use->path, t[i].info.type, b->cfg.image) == 1)
				log_warn("%s: %s also holds %s; using %s (fixed before removable, then the lowest kernel name)",
					 w->role, t[i].path, b->cfg.image, t[found].path);
			continue;
		}
		rc = open_chain(b, w, &t[i], 1);
		if (rc == -ENOENT || rc == -EISDIR)
			continue;
		if (rc < 0) {
			log_warn("%s: skipping %s for auto", w->role, t[i].path);
			continue;
		}
		announce(w, "auto", &t[i]);
		found = (int)i;
	}
	if (found < 0)
		return 0;
	w->done = 1;
	return 1;
}

/* The device the plan's rule gives w's SPEC now (media_choose), or NULL
 * while it waits; a writable branch that only a removable device matches,
 * unasked, at the deadline: NULL with why filled in. */
static const struct blkdev *choose(struct boot *b, struct want *w, int past, const char *text,
				   char *why, size_t whylen)
{
	int asks = media_asks_removable(b->cfg.scan, w->spec, w->kind == WAIT_HASH);
	struct media_choice c;

	media_choose(&b->devs, w->spec, is_upper(b, w), asks, past, &c);
	if (c.d && c.verdict == MEDIA_WAIT && !w->said_removable++)
		log_warn("%s %s: only removable %s matches; waiting for a fixed device until the deadline (union.scan=removable lets removable media serve at once)",
			 w->role, text, c.d->path);
	if (c.verdict == MEDIA_REFUSE)
		IGNORE(strfmt(why, whylen, "writable branch %s: only removable %s matches, and a writable branch goes on removable media only when asked (union.scan=removable, or a file SPEC:/FILE)",
			      text, c.d->path)); /* may cut */
	if (c.verdict != MEDIA_TAKE || !c.d)
		return NULL;
	if (c.matched > 1)
		log_warn("%s: %u devices match %s; using %s (%s)", w->role, c.matched, text, c.d->path,
			 c.removable && !c.d->removable ? "fixed before removable" : "lowest kernel name");
	else if (c.d->removable && !asks)
		log_warn("%s %s: no fixed device matched by the deadline; taking removable %s", w->role,
			 text, c.d->path);
	return c.d;
}

/* 1 resolved, 0 not yet, < 0 failed for good (why filled in). */
static int try_resolve(struct boot *b, struct want *w, int past, char *why, size_t whylen)
{
	const struct blkdev *d;
	char text[SPEC_VALUE_MAX + 16];
	int rc;

	if (w->spec->kind == SPEC_AUTO)
		return try_auto(b, w);
	if (w->spec->kind == SPEC_MTD || w->spec->kind == SPEC_UBI)
		return (w->done = flash_resolve(b, w->spec, is_upper(b, w), w->dev, w->type,
						w->role));
	IGNORE(spec_format(w->spec, text, sizeof(text))); /* for the messages only */
	d = choose(b, w, past, text, why, whylen);
	if (!d)
		return why[0] ? -EPERM : 0;
	IGNORE(strcopy(w->dev, DEVNODE_MAX, d->path));
	IGNORE(strcopy(w->type, FSTYPE_MAX, d->probed == 1 ? d->info.type : ""));
	announce(w, text, d);
	if (is_upper(b, w))
		rc = persist_file_open(b, d, why, whylen);
	else if (w->kind == WAIT_HASH)
		rc = 1; /* the tree is read as it is, no image inside */
	else
		rc = open_chain(b, w, d, 0);
	if (rc < 0) {
		if (!why[0])
			IGNORE(strfmt(why, whylen, "%s %s: the image cannot be used", w->role, text)); /* fits */
		return rc;
	}
	w->done = 1;
	return 1;
}

static void list_found(struct boot *b)
{
	char line[LOG_LINE_MAX - 64];
	struct sbuf sb;

	sbuf_init(&sb, line, sizeof(line));
	for (unsigned i = 0; i < b->devs.n; i++) {
		const struct blkdev *d = &b->devs.d[i];

		sbuf_addf(&sb, "%s%s (%s%s%s)", i ? ", " : "", d->name,
			  d->probed == 1 ? d->info.type : "unknown",
			  d->info.label[0] ? " LABEL=" : "", d->info.label);
	}
	if (sbuf_done(&sb) < 0)
		IGNORE(strcopy(line + sizeof(line) - 5, 5, "...")); /* fits by construction */
	log_err("block devices found: %s", b->devs.n ? line : "none");
}

/* A SPEC that cannot be resolved: a fact for the writable branch (the plan
 * falls back) and a hash tree (its layer is refused), the rescue path for
 * a read-only layer (after listing what was found). */
static void want_failed(struct boot *b, struct want *w, char *why, size_t whylen)
{
	char text[SPEC_VALUE_MAX + 16];

	w->done = -1;
	IGNORE(spec_format(w->spec, text, sizeof(text))); /* message only */
	if (is_upper(b, w)) { /* a fact: the plan built from it falls back, or makes it */
		b->facts.failed_errno = -ENODEV;
		if (!why[0]) { /* not there: a persistence partition may be made */
			b->facts.upper_present = PRESENT_NO;
			return;
		}
		b->facts.failed_step = STEP_FIND; /* refused, and why */
		IGNORE(strcopy(b->facts.upper_failed, sizeof(b->facts.upper_failed), why)); /* cut: still said */
		return;
	}
	if (w->kind == WAIT_HASH) {
		if (!why[0])
			IGNORE(strfmt(why, whylen, "%s %s not found, so the layer cannot be verified",
				      w->role, text)); /* may cut */
		/* a fact: the plan's verification refuses the layer */
		IGNORE(strcopy(b->hash_missing, sizeof(b->hash_missing), why)); /* a cut line still says it */
		return;
	}
	if (!why[0]) {
		list_found(b);
		if (w->spec->kind == SPEC_AUTO)
			IGNORE(strfmt(why, whylen, "%s: no %sdevice holds %s (auto)", w->role,
				      b->cfg.scan == SCAN_REMOVABLE ? "removable " : "", b->cfg.image));
		else
			IGNORE(strfmt(why, whylen, "%s %s not found", w->role, text));
	}
	rescue_fatal(b, why);
}

/* Every few seconds: what is still awaited, and for how long. */
static void say_waiting(const struct want *w, unsigned nw, uint64_t now)
{
	char text[SPEC_VALUE_MAX + 16];

	for (unsigned i = 0; i < nw; i++) {
		if (w[i].done)
			continue;
		IGNORE(spec_format(w[i].spec, text, sizeof(text))); /* message only */
		if (w[i].deadline_ms == UINT64_MAX)
			log_note("waiting for %s %s (no deadline: rootwait)", w[i].role, text);
		else
			log_note("waiting for %s %s (%llu s left)", w[i].role, text,
				 (unsigned long long)((w[i].deadline_ms - now + 999) / 1000));
	}
}

/* Sleeps until a uevent, the next deadline, the next progress line, or a
 * second (the rescan covers events lost before the socket existed). */
static void sleep_until_event(int sock, const struct want *w, unsigned nw, uint64_t now,
			      uint64_t next_progress)
{
	uint64_t soonest = next_progress;
	struct pollfd pfd = { .fd = sock, .events = POLLIN };

	for (unsigned i = 0; i < nw; i++)
		if (!w[i].done && w[i].deadline_ms < soonest)
			soonest = w[i].deadline_ms;
	if (soonest > now + 1000)
		soonest = now + 1000;
	if (sock < 0 && soonest > now + 250)
		soonest = now + 250;
	if (soonest <= now)
		return;
	if (sock < 0) {
		sys_sleep_ms((unsigned)(soonest - now));
		modules_coldplug(); /* no uevents: new devices are found by walking */
	} else if (sys_poll(&pfd, 1, (int)(soonest - now)) > 0)
		hotplug_drain(sock);
}

/* The watchdog's phase: the SPECs awaited, until the last deadline and a
 * margin (none with rootwait): past that, the wait itself is stuck. */
static void watch_wait(const struct want *w, unsigned nw, uint64_t now)
{
	char text[96], one[SPEC_VALUE_MAX + 16];
	uint64_t last = now;
	struct sbuf sb;

	sbuf_init(&sb, text, sizeof(text));
	for (unsigned i = 0; i < nw; i++) {
		IGNORE(spec_format(w[i].spec, one, sizeof(one))); /* message only */
		sbuf_addf(&sb, "%s%s", i ? ", " : "", one);
		if (w[i].deadline_ms > last)
			last = w[i].deadline_ms;
	}
	IGNORE(sbuf_done(&sb)); /* a cut list still says what is awaited */
	watchdog_phase(last == UINT64_MAX ? 0 : (unsigned)((last - now) / 1000) + WD_MARGIN_S,
		       "waiting for %s", text);
}

static uint64_t deadline_for(const struct boot *b, const struct spec *s, uint64_t now)
{
	int secs = s->deadline >= 0 ? s->deadline : config_wait(&b->cfg);

	return secs == CFG_WAIT_FOREVER ? UINT64_MAX : now + (uint64_t)secs * 1000u;
}

/* rootdelay=N, the kernel's meaning: a pause before the devices are looked
 * for (hardware slow to announce them); the deadlines start after it.
 * Without an initramfs the kernel paused already. The uevents go on being
 * read meanwhile: a USB stick's disk needs its driver loaded from one, and
 * a socket left unread overflows. Returns the time after. */
static uint64_t root_delay(const struct boot *b, int sock)
{
	uint64_t end = sys_now_ms() + (uint64_t)(b->cfg.rootdelay > 0 ? b->cfg.rootdelay : 0) * 1000u;
	uint64_t now;

	if (b->cfg.rootdelay <= 0 || b->pivot)
		return sys_now_ms();
	log_note("rootdelay=%d: pausing %d s before looking for the devices", b->cfg.rootdelay,
		 b->cfg.rootdelay);
	while ((now = sys_now_ms()) < end) {
		struct pollfd pfd = { .fd = sock, .events = POLLIN };

		if (sock < 0)
			sys_sleep_ms((unsigned)(end - now < 250 ? end - now : 250));
		else if (sys_poll(&pfd, 1, (int)(end - now < 1000 ? end - now : 1000)) > 0)
			hotplug_drain(sock);
	}
	return sys_now_ms();
}

/* The want for one device of the plan's wait list; -ENOENT when the boot
 * has no such layer (root= is read as one SPEC). */
static int want_for(struct boot *b, const struct plan_wait *pw, struct want *w, uint64_t now)
{
	static char roles[2][SPEC_LIST_MAX][40], hash_dev[SPEC_LIST_MAX][DEVNODE_MAX], hash_type[FSTYPE_MAX];
	static struct spec hash[SPEC_LIST_MAX];
	const struct verity_arg *a;
	unsigned i = pw->layer - 1;
	char why[CFG_ERR_MAX];

	if (pw->kind == WAIT_UPPER) {
		*w = (struct want){ upper_spec(b), WAIT_UPPER, "writable branch", b->upper_dev,
				    b->upper_type, deadline_for(b, upper_spec(b), now), 0, 0, 0 };
		return 0;
	}
	if (pw->layer < 1 || pw->layer > b->nlower)
		return -ENOENT;
	IGNORE(strfmt(roles[pw->kind == WAIT_HASH][i], sizeof(roles[0][0]), "%sread-only layer %u",
		      pw->kind == WAIT_HASH ? "hash tree of " : "", pw->layer)); /* fits */
	if (pw->kind == WAIT_LOWER) {
		*w = (struct want){ &b->lower[i], WAIT_LOWER, roles[0][i], b->lower_dev[i],
				    b->lower_type[i], deadline_for(b, &b->lower[i], now), b->pivot,
				    pw->no_flash, 0 };
		return 0;
	}
	/* union.verity validated hash= as a /dev/NAME, which parses as a SPEC;
	 * without an initramfs verity refuses the layer anyway */
	a = plan_verity(&b->plan, pw->layer);
	if (!a || spec_parse(a->hashdev, &hash[i], why, sizeof(why)) < 0)
		return -EINVAL;
	*w = (struct want){ &hash[i], WAIT_HASH, roles[1][i], hash_dev[i], hash_type,
			    deadline_for(b, &hash[i], now), b->pivot, 0, 0 };
	return 0;
}

void devices_found_upper(struct boot *b)
{
	if (!b->upper_dev[0] || b->facts.failed_step != STEP_NONE)
		return;
	b->facts.upper_dev = b->upper_dev;
	b->facts.upper_type = b->upper_type;
	b->facts.upper_marked = flash_upper_marked();
	b->facts.upper_present = PRESENT_YES;
}

/* Before the uevent socket closes, the events since the last look get
 * their drivers, as every one before them did: a boot whose media were all
 * found at the first look (a network layer, its link up at once) would
 * otherwise drop a device that came with a driver loaded for the network,
 * neither loaded nor left to the real init. */
void devices_wait(struct boot *b)
{
	struct want w[PLAN_WAIT_MAX];
	unsigned nw = 0, pending;
	int rc;
	int sock = hotplug_socket(); /* open since before the coldplug walk */
	uint64_t now = root_delay(b, sock), next_progress = now + PROGRESS_MS;
	int said_full = 0;
	char text[SPEC_VALUE_MAX + 16];

	if (!b->t_modules)
		b->t_modules = now;
	if (sock < 0)
		log_warn("cannot listen to uevents (%s); polling every 250 ms instead", strerror(-sock));
	if (b->nlower == 0)
		rescue_fatal(b, "no read-only layer configured (set union.lower= or root=)");
	for (unsigned i = 0; i < b->plan.nwait; i++)
		if (want_for(b, &b->plan.wait[i], &w[nw], now) == 0)
			nw++;
	for (unsigned i = 0; i < nw; i++) {
		char why[200];

		if (!(PLAN_NO_FLASH && w[i].no_flash) && supported(w[i].spec, is_upper(b, &w[i])))
			continue;
		IGNORE(spec_format(w[i].spec, text, sizeof(text))); /* message only */
		if (PLAN_NO_FLASH && w[i].no_flash)
			IGNORE(strfmt(why, sizeof(why), PLAN_NEEDS_FLASH, w[i].role, text)); /* fits */
		else
			IGNORE(strfmt(why, sizeof(why), "%s: SPEC %s is not supported by this build%s",
				      w[i].role, text, w[i].spec->npaths > 1 ?
				      " (a persistence file must lie on the medium itself)" : "")); /* may cut */
		want_failed(b, &w[i], why, sizeof(why));
	}
	watch_wait(w, nw, now);

	for (;;) {
		rc = blkdev_refresh(&b->devs);

		if (rc < 0)
			log_err("scanning /sys/class/block failed: %s; retrying", strerror(-rc));
		if (b->devs.overflow && !said_full++)
			log_err("more than %d block devices: those past the first %d are not looked at",
				BLKDEV_MAX, BLKDEV_MAX);
		pending = 0;
		now = sys_now_ms();
		for (unsigned i = 0; i < nw; i++) {
			char why[200];

			why[0] = '\0';
			if (w[i].done)
				continue;
			if (try_resolve(b, &w[i], now >= w[i].deadline_ms, why, sizeof(why)) > 0)
				continue;
			if (!why[0] && now < w[i].deadline_ms) {
				pending++;
				continue;
			}
			want_failed(b, &w[i], why, sizeof(why));
		}
		if (!pending)
			break;
		/* union.drivers=boot: the next present device's driver, only
		 * while a medium is awaited (all loaded at step 3 otherwise) */
		if (modules_coldplug_next()) {
			if (sock >= 0)
				hotplug_drain(sock);
			continue;
		}
		if (now >= next_progress) {
			say_waiting(w, nw, now);
			next_progress = now + PROGRESS_MS;
		}
		sleep_until_event(sock, w, nw, now, next_progress);
	}
	if (sock >= 0)
		hotplug_drain(sock); /* the events since the last look: see above */
	hotplug_close();
	modules_leave();
	devices_found_upper(b);
	b->t_devices = sys_now_ms();
}
