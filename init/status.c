// SPDX-License-Identifier: MIT
/* /run/unionroot/status: what this boot mounted where, which fallbacks it
 * took and why, and how long PID 1 took; `unionroot status` reads it. */
#include <fcntl.h>
#include <sys/mount.h>
#include <string.h>
#include <unistd.h>

#include "media/blkdev.h"
#include "boot.h"
#include "conf/spec.h"
#include "lib/filesave.h"
#include "lib/lines.h"
#include "lib/log.h"
#include "lib/record.h"
#include "lib/runstate.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"

/* The "KEY: N kB" field of a /proc file, in KiB; 0 when unknown. */
static unsigned long long proc_kib(const char *path, const char *key)
{
	char text[4096];
	uint64_t bytes;

	if (sys_read_file(path, text, sizeof(text)) < 0 || proc_kb(text, key, &bytes) < 0)
		return 0;
	return (unsigned long long)(bytes / 1024);
}

/* The driver the medium dev ("/dev/sr0", or an image chain's
 * "/dev/sr0:/live/x.squashfs") needed, into module; "" when unknown. */
static const char *driver_of(const char *dev, char *module, size_t cap)
{
	char name[32];
	size_t n;

	module[0] = '\0';
	if (strncmp(dev, "/dev/", 5) != 0)
		return module;
	dev += 5;
	n = strcspn(dev, ": ");
	if (n >= sizeof(name))
		return module;
	memcpy(name, dev, n);
	name[n] = '\0';
	if (blkdev_driver(name, module, cap) != 0)
		module[0] = '\0';
	return module;
}

/* Which of the three roles ran: its own initramfs, none, or another's. */
static const char *mode_of(const struct boot *b)
{
	static char mode[224];

	if (!boot_hosted(b))
		return b->pivot ? "no initramfs" : "initramfs";
	IGNORE(strfmt(mode, sizeof(mode), "mount-root %s", boot_root(b))); /* --at is under 200 bytes */
	return mode;
}

/* the record's values: what the boot learnt, as runstate.h spells it */
static struct runstate rs;

/* Layer i's SPEC: a network layer's b->lower became its device (nbd:,
 * http://, an nfs: image) or its mount (an nfs: tree), so that one is said
 * as configured; any other as the boot found it (a root without an
 * initramfs is "/", which no configured layer says). */
static const struct spec *layer_spec(const struct boot *b, unsigned i)
{
	unsigned n;
	const struct spec *conf = config_layers(&b->cfg, &n);

	int net = i < n && (conf[i].kind == SPEC_NBD || conf[i].kind == SPEC_HTTP || conf[i].kind == SPEC_NFS);

	return net ? &conf[i] : &b->lower[i];
}

