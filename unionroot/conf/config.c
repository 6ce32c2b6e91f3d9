// SPDX-License-Identifier: MIT
/* Boot configuration: a table of parameters, one row each, and the checks
 * that turn a bad value into a named error and the default. */
#include "conf/config.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "conf/cmdline.h"
#include "conf/spec.h"
#include "conf/verity_arg.h"
#include "conf/config_values.h"
#include "conf/peers.h"
#include "lib/sbuf.h"
#include "lib/strnum.h"

enum ptype {
	P_SPECLIST, /* union.lower */
	P_UPPER,    /* SPEC | tmpfs | none */
	P_SPEC,     /* root=, union.ubi */
	P_PATH,     /* absolute path */
	P_OPTS,     /* mount options; ip=, read by the network step */
	P_WORD,     /* fs type */
	P_ENUM,     /* one of a list of names, kept as its index */
	P_STRENUM,  /* one of a list of names, kept as the string */
	P_UINT,     /* min..max */
	P_FLAG,     /* bare, =1 or =0 */
	P_SIZE,     /* tmpfs size: N[kKmMgG] or N% */
	P_BYTES,    /* a file's size: N[KMGT], at least CFG_PERSIST_MIN */
	P_BREAK,    /* comma list of phases */
	P_VERITY,   /* union.verity: verity_args_parse */
};

/* No pointers in the table: static-pie relocates each one at start-up (8 bytes
 * plus a 24-byte relocation), so keys are arrays and an enum's names are an offset
 * into one string of lists, each name NUL-terminated, each list ended by an empty one. */
struct param {
	char key[22];        /* the longest, union.test.crashafter, and its NUL */
	unsigned char type;
	short bare;          /* value given without '=' (P_ENUM, P_BREAK) */
	unsigned short off;
	unsigned short cap;  /* strings: buffer size */
	unsigned short names; /* P_ENUM: offset into enum_names */
	short min, max;      /* P_UINT */
};

#define MODE_NAMES "auto\0overlay\0copyup\0"
#define ONFAIL_NAMES "tmpfs\0shell\0reboot\0halt\0"
#define RESET_NAMES "0\0" "1\0keep\0"
#define UPGRADE_NAMES "keep\0reset\0keeplist\0"
#define SCAN_NAMES "all\0removable\0"
#define DRIVERS_NAMES "boot\0all\0"
#define REMOVABLE_NAMES "nodev,nosuid\0nodev\0none\0"
#define SESSION_NAMES "persistent\0volatile\0"
#define FORMAT_NAMES "ext4\0f2fs\0vfat\0jffs2\0"
#define ONERROR_NAMES "eio\0restart\0panic\0"
#define BREAK_NAMES "modules\0mount\0switch\0"
#define COMPAT_NAMES "none\0live-boot\0dracut\0"
static const char enum_names[] = MODE_NAMES "\0" ONFAIL_NAMES "\0" RESET_NAMES "\0"
	UPGRADE_NAMES "\0" SCAN_NAMES "\0" DRIVERS_NAMES "\0" REMOVABLE_NAMES "\0"
	SESSION_NAMES "\0" FORMAT_NAMES "\0" ONERROR_NAMES "\0" BREAK_NAMES "\0" COMPAT_NAMES;
#define N_MODE 0
#define N_ONFAIL (N_MODE + sizeof(MODE_NAMES))
#define N_RESET (N_ONFAIL + sizeof(ONFAIL_NAMES))
#define N_UPGRADE (N_RESET + sizeof(RESET_NAMES))
#define N_SCAN (N_UPGRADE + sizeof(UPGRADE_NAMES))
#define N_DRIVERS (N_SCAN + sizeof(SCAN_NAMES))
#define N_REMOVABLE (N_DRIVERS + sizeof(DRIVERS_NAMES))
#define N_SESSION (N_REMOVABLE + sizeof(REMOVABLE_NAMES))
#define N_FORMAT (N_SESSION + sizeof(SESSION_NAMES))
#define N_ONERROR (N_FORMAT + sizeof(FORMAT_NAMES))
#define N_BREAK (N_ONERROR + sizeof(ONERROR_NAMES))
#define N_COMPAT (N_BREAK + sizeof(BREAK_NAMES))

