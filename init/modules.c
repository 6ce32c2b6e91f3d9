// SPDX-License-Identifier: MIT
/* Step 3: load the drivers the hardware present asks for (modalias against
 * the initramfs's modules.alias) and the board's list, dependencies first,
 * with finit_module(2) and the command line's modname.param=value. A listed
 * module whose job only some boots have (file systems, loop, MTD) waits
 * until the boot needs it (moddep_need): under emulation every module costs
 * tens of milliseconds, and a board lists everything it might meet. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "boot.h"
#include "conf/cmdline.h"
#include "lib/lines.h"
#include "lib/log.h"
#include "kmod/modalias.h"
#include "kmod/moddep.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"

#define PARAMS_MAX 1024
#define MODPARAMS_MAX 64
/* The largest index file (or board's list) a boot reads: each is read once
 * into memory of its own size, and its table is sized by its lines. A
 * distribution kernel's whole modules.alias is a small part of it, and
 * tools/mkinitramfs refuses a pool with a larger one (its INDEX_MAX). */
#define INDEX_MAX (16 << 20)
#define INDEX_MAX_TEXT "16 MiB"

static struct {
	char *list, *dep, *softdep, *builtin, *alias;
	char cpu[4096];            /* the CPU's modalias: which features it has */
	struct modalias ma;
	unsigned hw_loaded, hw_failed;
	char cmdline[CMDLINE_MAX + 1];
	struct moddep md;
	unsigned *order;           /* md.n entries each */
	unsigned char *loaded;
	char dir[128];
	int ready;
	int net;                   /* the network is wanted: NIC drivers may match */
	/* modname.param[=value] from the command line, split once */
	struct {
		const char *key, *val;
	} params[MODPARAMS_MAX];
	unsigned nparams, params_dropped;
} m;

/* A file system type and the modules a mount of it needs beyond its own
 * dependencies: code pages are requested by name at mount time, which needs
 * a modprobe the initramfs does not have. */
static const struct {
	char type[8];
	char modules[40];
} fs_modules[] = {
	{ "ext2", "ext4" },
	{ "ext3", "ext4" },
	{ "iso9660", "isofs nls_utf8" },
	{ "vfat", "vfat nls_cp437 nls_iso8859_1 nls_utf8" },
	{ "msdos", "msdos nls_cp437" },
	/* nfs.ko registers nfs4, and asks for nfsv4 by request_module */
	{ "nfs4", "nfsv4" },
};

static int read_index(const char *dir, const char *file, int required, char **text,
		      size_t per_line, void **table);
static void load_names(const char *names, unsigned *order, unsigned max);

/* A module not found in the initramfs is in its module pack (the board's
 * PACK=), mounted when the first such module is wanted: a boot that loads
 * only what the board keeps outside it (PACK_OUTSIDE=) never loads loop for
 * it. loop and squashfs, which mount it, are always outside. */
static int open_packed(const char *rel)
{
	static int state; /* 0 not tried yet, 1 mounted, -1 none */

	if (!state) {
		unsigned order[32];
		char pack[160];

		state = -1;
		if (strfmt(pack, sizeof(pack), "%s/modules.pack", m.dir) >= 0 &&
		    sys_lexists(AT_FDCWD, pack)) {
			load_names("loop squashfs", order, ARRAY_SIZE(order));
			state = modpack_mount(m.dir) > 0 ? 1 : -1; /* failures logged */
		}
	}
	return state > 0 ? modpack_open(rel) : -ENOENT;
}

/* modules.builtin is only read when a listed name is not in modules.dep. */
static int is_builtin(const char *name, size_t len)
{
	const char *p;
	struct line l;

	if (!m.builtin)
		IGNORE(read_index(m.dir, "modules.builtin", 0, &m.builtin, 0, NULL)); /* optional */
	p = m.builtin;

	while (line_next(&p, &l)) {
		const char *base = l.s, *dot;

		for (size_t i = 0; i < l.len; i++)
			if (l.s[i] == '/')
				base = l.s + i + 1;
		dot = memchr(base, '.', (size_t)(l.s + l.len - base));
		if (dot && modname_eq(base, (size_t)(dot - base), name, len))
			return 1;
	}
	return 0;
}

static void collect_param(const char *key, const char *val, void *arg)
{
	(void)arg;
	if (!strchr(key, '.') || strncmp(key, "union.", 6) == 0)
		return;
	if (m.nparams == MODPARAMS_MAX) {
		m.params_dropped++;
		return;
	}
	m.params[m.nparams].key = key;
	m.params[m.nparams].val = val;
	m.nparams++;
}

