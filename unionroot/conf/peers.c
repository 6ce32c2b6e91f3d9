// SPDX-License-Identifier: MIT
/* Other live systems' parameters: recognised, said, and under union.compat=
 * acted on where they mean what a union.* parameter means (peers.h). The
 * rows are the mapping doc/unionroot.cmdline.7 shows ("Other live systems'
 * parameters"). */
#include "conf/peers.h"

#include <string.h>

#include "conf/config_values.h"
#include "lib/defs.h"
#include "lib/sbuf.h"

/* The rows, in the order of the names below: live-boot's, casper's,
 * dracut's, overlayroot's. */
enum {
	R_BOOT, R_PERSISTENCE, R_PERSISTENCE_LABEL, R_TORAM, R_FINDISO, R_PERSISTENT,
	R_ROOT, R_RD_LIVE_IMAGE, R_RD_LIVE_OVERLAY, R_ISO_SCAN, R_RD_LIVE_RAM, R_OVERLAYROOT,
};
static const char keys[] = "boot\0persistence\0persistence-label\0toram\0findiso\0persistent\0"
	"root\0rd.live.image\0rd.live.overlay\0iso-scan/filename\0rd.live.ram\0overlayroot\0";
static const char families[] = "live-boot\0casper\0dracut\0overlayroot\0";

static unsigned family(unsigned r)
{
	return r < R_PERSISTENT ? 0 : r == R_PERSISTENT ? 1 : r < R_OVERLAYROOT ? 2 : 3;
}

/* The union.compat= value that acts on row r: casper's with live-boot's. */
static int compat_of(unsigned r)
{
	static const unsigned char compat[] = { COMPAT_LIVEBOOT, COMPAT_LIVEBOOT, COMPAT_DRACUT, COMPAT_NONE };

	return compat[family(r)];
}

/* The rows that want a value: without one, they are said and ignored. */
#define VALUED (1u << R_PERSISTENCE_LABEL | 1u << R_FINDISO | 1u << R_RD_LIVE_OVERLAY | \
		1u << R_ISO_SCAN | 1u << R_OVERLAYROOT)

/* dracut's image on a live medium, where live-boot's is union.image */
#define DRACUT_IMAGE "/LiveOS/squashfs.img"

int peers_seen(struct config *c, const char *key, const char *val)
{
	int r = config_name_index(keys, key);
	unsigned i;

	/* boot= and root= are a peer's only as boot=live|casper and root=live: */
	if (r < 0 || (r == R_BOOT && (!val || (strcmp(val, "live") && strcmp(val, "casper")))) ||
	    (r == R_ROOT && (!val || strncmp(val, "live:", 5))))
		return 0;
	for (i = 0; i < c->npeer && c->peer[i].row != r; i++)
		;
	if (i == CFG_PEERS)
		return 1; /* more than CFG_PEERS kinds: the rest go unsaid */
	c->npeer += i == c->npeer;
	c->peer[i].row = (unsigned char)r;
	c->peer[i].val = val; /* the command line's text outlives config_apply_text */
	return 1;
}

static const char *value_of(const struct config *c, unsigned row)
{
	for (unsigned i = 0; i < c->npeer; i++)
		if (c->peer[i].row == row)
			return c->peer[i].val ? c->peer[i].val : "";
	return NULL;
}

/* Short enough for a SPEC; printable, no quote or backslash, so that a
 * message stays one line. */
static int plain(const char *v)
{
	if (!*v || strlen(v) >= CFG_SPEC_MAX)
		return 0;
	for (; *v; v++)
		if ((unsigned char)*v <= 0x20 || (unsigned char)*v >= 0x7f || *v == '"' || *v == '\\')
			return 0;
	return 1;
}

/* What row r with value v means here: union.* parameters (space between)
 * into means, 1; or why it means nothing here, 0. */