_Static_assert(sizeof(struct config) <= 0xffff, "struct param's offsets are 16 bits");

#define STR(k, t, f) { k, t, 0, offsetof(struct config, f), sizeof(((struct config *)0)->f), 0, 0, 0 }
#define ENUM(k, f, n, bare) { k, P_ENUM, bare, offsetof(struct config, f), 0, n, 0, 0 }
#define UINT(k, f, lo, hi) { k, P_UINT, 0, offsetof(struct config, f), 0, 0, lo, hi }
#define FLAG(k, f) { k, P_FLAG, 1, offsetof(struct config, f), 0, 0, 0, 1 }
static const struct param params[] = {
	STR("union.lower", P_SPECLIST, lower),
	STR("union.image", P_PATH, image),
	STR("union.upper", P_UPPER, upper),
	STR("union.upperfs", P_WORD, upperfs),
	STR("union.upperflags", P_OPTS, upperflags),
	ENUM("union.mode", mode, N_MODE, -1),
	UINT("union.wait", wait, 0, 3600),
	ENUM("union.reset", reset, N_RESET, RESET_ON),
	ENUM("union.onfail", onfail, N_ONFAIL, -1),
	{ "union.break", P_BREAK, BREAK_MOUNT, offsetof(struct config, brk), 0, 0, 0, 0 },
	FLAG("union.toram", toram),
	FLAG("union.insecure", insecure),
	ENUM("union.upgrade", upgrade, N_UPGRADE, -1),
	UINT("union.maxfails", maxfails, 0, 1000),
	ENUM("union.session", session_volatile, N_SESSION, -1),
	STR("union.size", P_SIZE, size),
	STR("union.persist.size", P_BYTES, persist_size),
	ENUM("union.scan", scan, N_SCAN, -1),
	ENUM("union.drivers", drivers, N_DRIVERS, -1),
	ENUM("union.removable", removable, N_REMOVABLE, -1),
	STR("union.format", P_STRENUM, format),
	STR("union.ubi", P_SPEC, ubi),
	STR("union.verity", P_VERITY, verity),
	ENUM("union.verity.onerror", verity_onerror, N_ONERROR, -1),
	FLAG("union.fsck", fsck),
	UINT("union.warnfull", warnfull, 1, 100),
	STR("union.init", P_PATH, init),
	FLAG("union.debug", debug),
	ENUM("union.compat", compat, N_COMPAT, -1),
	STR("union.test.crashafter", P_WORD, crashafter),
	UINT("union.test.stall", stall, 0, 600),
	FLAG("quiet", quiet),
	STR("root", P_SPEC, root),
	STR("rootfstype", P_WORD, rootfstype),
	STR("rootflags", P_OPTS, rootflags),
	FLAG("rootwait", rootwait),
	UINT("rootdelay", rootdelay, 0, 3600),
	STR("ip", P_OPTS, ip),
	STR("init", P_PATH, init),
};

_Static_assert(ARRAY_SIZE(params) <= 64, "struct config's given has a bit a row");

/* The i-th name of the list at enum_names + list, or NULL past its end. */
static const char *nth_name(size_t list, size_t i)
{
	return config_name_nth(enum_names + list, i);
}

void config_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->wait = 10;
	c->fsck = 1;
	c->warnfull = 90;
	c->rootdelay = -1;
	IGNORE(strcopy(c->image, sizeof(c->image), "/live/filesystem.squashfs"));
}

const char config_inits[CFG_INITS][12] = { "/sbin/init", "/etc/init", "/bin/init", "/bin/sh" };

int config_inits_text(char *buf, size_t cap)
{
	struct sbuf sb;

	sbuf_init(&sb, buf, cap);
	for (size_t i = 0; i < CFG_INITS; i++)
		sbuf_addf(&sb, "%s%s", i ? ", " : "", config_inits[i]);
	return sbuf_done(&sb);
}