/* "param=value ..." for module e from the command line's e.param=value. */
static int module_params(const struct moddep_entry *e, char *buf, size_t cap)
{
	struct sbuf sb;

	sbuf_init(&sb, buf, cap);
	for (unsigned i = 0; i < m.nparams; i++) {
		const char *key = m.params[i].key, *val = m.params[i].val;
		const char *dot = strchr(key, '.');

		if (!modname_eq(key, (size_t)(dot - key), e->name, e->name_len))
			continue;
		if (sb.len)
			sbuf_add(&sb, " ");
		if (val && strchr(val, ' '))
			sbuf_addf(&sb, "%s=\"%s\"", dot + 1, val);
		else if (val)
			sbuf_addf(&sb, "%s=%s", dot + 1, val);
		else
			sbuf_add(&sb, dot + 1);
	}
	return sbuf_done(&sb);
}

static int load_one(const char *dir, const struct moddep_entry *e)
{
	char path[256], params[PARAMS_MAX];
	uint64_t t;
	int fd, rc;

	if (module_params(e, params, sizeof(params)) < 0) {
		log_err("parameters for module %.*s are longer than %d bytes; loading it without them",
			(int)e->name_len, e->name, PARAMS_MAX);
		params[0] = '\0';
	}
	if (strfmt(path, sizeof(path), "%s/%s", dir, e->path) < 0)
		return -ENAMETOOLONG;
	fd = sys_open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -ENOENT)
		fd = open_packed(e->path);
	if (fd < 0)
		return fd;
	t = sys_now_ms();
	watchdog_step(WD_STEP_S, "loading module %.*s", (int)e->name_len, e->name);
	rc = sys_finit_module(fd, params, 0);
	watchdog_step_end();
	sys_close(fd);
	log_debug("module %.*s: %s (%llu ms)", (int)e->name_len, e->name,
		  rc == 0 ? "loaded" : rc == -EEXIST ? "already loaded" : strerror(-rc),
		  (unsigned long long)(sys_now_ms() - t));
	if (rc == 0 && params[0])
		log_info("module %.*s loaded with \"%s\"", (int)e->name_len, e->name, params);
	return rc == -EEXIST ? 0 : rc;
}

static void load_order(const unsigned *order, unsigned count, unsigned *loaded, unsigned *failed)
{
	for (unsigned i = 0; i < count; i++) {
		const struct moddep_entry *e = &m.md.e[order[i]];
		int rc;

		if (m.loaded[order[i]])
			continue;
		m.loaded[order[i]] = 1;
		/* a softdep such as crct10dif-pclmul fails with ENODEV on a CPU
		 * without its feature: its cpu: alias says so beforehand */
		if (modalias_cpu_lacks(&m.ma, e->name, e->name_len, m.cpu)) {
			log_debug("module %.*s: this CPU lacks its feature; not loaded",
				  (int)e->name_len, e->name);
			continue;
		}
		rc = load_one(m.dir, e);
		if (rc < 0) {
			/* e.g. crc32c_intel on a CPU without SSE4.2: ENODEV, harmless */
			log_warn("loading module %.*s failed: %s; continuing", (int)e->name_len,
				 e->name, strerror(-rc));
			(*failed)++;
		} else {
			(*loaded)++;
		}
	}
}

/* The next module name of a blank-separated list into name (cap bytes);
 * returns where the list goes on, or NULL at its end. A name too long for
 * name is reported and yields "". */
static const char *next_name(const char *p, char *name, size_t cap)
{
	size_t n;

	p += strspn(p, " \t\r\n");
	n = strcspn(p, " \t\r\n");
	if (!n)
		return NULL;
	name[0] = '\0';
	if (n >= cap) {
		log_err("module name \"%.32s...\" is too long; skipping it", p);
	} else {
		memcpy(name, p, n);
		name[n] = '\0';
	}
	return p + n;
}

/* dir/file into *text ("" when it cannot be read) and, when per_line is
 * not 0, a zeroed table of per_line bytes a line into *table: no entry
 * parsed from a line is left out. The number of lines, or -errno (logged
 * but for a missing optional file). */