void status_write(struct boot *b)
{
	static char text[RECORD_MAX];
	static char spec[SPEC_LIST_MAX + 1][SPEC_VALUE_MAX + 16], driver[SPEC_LIST_MAX + 1][64];
	struct sbuf sb;
	int dir;

	_Static_assert(SPEC_LIST_MAX <= RUNSTATE_LOWER_MAX, "the record holds every layer");
	_Static_assert(LOG_KEEP <= RUNSTATE_MESSAGES_MAX, "the record holds every kept message");
	memset(&rs, 0, sizeof(rs));
	rs.backend = b->backend ? b->backend : "none";
	rs.mode = mode_of(b);
	rs.nlower = b->nlower;
	for (unsigned i = 0; i < b->nlower; i++) {
		struct runstate_lower *l = &rs.lower[i];

		IGNORE(spec_format(layer_spec(b, i), spec[i], sizeof(spec[i]))); /* cut is fine here */
		l->spec = spec[i];
		l->dev = b->lower_dev[i];
		l->type = b->lower_type[i];
		l->image = b->lower_via[i];
		l->verity = b->lower_verity[i][0] ? b->lower_verity[i] : "off (union.verity not set)";
		l->driver = driver_of(b->lower_via[i][0] ? b->lower_via[i] : b->lower_dev[i], driver[i],
				      sizeof(driver[i]));
	}
	if (b->upper_kind == UPPER_DEVICE) {
		IGNORE(spec_format(&b->cfg.upper_spec, spec[SPEC_LIST_MAX], sizeof(spec[SPEC_LIST_MAX]))); /* cut is fine here */
		rs.upper_kind = RUNSTATE_UPPER_DEVICE;
		rs.upper_spec = spec[SPEC_LIST_MAX];
		rs.upper_dev = b->upper_dev;
		rs.upper_type = b->upper_type;
		rs.upper_image = b->upper_via;
		rs.upper_luks = b->upper_locked;
		rs.upper_driver = driver_of(b->upper_dev, driver[SPEC_LIST_MAX], sizeof(driver[SPEC_LIST_MAX]));
	} else {
		rs.upper_kind = b->upper_kind == UPPER_TMPFS ? RUNSTATE_UPPER_TMPFS : RUNSTATE_UPPER_NONE;
	}
	rs.upper_state = b->upper_state;
	rs.drivers_left = modules_left()[0] ? modules_left() : "none";
	if (b->root_flags)
		rs.root_flags = b->root_flags & MS_NOSUID ? "nodev,nosuid" : "nodev";
	rs.warnfull = b->cfg.warnfull;
	rs.overlay_options = b->overlay_opts;
	rs.reset_applied = b->reset_applied;
	rs.reset_why = b->reset_why;
	rs.reset_kept = b->reset_kept;
	rs.reset_refused = b->reset_refused;
	rs.failsafe = b->failsafe[0] ? b->failsafe : "no";
	rs.saved = b->branch_saved;
	rs.maxfails = b->cfg.maxfails;
	rs.boots_at_boot = b->boots;
	rs.nlower_id = b->nlower_id;
	for (unsigned i = 0; i < b->nlower_id; i++)
		rs.lower_id[i] = b->lower_id[i];
	rs.lower_changed = b->lower_changed;
	rs.upgrade = b->upgrade;
	rs.pid1_ms = sys_now_ms() - b->t_start;
	rs.modules_ms = b->t_modules - b->t_start;
	rs.devices_ms = b->t_devices - b->t_modules;
	rs.mounts_ms = b->t_mounts - b->t_devices;
	rs.fsck_ms = b->fsck_ms;
	rs.tools = b->tools_ran;
	rs.nmessage = log_kept_count();
	for (unsigned i = 0; i < rs.nmessage; i++)
		rs.message[i] = log_kept(i);
	b->memfree_before = proc_kib("/proc/meminfo", "MemFree");
	sbuf_init(&sb, text, sizeof(text));
	if (runstate_write(&rs, &sb) < 0 || sbuf_done(&sb) < 0)
		log_warn("the status is longer than %zu bytes; %s is cut", sizeof(text), RUN_STATUS);

	dir = sys_open(RUNDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0 || sys_write_file_atomic(dir, RUN_STATUS_NAME, text, sb.len, 0644) < 0)
		log_err("writing %s failed; 'unionroot status' will know less", RUN_STATUS);
	/* the plan from every fact the boot learnt (init/run.c built it last):
	 * what `unionroot plan` with this command line would have printed */
	if (plan_format(&b->plan, text, sizeof(text)) < 0)
		log_warn("the plan is longer than %zu bytes; %s is cut", sizeof(text), RUN_PLAN);
	if (dir < 0 || sys_write_file_atomic(dir, RUN_PLAN_NAME, text, strlen(text), 0644) < 0)
		log_err("writing %s failed", RUN_PLAN);
	if (dir >= 0)
		sys_close(dir);
}

void status_handoff(struct boot *b)
{
	char line[RECORD_TAIL_MAX];
	struct sbuf sb;
	int fd, rc;

	/* Rss from smaps_rollup walks the page tables; VmHWM in /proc/self/status
	 * lags far behind on 6.1 (per-task cached RSS counters). */
	rs.handoff_ms = sys_now_ms() - b->t_mounts;
	rs.rss_kib = proc_kib("/proc/self/smaps_rollup", "Rss");
	rs.memfree_before_kib = b->memfree_before;
	sbuf_init(&sb, line, sizeof(line));
	rc = runstate_write_handoff(&rs, &sb);
	fd = sys_open(RUN_STATUS, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
	if (rc == 0 && fd >= 0)
		IGNORE(sys_write(fd, line, sb.len)); /* a figure for the bench, nothing more */
	if (fd >= 0)
		sys_close(fd);
}