const char *config_mode_name(int mode)
{
	const char *n = mode >= 0 ? nth_name(N_MODE, (size_t)mode) : NULL;

	return n ? n : "?";
}

const char *config_onfail_name(int onfail)
{
	const char *n = onfail >= 0 ? nth_name(N_ONFAIL, (size_t)onfail) : NULL;

	return n ? n : "?";
}

/* rootdelay= is no deadline: the kernel's pause before the device wait. */
int config_wait(const struct config *c)
{
	return c->rootwait ? CFG_WAIT_FOREVER : c->wait;
}

/* The user's value, quoted, shortened and with odd bytes escaped. */
static void quote(char *out, size_t cap, const char *val)
{
	size_t len = strlen(val), shown = len < 40 ? len : 40;
	struct sbuf sb;

	sbuf_init(&sb, out, cap);
	sbuf_add(&sb, "\"");
	for (size_t i = 0; i < shown; i++) {
		unsigned char ch = (unsigned char)val[i];

		if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
			sbuf_addf(&sb, "\\x%02x", ch);
		else
			sbuf_addn(&sb, val + i, 1);
	}
	sbuf_add(&sb, shown < len ? "...\"" : "\"");
	if (shown < len)
		sbuf_addf(&sb, " (%zu bytes)", len);
}

static void report(const char *key, const char *val, const char *why,
		   config_err_fn err, void *ctx)
{
	char q[200], msg[CFG_ERR_MAX];

	if (!err)
		return;
	quote(q, sizeof(q), val ? val : "");
	/* union.verity fails closed: its default (off) is never what a bad value gets */
	if (strfmt(msg, sizeof(msg), "ignoring %s=%s: %s; %s", key, q, why, strcmp(key, "union.verity") ?
		   "keeping the default" : "refusing the read-only layers instead of booting them unverified") < 0)
		IGNORE(strcopy(msg, sizeof(msg), "ignoring a parameter: its reason is too long"));
	err(msg, ctx);
}

static int find_name(size_t list, const char *v)
{
	return config_name_index(enum_names + list, v);
}

/* A string value's parse, kept when the value is taken. */
static struct parsed {
	struct spec specs[SPEC_LIST_MAX];
	unsigned n;
	struct verity_arg args[SPEC_LIST_MAX];
} parsed;

static const char *check_string(const struct param *p, const char *v)
{
	static char why[CFG_ERR_MAX];
	int n;

	parsed.n = 0;
	if (strlen(v) >= p->cap)
		return "value is too long";
	switch (p->type) {
	case P_SPECLIST:
		n = spec_list_parse(v, parsed.specs, SPEC_LIST_MAX, why, sizeof(why));
		if (n < 0)
			return why;
		parsed.n = (unsigned)n;
		return NULL;
	case P_UPPER: {
		const char *key = str_find(v, UPPER_KEY);
		char dev[CFG_SPEC_MAX];

		if (strcmp(v, "tmpfs") == 0 || strcmp(v, "none") == 0)
			return NULL;
		/* SPEC[:key=KEYSPEC]: the branch (a LUKS one) and its key file's SPEC */
		if (strcopy(dev, sizeof(dev), v) == 0 && key) /* v fits cap */
			dev[key - v] = '\0';
		if (spec_parse(dev, &parsed.specs[0], why, sizeof(why)) < 0 ||
		    (key && spec_parse(key + strlen(UPPER_KEY), &parsed.specs[1], why, sizeof(why)) < 0))
			return why;
		parsed.n = key ? 2 : 1;
		return !key || parsed.specs[1].npaths ? NULL : "key= names no file (want key=LABEL=KEYS:/path)";
	}
	case P_SPEC:
		if (spec_parse(v, &parsed.specs[0], why, sizeof(why)) < 0)
			return why;
		parsed.n = 1;
		if (p->type == P_SPEC && strcmp(p->key, "union.ubi") == 0 && parsed.specs[0].kind != SPEC_MTD)
			return "want mtd:NAME";
		return NULL;
	case P_PATH:
		if (v[0] != '/')
			return "not an absolute path";
		return NULL;
	case P_OPTS:
		return config_is_opts(v) ? NULL : "mount options hold spaces or control bytes";
	case P_WORD:
		return config_is_word(v) ? NULL : "not a file system type name";
	case P_SIZE:
		return config_is_size(v) ? NULL : "want a size like 256M or 50%";
	case P_VERITY:
		if (!v[0])
			return "no root hash";
		n = verity_args_parse(v, parsed.args, SPEC_LIST_MAX, why, sizeof(why));
		if (n < 0)
			return why;
		parsed.n = (unsigned)n;
		return NULL;
	case P_BYTES: {
		uint64_t bytes;

		if (config_bytes(v, &bytes) < 0 || bytes > CFG_PERSIST_MAX)
			return "want a size like 512M or 4G";
		return bytes < CFG_PERSIST_MIN ? "at least 16M" : NULL;
	}
	case P_STRENUM:
		return find_name(N_FORMAT, v) >= 0
			       ? NULL : "want ext4, f2fs, vfat or jffs2";
	}
	return "unsupported";
}