static int read_index(const char *dir, const char *file, int required, char **text,
		      size_t per_line, void **table)
{
	static char none[1];
	char path[256];
	ssize_t n = -ENAMETOOLONG;

	*text = none;
	if (strfmt(path, sizeof(path), "%s/%s", dir, file) >= 0)
		n = sys_map_text(path, INDEX_MAX, text);
	if (n >= 0) {
		n = (ssize_t)lines_count(*text);
		/* + 1: never 0 bytes, which mmap refuses */
		if (per_line && (*table = sys_map_anon((size_t)n * per_line + 1)) == NULL) {
			*text = none;
			n = -ENOMEM;
		}
	}
	if (n < 0 && (required || n != -ENOENT))
		log_err("reading %s failed: %s; %s", path,
			n == -EFBIG ? "larger than " INDEX_MAX_TEXT : strerror((int)-n),
			required ? "no modules will be loaded" : "ignoring it");
	return (int)n;
}

/* The board's modules that serve need, dependencies first; the others
 * count as deferred. Names not in the initramfs are reported by the
 * boot's own pass only. */
static void load_list(enum mod_need need, unsigned *loaded, unsigned *failed, unsigned *builtin,
		      unsigned *deferred)
{
	unsigned count = 0;
	char name[64];
	int rc;

	for (const char *p = m.list; (p = next_name(p, name, sizeof(name))) != NULL;) {
		size_t n = strlen(name);

		if (!n)
			continue;
		rc = moddep_find(&m.md, name, n);
		if (rc >= 0 && moddep_need(m.md.e[rc].path) != need) {
			(*deferred)++;
			continue;
		}
		if (rc < 0 && need != NEED_BOOT)
			continue;
		rc = moddep_resolve(&m.md, name, m.order, &count, m.md.n);
		if (rc == -ENOENT && is_builtin(name, n)) {
			(*builtin)++;
		} else if (rc < 0) {
			log_err("module %s: %s; continuing without it", name,
				rc == -ENOENT ? "not in the initramfs" : strerror(-rc));
			(*failed)++;
		}
	}
	load_order(m.order, count, loaded, failed);
}

void modules_for_need(enum mod_need need)
{
	static unsigned char done[NEED_NET + 1];
	unsigned loaded = 0, failed = 0, builtin = 0, deferred = 0;

	m.net |= need == NEED_NET;
	if (!m.ready || done[need])
		return;
	done[need] = 1;
	load_list(need, &loaded, &failed, &builtin, &deferred);
	if (loaded || failed)
		log_debug("on demand: %u module(s) loaded, %u failed", loaded, failed);
}

/* modules.alias (the carried drivers') and the CPU's modalias; without
 * them no driver is chosen by the hardware, the board's list still loads. */
static void read_aliases(void)
{
	void *table;
	int n = read_index(m.dir, "modules.alias", 0, &m.alias, sizeof(*m.ma.e), &table);

	if (n < 0)
		return;
	m.ma.e = table;
	m.ma.cap = (unsigned)n;
	IGNORE(modalias_parse(&m.ma, m.alias)); /* a line each: never -E2BIG */
	/* no CPU modalias (not x86): no cpu: alias can match */
	if (sys_read_file("/sys/devices/system/cpu/modalias", m.cpu, sizeof(m.cpu)) < 0)
		m.cpu[0] = '\0';
}

/* The next alias from index `from` on that matches modalias and names a
 * carried module not loaded yet: its index, or -1. CPU features are no
 * device: their modules load as softdeps. */
static int next_match(const char *modalias, int from)
{
	if (!m.ready || strncmp(modalias, "cpu:", 4) == 0)
		return -1;
	for (int i = from - 1; (i = modalias_next(&m.ma, modalias, (unsigned)(i + 1))) >= 0;) {
		const char *name = m.ma.e[i].module;
		int idx = moddep_find(&m.md, name, strlen(name));

		/* a NIC's driver only for a boot that needs the network */
		if (idx >= 0 && !m.loaded[idx] && (m.net || moddep_need(m.md.e[idx].path) != NEED_NET))
			return i;
	}
	return -1;
}

int modules_match(const char *modalias, char *name, size_t cap)
{
	int i = next_match(modalias, 0);

	return i >= 0 && strcopy(name, cap, m.ma.e[i].module) == 0;
}

unsigned modules_for_device(const char *modalias, const char *devpath)
{
	unsigned loaded = 0, failed = 0;
	char path[320];

	for (int i = -1; (i = next_match(modalias, i + 1)) >= 0;) {
		const char *name = m.ma.e[i].module;
		unsigned count = 0;

		log_debug("module %s for %s: its alias %s matches %s", name, devpath,
			  m.ma.e[i].pattern, modalias);
		if (moddep_resolve(&m.md, name, m.order, &count, m.md.n) < 0)
			continue; /* the index names only what is carried */
		load_order(m.order, count, &loaded, &failed);
		/* bound now: a generic driver that also matches (ata_generic
		 * after ata_piix) would load for nothing */
		if (strfmt(path, sizeof(path), "/sys%s/driver", devpath) >= 0 &&
		    sys_lexists(AT_FDCWD, path))
			break;
	}
	m.hw_loaded += loaded;
	m.hw_failed += failed;
	return loaded + failed;
}

