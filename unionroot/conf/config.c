// SPDX-License-Identifier: MIT
/* Boot configuration: a table of parameters, one row each, and the checks
 * that turn a bad value into a named error and the default. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "cmdline.h"
#include "sbuf.h"
#include "spec.h"
#include "verity.h"

enum ptype {
	P_SPECLIST, /* union.lower */
	P_UPPER,    /* SPEC | tmpfs | none */
	P_SPEC,     /* root=, union.ubi */
	P_PATH,     /* absolute path */
	P_OPTS,     /* mount options */
	P_WORD,     /* fs type */
	P_ENUM,     /* one of names[] */
	P_UINT,     /* min..max */
	P_FLAG,     /* bare, =1 or =0 */
	P_SIZE,     /* tmpfs size: N[kKmMgG] or N% */
	P_BYTES,    /* a file's size: N[KMGT], at least CFG_PERSIST_MIN */
	P_BREAK,    /* comma list of phases */
	P_VERITY,   /* union.verity: verity_args_parse */
};

struct param {
	const char *key;
	int type;
	size_t off;
	size_t cap;                /* strings: buffer size; enums: count of names */
	const char *const *names;  /* P_ENUM */
	int min, max;              /* P_UINT */
	int bare;                  /* value given without '=' (P_ENUM, P_UINT) */
};

static const char *const mode_names[] = { "auto", "overlay", "copyup" };
static const char *const onfail_names[] = { "tmpfs", "shell", "reboot", "halt" };
static const char *const reset_names[] = { "0", "1", "keep" };
static const char *const upgrade_names[] = { "keep", "reset", "keeplist" };
static const char *const scan_names[] = { "all", "removable" };
static const char *const drivers_names[] = { "boot", "all" };
static const char *const removable_names[] = { "nodev,nosuid", "nodev", "none" };
static const char *const session_names[] = { "persistent", "volatile" };
static const char *const format_names[] = { "ext4", "f2fs", "vfat", "jffs2" };
static const char *const onerror_names[] = { "eio", "restart", "panic" };
static const char *const break_names[] = { "modules", "mount", "switch" };

#define STR(k, t, f) { k, t, offsetof(struct config, f), sizeof(((struct config *)0)->f), NULL, 0, 0, 0 }
#define ENUM(k, f, n, bare) { k, P_ENUM, offsetof(struct config, f), ARRAY_SIZE(n), n, 0, 0, bare }
#define UINT(k, f, lo, hi) { k, P_UINT, offsetof(struct config, f), 0, NULL, lo, hi, 0 }
#define FLAG(k, f) { k, P_FLAG, offsetof(struct config, f), 0, NULL, 0, 1, 1 }

static const struct param params[] = {
	STR("union.lower", P_SPECLIST, lower),
	STR("union.image", P_PATH, image),
	STR("union.upper", P_UPPER, upper),
	STR("union.upperfs", P_WORD, upperfs),
	STR("union.upperflags", P_OPTS, upperflags),
	ENUM("union.mode", mode, mode_names, -1),
	UINT("union.wait", wait, 0, 3600),
	ENUM("union.reset", reset, reset_names, RESET_ON),
	ENUM("union.onfail", onfail, onfail_names, -1),
	{ "union.break", P_BREAK, offsetof(struct config, brk), 0, NULL, 0, 0, BREAK_MOUNT },
	FLAG("union.toram", toram),
	ENUM("union.upgrade", upgrade, upgrade_names, -1),
	UINT("union.maxfails", maxfails, 0, 1000),
	ENUM("union.session", session_volatile, session_names, -1),
	STR("union.size", P_SIZE, size),
	STR("union.persist.size", P_BYTES, persist_size),
	ENUM("union.scan", scan, scan_names, -1),
	ENUM("union.drivers", drivers, drivers_names, -1),
	ENUM("union.removable", removable, removable_names, -1),
	STR("union.format", P_ENUM, format),
	STR("union.ubi", P_SPEC, ubi),
	STR("union.verity", P_VERITY, verity),
	ENUM("union.verity.onerror", verity_onerror, onerror_names, -1),
	FLAG("union.fsck", fsck),
	UINT("union.warnfull", warnfull, 1, 100),
	STR("union.init", P_PATH, init),
	FLAG("union.debug", debug),
	STR("union.test.crashafter", P_WORD, crashafter),
	UINT("union.test.stall", stall, 0, 600),
	FLAG("quiet", quiet),
	STR("root", P_SPEC, root),
	STR("rootfstype", P_WORD, rootfstype),
	STR("rootflags", P_OPTS, rootflags),
	FLAG("rootwait", rootwait),
	UINT("rootdelay", rootdelay, 0, 3600),
	STR("init", P_PATH, init),
};