static int apply_break(int *bits, const char *v)
{
	int out = 0;
	char word[16];

	while (*v) {
		size_t n = strcspn(v, ",");
		int i;

		if (n == 0 || n >= sizeof(word))
			return -EINVAL;
		memcpy(word, v, n);
		word[n] = '\0';
		i = find_name(N_BREAK, word);
		if (i < 0)
			return -EINVAL;
		out |= 1 << i;
		v += n;
		if (*v == ',')
			v++;
	}
	if (!out)
		return -EINVAL;
	*bits = out;
	return 0;
}

/* A flag, number, union.break or enum value into *num; a bad one is
 * reported and leaves *num as it was. */
static int apply_int(const struct param *p, const char *val, int *num, config_err_fn err, void *ctx)
{
	char why[128];
	int rc;

	switch (p->type) {
	case P_FLAG:
		if (!val || strcmp(val, "1") == 0 || strcmp(val, "yes") == 0)
			*num = 1;
		else if (strcmp(val, "0") == 0 || strcmp(val, "no") == 0)
			*num = 0;
		else {
			report(p->key, val, "want no value, 1 or 0", err, ctx);
			return -1;
		}
		return 0;
	case P_UINT:
		rc = val ? config_uint(val, p->min, p->max, num) : -EINVAL;
		if (rc == -ERANGE) {
			IGNORE(strfmt(why, sizeof(why), "out of range %d-%d", p->min, p->max));
			report(p->key, val, why, err, ctx);
		} else if (rc < 0) {
			report(p->key, val, "not a whole number", err, ctx);
		}
		return rc < 0 ? -1 : 0;
	case P_BREAK:
		if (!val)
			*num = p->bare;
		else if (apply_break(num, val) < 0) {
			report(p->key, val, "want modules, mount or switch", err, ctx);
			return -1;
		}
		return 0;
	default: { /* P_ENUM */
		int i = val ? find_name(p->names, val) : p->bare;
		struct sbuf sb;

		if (i >= 0) {
			*num = i;
			return 0;
		}
		sbuf_init(&sb, why, sizeof(why));
		sbuf_add(&sb, "want ");
		for (size_t k = 0; nth_name(p->names, k); k++)
			sbuf_addf(&sb, "%s%s", k ? "|" : "", nth_name(p->names, k));
		IGNORE(sbuf_done(&sb));
		report(p->key, val, why, err, ctx);
		return -1;
	}
	}
}

/* The value of p was taken: its parse goes with it. */
static void keep_parsed(struct config *c, const struct param *p)
{
	if (p->off == offsetof(struct config, upper)) {
		c->upper_is_spec = parsed.n >= 1;
		c->upper_keyed = parsed.n == 2;
		if (parsed.n)
			c->upper_spec = parsed.specs[0];
		if (c->upper_keyed)
			c->upper_key = parsed.specs[1];
	} else if (p->off == offsetof(struct config, lower)) {
		memcpy(c->lower_spec, parsed.specs, sizeof(c->lower_spec));
		c->nlower_spec = parsed.n;
	} else if (p->off == offsetof(struct config, root)) {
		c->root_spec = parsed.specs[0];
	} else if (p->off == offsetof(struct config, verity)) {
		memcpy(c->verity_arg, parsed.args, sizeof(c->verity_arg));
		c->nverity_arg = parsed.n;
	}
}