void modules_load(struct boot *b)
{
	struct utsname u;
	char *dir = m.dir;
	unsigned loaded = 0, failed = 0, builtin = 0, deferred = 0;
	void *table;
	int rc;

	if (read_index("/etc/unionroot", "modules", 0, &m.list, 0, NULL) < 0) {
		log_info("no module list (/etc/unionroot/modules); relying on built-in drivers");
		b->t_modules = sys_now_ms();
		return;
	}
	if (sys_uname(&u) < 0 || strfmt(dir, sizeof(m.dir), "/lib/modules/%s", u.release) < 0) {
		log_err("cannot tell the kernel version; no modules will be loaded");
		return;
	}
	/* a module's entry, its place in an order and its loaded flag */
	rc = read_index(dir, "modules.dep", 1, &m.dep,
			sizeof(*m.md.e) + sizeof(*m.order) + sizeof(*m.loaded), &table);
	if (rc < 0)
		return;
	m.md.cap = (unsigned)rc;
	m.md.e = table;
	m.order = (unsigned *)(m.md.e + rc);
	m.loaded = (unsigned char *)(m.order + rc);
	rc = read_index(dir, "modules.softdep", 0, &m.softdep, sizeof(*m.md.s), &table);
	if (rc >= 0) { /* optional */
		m.md.scap = (unsigned)rc;
		m.md.s = table;
	}
	rc = moddep_parse(&m.md, m.dep, m.softdep); /* a line each: never -E2BIG */
	if (rc < 0) {
		log_err("%s/modules.dep or modules.softdep is malformed (%s); no modules will be loaded",
			dir, strerror(-rc));
		return;
	}
	m.ready = 1;
	read_aliases();

	memcpy(m.cmdline, b->cmdline_raw, sizeof(m.cmdline));
	(void)cmdline_split(m.cmdline, collect_param, NULL);
	if (m.params_dropped)
		log_err("more than %d module parameters on the command line; %u are not passed on",
			MODPARAMS_MAX, m.params_dropped);

	/* the devices present wait their turn (coldplug_next); the plan says
	 * whether all load now or only until the media are found. The
	 * controllers first: their buses enumerate while the list loads */
	rc = hotplug_socket();
	modules_coldplug();
	if (b->plan.drivers == DRIVERS_ALL)
		while (modules_coldplug_next())
			;
	cmdline_strip_comments(m.list);
	load_list(NEED_BOOT, &loaded, &failed, &builtin, &deferred);
	if (rc >= 0)
		hotplug_drain(rc); /* what the controllers found meanwhile */
	b->t_modules = sys_now_ms();
	log_info("modules: %u for the hardware present, %u listed, %u built in, %u failed, "
		 "%u on demand (%llu ms)",
		 m.hw_loaded, loaded, builtin, failed + m.hw_failed, deferred,
		 (unsigned long long)(b->t_modules - b->t_start));
}

/* Into order (max entries), so that the module pack's loads (open_packed)
 * leave the m.order a waiting load walks as it is. */
static void load_names(const char *names, unsigned *order, unsigned max)
{
	unsigned count = 0, loaded = 0, failed = 0;
	char name[64];

	while ((names = next_name(names, name, sizeof(name))) != NULL) {
		int rc = name[0] ? moddep_resolve(&m.md, name, order, &count, max) : 0;

		/* a type without a module (built in, or not carried) fails at
		 * its mount, which names the device and the reason */
		if (rc < 0 && rc != -ENOENT)
			log_warn("module %s: %s", name, strerror(-rc));
	}
	load_order(order, count, &loaded, &failed);
	if (loaded || failed)
		log_debug("on demand: %u module(s) loaded, %u failed", loaded, failed);
}

void modules_by_name(const char *names)
{
	if (m.ready)
		load_names(names, m.order, m.md.n);
}

void modules_for_fs(struct boot *b, const char *type)
{
	(void)b;
	if (!m.ready || !type || !type[0])
		return;
	for (size_t i = 0; i < ARRAY_SIZE(fs_modules); i++) {
		if (strcmp(fs_modules[i].type, type) == 0) {
			load_names(fs_modules[i].modules, m.order, m.md.n);
			return;
		}
	}
	load_names(type, m.order, m.md.n);
}
