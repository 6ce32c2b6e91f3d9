// SPDX-License-Identifier: MIT
/* /run/unionroot/status: what this boot mounted where, which fallbacks it
 * took and why, and how long PID 1 took; `unionroot status` reads it. */
#include <fcntl.h>
#include <sys/mount.h>
#include <string.h>
#include <unistd.h>

#include "blkdev.h"
#include "boot.h"
#include "lines.h"
#include "log.h"
#include "record.h"
#include "sbuf.h"
#include "spec.h"
#include "sys.h"

/* The "KEY: N kB" field of a /proc file, in KiB; 0 when unknown. */
static unsigned long long proc_kib(const char *path, const char *key)
{
	char text[4096];
	uint64_t bytes;

	if (sys_read_file(path, text, sizeof(text)) < 0 || proc_kb(text, key, &bytes) < 0)
		return 0;
	return (unsigned long long)(bytes / 1024);
}

/* "KEY=MODULE" for the driver the medium dev ("/dev/sr0", or an image
 * chain's "/dev/sr0:/live/x.squashfs") needed, when one is known. */
static void add_driver(struct sbuf *sb, const char *key, const char *dev)
{
	char name[32], module[64];
	size_t n;

	if (strncmp(dev, "/dev/", 5) != 0)
		return;
	dev += 5;
	n = strcspn(dev, ": ");
	if (n >= sizeof(name))
		return;
	memcpy(name, dev, n);
	name[n] = '\0';
	if (blkdev_driver(name, module, sizeof(module)) == 0)
		record_addf(sb, "%s=%s", key, module);
}

void status_write(struct boot *b)
{
	static char text[RECORD_MAX];
	struct sbuf sb;
	char spec[SPEC_VALUE_MAX + 16];
	int dir;

	sbuf_init(&sb, text, sizeof(text));
	record_addf(&sb, "backend=%s", b->backend ? b->backend : "none");
	for (unsigned i = 0; i < b->nlower; i++) {
		IGNORE(spec_format(&b->lower[i], spec, sizeof(spec))); /* cut is fine here */
		record_addf(&sb, "lower%u=%s %s %s " RUNDIR "/lower/%u", i + 1, spec,
			    b->lower_dev[i], b->lower_type[i], i);
		if (b->lower_via[i][0])
			record_addf(&sb, "lower%u_image=%s", i + 1, b->lower_via[i]);
		record_addf(&sb, "lower%u_verity=%s", i + 1,
			    b->lower_verity[i][0] ? b->lower_verity[i] : "off (union.verity not set)");
		IGNORE(strfmt(spec, sizeof(spec), "lower%u_driver", i + 1)); /* fits */
		add_driver(&sb, spec, b->lower_via[i][0] ? b->lower_via[i] : b->lower_dev[i]);
	}
	if (b->upper_kind == UPPER_DEVICE) {
		IGNORE(spec_format(&b->cfg.upper_spec, spec, sizeof(spec))); /* cut is fine here */
		record_addf(&sb, "upper=%s %s %s " RWDIR, spec, b->upper_dev, b->upper_type);
		if (b->upper_via[0])
			record_addf(&sb, "upper_image=%s", b->upper_via);
		add_driver(&sb, "upper_driver", b->upper_dev);
	} else if (b->upper_kind == UPPER_TMPFS) {
		record_addf(&sb, "upper=tmpfs - tmpfs " RWDIR);
	} else {
		record_addf(&sb, "upper=none");
	}
	record_addf(&sb, "upper_state=%s", b->upper_state);
	record_addf(&sb, "drivers_left=%s", modules_left()[0] ? modules_left() : "none");
	if (b->root_flags)
		record_addf(&sb, "root_flags=%s",
			    b->root_flags & MS_NOSUID ? "nodev,nosuid" : "nodev");
	record_addf(&sb, "warnfull=%d", b->cfg.warnfull);
	record_addf(&sb, "overlay_options=%s", b->overlay_opts);
	record_addf(&sb, "reset=%s", b->reset_applied ? "applied" : "none");
	if (b->reset_applied) {
		record_addf(&sb, "reset_why=%s", b->reset_why);
		record_addf(&sb, "reset_kept=%u", b->reset_kept);
		record_addf(&sb, "reset_refused=%u", b->reset_refused);
	}
	record_addf(&sb, "failsafe=%s", b->failsafe[0] ? b->failsafe : "no");
	if (b->failsafe[0] || b->session_layer)
		record_addf(&sb, "saved=" SAVEDIR);
	record_addf(&sb, "maxfails=%d", b->cfg.maxfails);
	record_addf(&sb, "boots_at_boot=%u", b->boots);
	for (unsigned i = 0; i < b->nlower_id; i++)
		record_addf(&sb, "lower%u_id=%s", i + 1, b->lower_id[i]);
	record_addf(&sb, "lower_changed=%s", b->lower_changed ? "yes" : "no");
	if (b->upgrade[0])
		record_addf(&sb, "upgrade=%s", b->upgrade);
	record_addf(&sb, "pid1_ms=%llu modules=%llu devices=%llu mounts=%llu",
		    (unsigned long long)(sys_now_ms() - b->t_start),
		    (unsigned long long)(b->t_modules - b->t_start),
		    (unsigned long long)(b->t_devices - b->t_modules),
		    (unsigned long long)(b->t_mounts - b->t_devices));
	if (b->fsck_ms)
		record_addf(&sb, "fsck_ms=%llu", (unsigned long long)b->fsck_ms);
	for (unsigned i = 0; i < log_kept_count(); i++)
		record_addf(&sb, "message=%s", log_kept(i));
	b->memfree_before = proc_kib("/proc/meminfo", "MemFree");
	if (sbuf_done(&sb) < 0)
		log_warn("the status is longer than %zu bytes; %s/status is cut", sizeof(text), RUNDIR);

	dir = open(RUNDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0 || sys_write_file_atomic(dir, "status", text, sb.len, 0644) < 0)
		log_err("writing %s/status failed; 'unionroot status' will know less", RUNDIR);
	/* the plan from every fact the boot learnt (init/run.c built it last):
	 * what `unionroot plan` with this command line would have printed */
	if (plan_format(&b->plan, text, sizeof(text)) < 0)
		log_warn("the plan is longer than %zu bytes; %s/plan is cut", sizeof(text), RUNDIR);
	if (dir < 0 || sys_write_file_atomic(dir, "plan", text, strlen(text), 0644) < 0)
		log_err("writing %s/plan failed", RUNDIR);
	if (dir >= 0)
		close(dir);
}

void status_handoff(struct boot *b)
{
	char line[RECORD_TAIL_MAX];
	int fd, rc;

	/* Rss from smaps_rollup walks the page tables; VmHWM in /proc/self/status
	 * lags far behind on 6.1 (per-task cached RSS counters). */
	rc = strfmt(line, sizeof(line), "handoff_ms=%llu rss_kib=%llu memfree_before_kib=%llu\n",
		   (unsigned long long)(sys_now_ms() - b->t_mounts),
		   proc_kib("/proc/self/smaps_rollup", "Rss"), (unsigned long long)b->memfree_before);
	fd = open(RUNDIR "/status", O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
	if (rc == 0 && fd >= 0)
		IGNORE(write(fd, line, strlen(line))); /* a figure for the bench, nothing more */
	if (fd >= 0)
		close(fd);
}
