// SPDX-License-Identifier: MIT
/* The status record as a struct: the writer PID 1 calls and the parser of
 * `unionroot status`, one pair so the two cannot drift (tests/fuzz/
 * fuzz_status.c holds parse(write(s)) == s). Lines and escaping: record.h. */
#include "lib/runstate.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "lib/lines.h"

static const char *str(const char *s)
{
	return s ? s : "";
}

int runstate_write(const struct runstate *rs, struct sbuf *sb)
{
	record_addf(sb, "backend=%s", str(rs->backend));
	if (*str(rs->mode))
		record_addf(sb, "mode=%s", rs->mode);
	for (unsigned i = 0; i < rs->nlower && i < RUNSTATE_LOWER_MAX; i++) {
		const struct runstate_lower *l = &rs->lower[i];

		record_addf(sb, "lower%u=%s %s %s " RUN_LOWER_FMT, i + 1, str(l->spec), str(l->dev),
			    str(l->type), i);
		if (*str(l->image))
			record_addf(sb, "lower%u_image=%s", i + 1, l->image);
		record_addf(sb, "lower%u_verity=%s", i + 1, str(l->verity));
		if (*str(l->driver))
			record_addf(sb, "lower%u_driver=%s", i + 1, l->driver);
	}
	if (rs->upper_kind == RUNSTATE_UPPER_DEVICE)
		record_addf(sb, "upper=%s %s %s " RWDIR, str(rs->upper_spec), str(rs->upper_dev),
			    str(rs->upper_type));
	else if (rs->upper_kind == RUNSTATE_UPPER_TMPFS)
		record_addf(sb, "upper=tmpfs - tmpfs " RWDIR);
	else
		record_addf(sb, "upper=none");
	if (*str(rs->upper_image))
		record_addf(sb, "upper_image=%s", rs->upper_image);
	if (*str(rs->upper_driver))
		record_addf(sb, "upper_driver=%s", rs->upper_driver);
	if (*str(rs->upper_luks))
		record_addf(sb, "upper_luks=%s", rs->upper_luks);
	record_addf(sb, "upper_state=%s", str(rs->upper_state));
	record_addf(sb, "drivers_left=%s", str(rs->drivers_left));
	if (*str(rs->root_flags))
		record_addf(sb, "root_flags=%s", rs->root_flags);
	record_addf(sb, "warnfull=%d", rs->warnfull);
	record_addf(sb, "overlay_options=%s", str(rs->overlay_options));
	record_addf(sb, "reset=%s", rs->reset_applied ? "applied" : "none");
	if (rs->reset_applied) {
		record_addf(sb, "reset_why=%s", str(rs->reset_why));
		record_addf(sb, "reset_kept=%u", rs->reset_kept);
		record_addf(sb, "reset_refused=%u", rs->reset_refused);
	}
	record_addf(sb, "failsafe=%s", str(rs->failsafe));
	if (rs->saved)
		record_addf(sb, "saved=" SAVEDIR);
	record_addf(sb, "maxfails=%d", rs->maxfails);
	record_addf(sb, "boots_at_boot=%u", rs->boots_at_boot);
	for (unsigned i = 0; i < rs->nlower_id && i < RUNSTATE_LOWER_MAX; i++)
		record_addf(sb, "lower%u_id=%s", i + 1, str(rs->lower_id[i]));
	record_addf(sb, "lower_changed=%s", rs->lower_changed ? "yes" : "no");
	if (*str(rs->upgrade))
		record_addf(sb, "upgrade=%s", rs->upgrade);
	record_addf(sb, "pid1_ms=%llu modules=%llu devices=%llu mounts=%llu",
		    (unsigned long long)rs->pid1_ms, (unsigned long long)rs->modules_ms,
		    (unsigned long long)rs->devices_ms, (unsigned long long)rs->mounts_ms);
	if (rs->fsck_ms)
		record_addf(sb, "fsck_ms=%llu", (unsigned long long)rs->fsck_ms);
	if (*str(rs->tools))
		record_addf(sb, "tools=%s", rs->tools);
	for (unsigned i = 0; i < rs->nmessage && i < RUNSTATE_MESSAGES_MAX; i++)
		record_addf(sb, "message=%s", str(rs->message[i]));
	if (rs->handoff)
		return runstate_write_handoff(rs, sb);
	return sb->err ? -ENAMETOOLONG : 0;
}