void config_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->wait = 10;
	c->fsck = 1;
	c->warnfull = 90;
	c->rootdelay = -1;
	IGNORE(strcopy(c->image, sizeof(c->image), "/live/filesystem.squashfs"));
}

const char *const config_inits[CFG_INITS] = { "/sbin/init", "/etc/init", "/bin/init", "/bin/sh" };

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
	return mode >= 0 && (size_t)mode < ARRAY_SIZE(mode_names) ? mode_names[mode] : "?";
}

const char *config_onfail_name(int onfail)
{
	return onfail >= 0 && (size_t)onfail < ARRAY_SIZE(onfail_names) ? onfail_names[onfail] : "?";
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

static void report(const struct param *p, const char *val, const char *why,
		   config_err_fn err, void *ctx)
{
	char q[200], msg[CFG_ERR_MAX];

	if (!err)
		return;
	quote(q, sizeof(q), val ? val : "");
	if (strfmt(msg, sizeof(msg), "ignoring %s=%s: %s; keeping the default", p->key, q, why) < 0)
		IGNORE(strcopy(msg, sizeof(msg), "ignoring a parameter: its reason is too long"));
	err(msg, ctx);
}

static int parse_uint(const char *v, int min, int max, int *out)
{
	long n = 0;

	if (!*v)
		return -EINVAL;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return -EINVAL;
		n = n * 10 + (*v - '0');
		if (n > max)
			return -ERANGE;
	}
	if (n < min)
		return -ERANGE;
	*out = (int)n;
	return 0;
}

static int is_word(const char *v)
{
	if (!*v)
		return 0;
	for (; *v; v++)
		if (!((*v >= 'a' && *v <= 'z') || (*v >= '0' && *v <= '9') || *v == '_' || *v == '.'))
			return 0;
	return 1;
}

static int is_opts(const char *v)
{
	for (; *v; v++)
		if ((unsigned char)*v <= 0x20 || (unsigned char)*v >= 0x7f)
			return 0;
	return 1;
}

static int is_size(const char *v)
{
	int n;
	size_t len = strlen(v);
	char digits[16];

	if (len == 0 || len >= sizeof(digits))
		return 0;
	memcpy(digits, v, len + 1);
	if (digits[len - 1] == '%') {
		digits[len - 1] = '\0';
		return parse_uint(digits, 1, 100, &n) == 0;
	}
	if (strchr("kKmMgG", digits[len - 1]))
		digits[len - 1] = '\0';
	return parse_uint(digits, 1, 999999999, &n) == 0;
}