const struct spec *config_layers(const struct config *c, unsigned *n)
{
	*n = c->lower[0] ? c->nlower_spec : c->root[0] ? 1 : 0;
	return c->lower[0] ? c->lower_spec : &c->root_spec;
}

int config_apply(struct config *c, const char *key, const char *val,
		 config_err_fn err, void *ctx)
{
	const struct param *p = NULL;
	const char *why;
	char *field;
	size_t i;

	if (strcmp(key, "ro") == 0 && !val) {
		c->rorw = RORW_RO;
		return 1;
	}
	if (strcmp(key, "rw") == 0 && !val) {
		c->rorw = RORW_RW;
		return 1;
	}
	if (peers_seen(c, key, val))
		return 1;
	for (i = 0; i < ARRAY_SIZE(params); i++) {
		if (strcmp(params[i].key, key) == 0) {
			p = &params[i];
			break;
		}
	}
	if (!p) {
		if (strncmp(key, "union.", 6) == 0 && strncmp(key, "union.test.", 11) != 0) {
			report(key, val, "unknown parameter", err, ctx);
			return 1;
		}
		return 0;
	}
	field = (char *)c + p->off;
	/* a value taken is the command line's (config_given); a bad one is not */
	if (p->type == P_FLAG || p->type == P_UINT || p->type == P_BREAK || p->type == P_ENUM) {
		if (apply_int(p, val, (int *)(void *)field, err, ctx) == 0)
			c->given |= 1ull << i;
		return 1;
	}
	/* string-valued parameters */
	why = val ? check_string(p, val) : "needs a value";
	if (!why) {
		IGNORE(strcopy(field, p->cap, val));
		keep_parsed(c, p);
		c->given |= 1ull << i;
	} else if (report(p->key, val, why, err, ctx), p->type == P_VERITY)
		IGNORE(strcopy(c->verity_bad, sizeof(c->verity_bad), why)); /* a cut reason still refuses */
	return 1;
}

int config_given(const struct config *c, const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(params); i++)
		if (strcmp(params[i].key, key) == 0)
			return !!(c->given & 1ull << i);
	return 0;
}

struct apply_ctx {
	struct config *c;
	config_err_fn err;
	void *ctx;
};

static void apply_one(const char *key, const char *val, void *ctx)
{
	struct apply_ctx *a = ctx;

	(void)config_apply(a->c, key, val, a->err, a->ctx);
}

void config_apply_text(struct config *c, char *text, int board,
		       config_err_fn err, void *ctx)
{
	static struct config board_layers; /* the board's layers' parses, kept aside */
	struct apply_ctx a = { c, err, ctx };
	char lower[sizeof(c->lower)], root[sizeof(c->root)];

	if (board) {
		cmdline_strip_comments(text);
		(void)cmdline_split(text, apply_one, &a);
		return;
	}
	/* The read-only layers: union.lower= here, else root= here (in any
	 * order), else what the board named. */
	memcpy(lower, c->lower, sizeof(lower));
	memcpy(root, c->root, sizeof(root));
	memcpy(board_layers.lower_spec, c->lower_spec, sizeof(board_layers.lower_spec));
	board_layers.nlower_spec = c->nlower_spec;
	board_layers.root_spec = c->root_spec;
	c->lower[0] = c->root[0] = '\0';
	c->given = 0;
	c->npeer = 0;
	(void)cmdline_split(text, apply_one, &a);
	if (!c->lower[0] && !c->root[0]) {
		memcpy(c->lower, lower, sizeof(lower));
		memcpy(c->root, root, sizeof(root));
		memcpy(c->lower_spec, board_layers.lower_spec, sizeof(c->lower_spec));
		c->nlower_spec = board_layers.nlower_spec;
		c->root_spec = board_layers.root_spec;
	}
	peers_resolve(c, err, ctx);
}