int runstate_write_handoff(const struct runstate *rs, struct sbuf *sb)
{
	record_addf(sb, "handoff_ms=%llu rss_kib=%llu memfree_before_kib=%llu",
		    (unsigned long long)rs->handoff_ms, (unsigned long long)rs->rss_kib,
		    (unsigned long long)rs->memfree_before_kib);
	return sb->err ? -ENAMETOOLONG : 0;
}

/* ---- the parser ---- */

enum kind { K_STR, K_INT, K_U32, K_U64, K_YESNO, K_RESET, K_SAVED, K_UPPER, K_PID1, K_HANDOFF };

/* A key that appears once, and where its value goes. Arrays, not pointers:
 * static-pie relocates each pointer. */
struct key_row {
	char key[16];
	unsigned char kind;
	unsigned short off;
};

#define ROW(k, kind, field) { k, kind, offsetof(struct runstate, field) }
static const struct key_row keys[] = {
	ROW("backend", K_STR, backend),
	ROW("mode", K_STR, mode),
	ROW("upper", K_UPPER, upper_kind),
	ROW("upper_image", K_STR, upper_image),
	ROW("upper_driver", K_STR, upper_driver),
	ROW("upper_luks", K_STR, upper_luks),
	ROW("upper_state", K_STR, upper_state),
	ROW("drivers_left", K_STR, drivers_left),
	ROW("root_flags", K_STR, root_flags),
	ROW("warnfull", K_INT, warnfull),
	ROW("overlay_options", K_STR, overlay_options),
	ROW("reset", K_RESET, reset_applied),
	ROW("reset_why", K_STR, reset_why),
	ROW("reset_kept", K_U32, reset_kept),
	ROW("reset_refused", K_U32, reset_refused),
	ROW("failsafe", K_STR, failsafe),
	ROW("saved", K_SAVED, saved),
	ROW("maxfails", K_INT, maxfails),
	ROW("boots_at_boot", K_U32, boots_at_boot),
	ROW("lower_changed", K_YESNO, lower_changed),
	ROW("upgrade", K_STR, upgrade),
	ROW("pid1_ms", K_PID1, pid1_ms),
	ROW("fsck_ms", K_U64, fsck_ms),
	ROW("tools", K_STR, tools),
	ROW("handoff_ms", K_HANDOFF, handoff_ms),
};

/* The indexed keys' suffixes: lowerN, lowerN_image, ... */
enum lower_field { LF_LAYER, LF_IMAGE, LF_VERITY, LF_DRIVER, LF_ID, LF_COUNT };
static const char lower_suffix[LF_COUNT][8] = { "", "_image", "_verity", "_driver", "_id" };

struct parser {
	struct runstate *rs;
	char *why;
	size_t why_cap;
	unsigned line;
	size_t used;                   /* of rs->text */
	uint32_t seen;                 /* keys[] rows, by index */
	unsigned char lower_seen[RUNSTATE_LOWER_MAX]; /* lower_field bits */
};