int config_bytes(const char *v, uint64_t *out)
{
	static const char units[] = "KMGT";
	uint64_t n = 0;
	const char *u;

	if (*v < '0' || *v > '9')
		return -EINVAL;
	for (; *v >= '0' && *v <= '9'; v++) {
		if (n > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		n = n * 10 + (uint64_t)(*v - '0');
	}
	u = *v ? strchr(units, *v >= 'a' ? *v - 32 : *v) : NULL;
	if (*v && (!u || v[1]))
		return -EINVAL;
	for (const char *k = units; u && k <= u; k++) {
		if (n > UINT64_MAX >> 10)
			return -ERANGE;
		n <<= 10;
	}
	*out = n;
	return 0;
}

static int find_name(const char *const *names, size_t count, const char *v)
{
	for (size_t i = 0; i < count; i++)
		if (strcmp(names[i], v) == 0)
			return (int)i;
	return -1;
}

static const char *check_string(const struct param *p, const char *v)
{
	struct spec specs[SPEC_LIST_MAX];
	static char why[CFG_ERR_MAX];

	if (strlen(v) >= p->cap)
		return "value is too long";
	switch (p->type) {
	case P_SPECLIST:
		if (spec_list_parse(v, specs, SPEC_LIST_MAX, why, sizeof(why)) < 0)
			return why;
		return NULL;
	case P_UPPER:
		if (strcmp(v, "tmpfs") == 0 || strcmp(v, "none") == 0)
			return NULL;
		FALLTHROUGH;
	case P_SPEC:
		if (spec_parse(v, &specs[0], why, sizeof(why)) < 0)
			return why;
		if (p->type == P_SPEC && strcmp(p->key, "union.ubi") == 0 && specs[0].kind != SPEC_MTD)
			return "want mtd:NAME";
		return NULL;
	case P_PATH:
		if (v[0] != '/')
			return "not an absolute path";
		return NULL;
	case P_OPTS:
		return is_opts(v) ? NULL : "mount options hold spaces or control bytes";
	case P_WORD:
		return is_word(v) ? NULL : "not a file system type name";
	case P_SIZE:
		return is_size(v) ? NULL : "want a size like 256M or 50%";
	case P_VERITY: {
		struct verity_arg args[SPEC_LIST_MAX];

		return verity_args_parse(v, args, SPEC_LIST_MAX, why, sizeof(why)) < 0 ? why : NULL;
	}
	case P_BYTES: {
		uint64_t n;

		if (config_bytes(v, &n) < 0 || n > CFG_PERSIST_MAX)
			return "want a size like 512M or 4G";
		return n < CFG_PERSIST_MIN ? "at least 16M" : NULL;
	}
	case P_ENUM: /* string-valued enum: union.format */
		return find_name(format_names, ARRAY_SIZE(format_names), v) >= 0
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
		i = find_name(break_names, ARRAY_SIZE(break_names), word);
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

int config_apply(struct config *c, const char *key, const char *val,
		 config_err_fn err, void *ctx)
{
	const struct param *p = NULL;
	char *field;
	int *num;
	int rc;

	if (strcmp(key, "ro") == 0 && !val) {
		c->rorw = RORW_RO;
		return 1;
	}
	if (strcmp(key, "rw") == 0 && !val) {
		c->rorw = RORW_RW;
		return 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(params); i++) {
		if (strcmp(params[i].key, key) == 0) {
			p = &params[i];
			break;
		}
	}
	if (!p) {
		if (strncmp(key, "union.", 6) == 0 && strncmp(key, "union.test.", 11) != 0) {
			const struct param unknown = { .key = key };

			report(&unknown, val, "unknown parameter", err, ctx);
			return 1;
		}
		return 0;
	}
	field = (char *)c + p->off;
	num = (int *)(void *)field;

	switch (p->type) {
	case P_FLAG:
		if (!val || strcmp(val, "1") == 0 || strcmp(val, "yes") == 0)
			*num = 1;
		else if (strcmp(val, "0") == 0 || strcmp(val, "no") == 0)
			*num = 0;
		else
			report(p, val, "want no value, 1 or 0", err, ctx);
		return 1;
	case P_UINT:
		rc = val ? parse_uint(val, p->min, p->max, num) : -EINVAL;
		if (rc == -ERANGE) {
			char why[64];

			IGNORE(strfmt(why, sizeof(why), "out of range %d-%d", p->min, p->max));
			report(p, val, why, err, ctx);
		} else if (rc < 0) {
			report(p, val, "not a whole number", err, ctx);
		}
		return 1;
	case P_BREAK:
		if (!val)
			*num = p->bare;
		else if (apply_break(num, val) < 0)
			report(p, val, "want modules, mount or switch", err, ctx);
		return 1;
	case P_ENUM:
		if (p->names) {
			int i = val ? find_name(p->names, p->cap, val) : p->bare;

			if (i < 0) {
				char why[128];
				struct sbuf sb;

				sbuf_init(&sb, why, sizeof(why));
				sbuf_add(&sb, "want ");
				for (size_t k = 0; k < p->cap; k++)
					sbuf_addf(&sb, "%s%s", k ? "|" : "", p->names[k]);
				IGNORE(sbuf_done(&sb));
				report(p, val, why, err, ctx);
			} else {
				*num = i;
			}
			return 1;
		}
		break;
	default:
		break;
	}
	/* string-valued parameters */
	{
		const char *why = val ? check_string(p, val) : "needs a value";

		if (why)
			report(p, val, why, err, ctx);
		else
			IGNORE(strcopy(field, p->cap, val));
	}
	return 1;
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
	c->lower[0] = c->root[0] = '\0';
	(void)cmdline_split(text, apply_one, &a);
	if (!c->lower[0] && !c->root[0]) {
		memcpy(c->lower, lower, sizeof(lower));
		memcpy(c->root, root, sizeof(root));
	}
}