static int meaning(const struct config *c, unsigned r, const char *v, struct sbuf *means)
{
	const char *label = value_of(c, R_PERSISTENCE_LABEL);
	int cd = r == R_ROOT && strncmp(v + 5, "CDLABEL=", 8) == 0; /* a label as any other */

	switch (r) {
	case R_BOOT:
		sbuf_add(means, "union.lower=auto");
		break;
	case R_PERSISTENCE:
	case R_PERSISTENT:
		sbuf_addf(means, "union.upper=LABEL=%s union.scan=removable",
			  r == R_PERSISTENT ? "casper-rw" : label && *label ? label : "persistence");
		break;
	case R_TORAM:
	case R_RD_LIVE_RAM:
		sbuf_add(means, "union.toram");
		break;
	case R_FINDISO:
	case R_ISO_SCAN:
		sbuf_addf(means, "union.lower=auto:%s:%s", v, r == R_FINDISO ? c->image : DRACUT_IMAGE);
		break;
	case R_ROOT:
		sbuf_addf(means, "union.lower=%s%s:" DRACUT_IMAGE, cd ? "LABEL=" : "", v + 5 + 8 * cd);
		break;
	case R_OVERLAYROOT:
		if (strcmp(v, "tmpfs") == 0 || (strncmp(v, "device:dev=", 11) == 0 && !strchr(v, ','))) {
			sbuf_addf(means, "union.upper=%s", v + (*v == 'd') * 11);
			break;
		}
		FALLTHROUGH;
	case R_RD_LIVE_OVERLAY:
		sbuf_add(means, "a form this does not read; name the writable branch with union.upper=");
		return 0;
	case R_PERSISTENCE_LABEL:
		sbuf_add(means, value_of(c, R_PERSISTENCE) ? "the label persistence looks for" :
			 "it means nothing without persistence");
		return 0;
	default: /* R_RD_LIVE_IMAGE */
		sbuf_add(means, "it says no more than root=live: does");
		return 0;
	}
	return 1;
}

/* Each "key[=value]" of means in turn: the first the command line named
 * (root= names union.lower too), or with act, each applied. */
static const char *each(struct config *c, char *means, int act, config_err_fn err, void *ctx)
{
	for (char *word = means, *next; *word; word = next) {
		char *eq;

		next = word + strcspn(word, " ");
		if (*next)
			*next++ = '\0';
		eq = strchr(word, '=');
		if (eq)
			*eq = '\0';
		if (act)
			(void)config_apply(c, word, eq ? eq + 1 : NULL, err, ctx);
		else if (config_given(c, word) || (strcmp(word, "union.lower") == 0 && config_given(c, "root")))
			return word;
	}
	return NULL;
}

void peers_resolve(struct config *c, config_err_fn err, void *ctx)
{
	uint64_t named = c->given; /* the command line's, not what a peer acts as */
	struct sbuf said;

	sbuf_init(&said, c->peer_said, sizeof(c->peer_said));
	for (unsigned i = 0; i < c->npeer; i++) {
		unsigned r = c->peer[i].row;
		const char *v = c->peer[i].val, *key = config_name_nth(keys, r);
		const char *fam = config_name_nth(families, family(r));
		char means[CFG_SPEC_MAX + 80], words[sizeof(means)];
		const char *given, *cname = config_name_nth(families, compat_of(r) == COMPAT_DRACUT ? 2 : 0);
		struct sbuf m;
		int compat = compat_of(r);

		if ((v || (VALUED >> r & 1)) && !plain(v ? v : "")) {
			sbuf_addf(&said, "%s (%s): ignored, its value is empty, too long or holds bytes a SPEC cannot\n",
				  key, fam);
			continue;
		}
		sbuf_addf(&said, "%s%s%s (%s)", key, v ? "=" : "", v ? v : "", fam);
		sbuf_init(&m, means, sizeof(means));
		if (!meaning(c, r, v ? v : "", &m)) {
			sbuf_addf(&said, ": %s\n", means);
			continue;
		}
		if (sbuf_done(&m) < 0) {
			sbuf_add(&said, ": ignored, what it means here is too long\n");
			continue;
		}
		memcpy(words, means, sizeof(words));
		given = each(c, words, 0, err, ctx);
		if (compat == COMPAT_NONE)
			sbuf_addf(&said, " means %s here; not acted on: write that\n", means);
		else if (c->compat != compat)
			sbuf_addf(&said, " means %s here; acted on with union.compat=%s\n", means, cname);
		else if (given)
			sbuf_addf(&said, " means %s here; the command line's %s= wins\n", means, given);
		else {
			sbuf_addf(&said, " acts as %s (union.compat=%s)\n", means, cname);
			(void)each(c, means, 1, err, ctx);
			c->given = named;
		}
	}
	if (sbuf_done(&said) < 0)
		IGNORE(strcopy(c->peer_said + sizeof(c->peer_said) - 5, 5, "...\n"));
}