/* -EINVAL, with "line N: 'WHAT' REASON" in why (WHAT cut at 40 bytes) */
static int bad(struct parser *p, const char *what, size_t what_len, const char *reason)
{
	if (p->why_cap && strfmt(p->why, p->why_cap, "line %u: '%.*s' %s", p->line,
				 (int)(what_len > 40 ? 40 : what_len), what, reason) < 0)
		p->why[0] = '\0';
	/* one line on a terminal, whatever bytes the record held */
	for (char *c = p->why; p->why_cap && *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -EINVAL;
}

/* A decimal number up to max and nothing else: 0, or -1. */
static int decimal(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t n = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || n > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	*out = n;
	return 0;
}

static int integer(const char *s, int *out)
{
	uint64_t v;
	int neg = *s == '-';

	if (decimal(s + neg, (uint64_t)0x7fffffff + (uint64_t)neg, &v) < 0)
		return -1;
	*out = neg ? (int)(-(int64_t)v) : (int)v;
	return 0;
}

/* "N NAME=N NAME=N ..." (the first number's name is the key), in place:
 * the numbers into out, in order. */
static int numbers(char *s, const char names[][20], unsigned n, uint64_t *out)
{
	for (unsigned i = 0; i < n; i++) {
		char *end = strchr(s, ' ');
		size_t len = strlen(names[i]);

		if (i && (strncmp(s, names[i], len) != 0 || s[len] != '='))
			return -1;
		if (i)
			s += len + 1;
		if ((end != NULL) != (i + 1 < n))
			return -1;
		if (end)
			*end = '\0';
		if (decimal(s, UINT64_MAX, &out[i]) < 0)
			return -1;
		if (end)
			s = end + 1;
	}
	return 0;
}

/* "SPEC DEV TYPE PATH": split at its last three spaces, in place. */
static int layer(char *v, const char **spec, const char **dev, const char **type)
{
	char *sp[3];

	for (int k = 0; k < 3; k++) {
		sp[k] = strrchr(v, ' ');
		if (!sp[k])
			return -1;
		*sp[k] = '\0';
	}
	/* sp[0] before the path, sp[1] before the type, sp[2] before the device */
	if (!sp[1][1] || !sp[2][1] || !sp[0][1] || sp[0][1] != '/')
		return -1;
	*spec = v;
	*dev = sp[2] + 1;
	*type = sp[1] + 1;
	return 0;
}

static int singleton(struct parser *p, const struct key_row *row, char *v)
{
	char *field = (char *)p->rs + row->off;
	static const char pid1[4][20] = { "pid1_ms", "modules", "devices", "mounts" };
	static const char handoff[3][20] = { "handoff_ms", "rss_kib", "memfree_before_kib" };
	uint64_t n[4];

	switch (row->kind) {
	case K_STR:
		*(const char **)field = v;
		return 0;
	case K_INT:
		return integer(v, (int *)field);
	case K_U32:
		if (decimal(v, 0xffffffffu, n) < 0)
			return -1;
		*(unsigned *)field = (unsigned)n[0];
		return 0;
	case K_U64:
		return decimal(v, UINT64_MAX, (uint64_t *)field);
	case K_YESNO:
	case K_RESET:
		if (strcmp(v, row->kind == K_YESNO ? "yes" : "applied") == 0)
			*(int *)field = 1;
		else if (strcmp(v, row->kind == K_YESNO ? "no" : "none") == 0)
			*(int *)field = 0;
		else
			return -1;
		return 0;
	case K_SAVED:
		*(int *)field = 1;
		return 0;
	case K_UPPER:
		if (strcmp(v, "none") == 0) {
			p->rs->upper_kind = RUNSTATE_UPPER_NONE;
		} else if (strcmp(v, "tmpfs - tmpfs " RWDIR) == 0) {
			p->rs->upper_kind = RUNSTATE_UPPER_TMPFS;
		} else {
			p->rs->upper_kind = RUNSTATE_UPPER_DEVICE;
			return layer(v, &p->rs->upper_spec, &p->rs->upper_dev, &p->rs->upper_type);
		}
		return 0;
	case K_PID1:
		if (numbers(v, pid1, 4, n) < 0)
			return -1;
		p->rs->pid1_ms = n[0];
		p->rs->modules_ms = n[1];
		p->rs->devices_ms = n[2];
		p->rs->mounts_ms = n[3];
		return 0;
	case K_HANDOFF:
		if (numbers(v, handoff, 3, n) < 0)
			return -1;
		p->rs->handoff = 1;
		p->rs->handoff_ms = n[0];
		p->rs->rss_kib = n[1];
		p->rs->memfree_before_kib = n[2];
		return 0;
	}
	return -1;
}

/* lowerN and lowerN_SUFFIX: 1 when key is one (*index from 0, *field), 0
 * when it is not, -1 when N is out of range. */
static int lower_key(const char *key, size_t len, unsigned *index, unsigned *field)
{
	const char *p = key + 5, *end = key + len;
	uint64_t n = 0;

	if (len < 6 || memcmp(key, "lower", 5) != 0 || *p < '1' || *p > '9')
		return 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++)
		if (n <= RUNSTATE_LOWER_MAX)
			n = n * 10 + (uint64_t)(*p - '0');
	for (unsigned f = 0; f < LF_COUNT; f++) {
		size_t slen = strlen(lower_suffix[f]);

		if ((size_t)(end - p) == slen && memcmp(p, lower_suffix[f], slen) == 0) {
			if (n > RUNSTATE_LOWER_MAX)
				return -1;
			*index = (unsigned)n - 1;
			*field = f;
			return 1;
		}
	}
	return 0;
}

static int indexed(struct parser *p, const struct record_line *l, unsigned i, unsigned f, char *v)
{
	struct runstate *rs = p->rs;
	struct runstate_lower *lw = &rs->lower[i];

	if (f == LF_ID) {
		if (i != rs->nlower_id)
			return bad(p, l->key, l->key_len, "out of order");
		rs->lower_id[rs->nlower_id++] = v;
		return 0;
	}
	if (f == LF_LAYER) {
		if (i != rs->nlower)
			return bad(p, l->key, l->key_len, "out of order");
		if (layer(v, &lw->spec, &lw->dev, &lw->type) < 0)
			return bad(p, l->key, l->key_len, "is not SPEC DEVICE TYPE PATH");
		rs->nlower++;
		return 0;
	}
	if (i >= rs->nlower)
		return bad(p, l->key, l->key_len, "comes before its layer's line");
	if (p->lower_seen[i] & (1u << f))
		return bad(p, l->key, l->key_len, "twice");
	p->lower_seen[i] |= (unsigned char)(1u << f);
	if (f == LF_IMAGE)
		lw->image = v;
	else if (f == LF_VERITY)
		lw->verity = v;
	else
		lw->driver = v;
	return 0;
}

/* One KEY=VALUE line, its value decoded into rs->text. */
static int one_line(struct parser *p, const struct record_line *l)
{
	struct runstate *rs = p->rs;
	char *v = rs->text + p->used;
	unsigned i, f;
	int rc;

	if (p->used + l->val_len + 1 > sizeof(rs->text))
		return bad(p, l->key, l->key_len, "ends a record longer than a status record can be");
	p->used += record_unescape(l->val, l->val_len, v) + 1;
	if (l->key_len == 7 && memcmp(l->key, "message", 7) == 0) {
		if (rs->nmessage == RUNSTATE_MESSAGES_MAX)
			return bad(p, l->key, l->key_len, "more than 16 times");
		rs->message[rs->nmessage++] = v;
		return 0;
	}
	rc = lower_key(l->key, l->key_len, &i, &f);
	if (rc < 0)
		return bad(p, l->key, l->key_len, "names more layers than 8");
	if (rc > 0)
		return indexed(p, l, i, f, v);
	for (unsigned k = 0; k < ARRAY_SIZE(keys); k++) {
		if (strlen(keys[k].key) != l->key_len || memcmp(keys[k].key, l->key, l->key_len) != 0)
			continue;
		if (p->seen & (1u << k))
			return bad(p, l->key, l->key_len, "twice");
		p->seen |= 1u << k;
		if (singleton(p, &keys[k], v) < 0)
			return bad(p, l->key, l->key_len, "has a value it cannot have");
		return 0;
	}
	return 0; /* a key of a later version */
}

int runstate_parse(const char *text, struct runstate *rs, char *why, size_t why_cap)
{
	struct parser p = { .rs = rs, .why = why, .why_cap = why_cap };
	const char *next = text;
	struct line ln;
	int rc;

	memset(rs, 0, offsetof(struct runstate, text));
	if (why_cap)
		why[0] = '\0';
	while (line_next(&next, &ln)) {
		struct record_line l;
		const char *one = ln.s;

		p.line++;
		if (!ln.terminated)
			return bad(&p, ln.s, ln.len, "has no newline at its end: the record is cut");
		if (!record_next(&one, &l) || l.key != ln.s)
			return bad(&p, ln.s, ln.len, "is no KEY=VALUE line");
		rc = one_line(&p, &l);
		if (rc < 0)
			return rc;
	}
	/* what is absent reads as "" */
	for (unsigned k = 0; k < ARRAY_SIZE(keys); k++)
		if (keys[k].kind == K_STR && !*(const char **)((char *)rs + keys[k].off))
			*(const char **)((char *)rs + keys[k].off) = "";
	if (rs->upper_kind != RUNSTATE_UPPER_DEVICE)
		rs->upper_spec = rs->upper_dev = rs->upper_type = "";
	for (unsigned i = 0; i < rs->nlower; i++) {
		struct runstate_lower *lw = &rs->lower[i];

		lw->image = lw->image ? lw->image : "";
		lw->verity = lw->verity ? lw->verity : "";
		lw->driver = lw->driver ? lw->driver : "";
	}
	return 0;
}
