// SPDX-License-Identifier: MIT
/* Media rules: pure functions over names and numbers. */
#include "media/media.h"

#include <errno.h>
#include <string.h>

#include "conf/config.h"
#include "lib/strnum.h"

int media_mountable(const char *type)
{
	return str_has_word("iso9660 vfat exfat ext4 ext3 ext2 f2fs erofs btrfs xfs squashfs", type);
}

const char *media_mount_options(const char *type)
{
	/* exfat: utf8 is its own code, no nls module needed */
	return strcmp(type, "vfat") == 0 || strcmp(type, "exfat") == 0 ? "iocharset=utf8" : NULL;
}

int media_holds_images(const char *type)
{
	return str_has_word("iso9660 vfat exfat", type);
}

int media_opens(const struct spec *s, const char *type, int toram)
{
	return s->npaths || s->kind == SPEC_AUTO || media_holds_images(type) || toram;
}

int media_scan_candidate(const struct blkdev *d, int scan)
{
	if (d->probed != 1 || d->info.encrypted || !media_mountable(d->info.type))
		return 0;
	return scan != SCAN_REMOVABLE || d->removable;
}

/* d before e in media_order */
static int before(const struct blkdev *d, const struct blkdev *e)
{
	if (d->removable != e->removable)
		return !d->removable;
	return strcmp(d->name, e->name) < 0;
}

unsigned media_order(const struct blkdev_table *t, unsigned *idx)
{
	for (unsigned i = 0; i < t->n; i++) {
		unsigned k = i;

		for (; k > 0 && before(&t->d[i], &t->d[idx[k - 1]]); k--)
			idx[k] = idx[k - 1];
		idx[k] = i;
	}
	return t->n;
}

int media_asks_removable(int scan, const struct spec *s, int hash)
{
	return scan == SCAN_REMOVABLE || s->kind == SPEC_AUTO || s->npaths > 0 || hash;
}

int media_reach(const struct blkdev_table *t, const struct blkdev *d, const struct blkdev **use)
{
	*use = d;
	if (d->partnum || !d->parts)
		return REACH_DEVICE;
	if (!d->zero_part || d->zero_part_bytes < d->info.bytes)
		return REACH_LOOP;
	for (unsigned i = 0; i < t->n; i++) {
		const struct blkdev *p = &t->d[i];

		if ((unsigned)p->partnum == d->zero_part && strcmp(p->disk, d->name) == 0) {
			*use = p;
			return REACH_PARTITION;
		}
	}
	return REACH_LOOP;
}

/* d is a whole disk whose file system its partition at sector 0 also
 * shows, and that partition matches s too: it plays the role itself */
static int shown_by_partition(const struct blkdev_table *t, const struct blkdev *d,
			      const struct spec *s)
{
	const struct blkdev *p;

	return media_reach(t, d, &p) == REACH_PARTITION && blkdev_match(p, s);
}

void media_choose(const struct blkdev_table *t, const struct spec *s, int upper, int asks,
		  int past_deadline, struct media_choice *c)
{
	const struct blkdev *fixed = NULL;

	memset(c, 0, sizeof(*c));
	for (unsigned i = 0; i < t->n; i++) {
		const struct blkdev *d = &t->d[i];

		if (!blkdev_match(d, s) || shown_by_partition(t, d, s))
			continue;
		c->matched++;
		c->removable += d->removable ? 1 : 0;
		if (!d->removable && (!fixed || before(d, fixed)))
			fixed = d;
		else if (d->removable && (!c->d || before(d, c->d)))
			c->d = d;
	}
	if (fixed)
		c->d = fixed;
	if (fixed || (c->d && asks))
		c->verdict = MEDIA_TAKE;
	else if (c->d && past_deadline)
		c->verdict = upper ? MEDIA_REFUSE : MEDIA_TAKE;
	else
		c->verdict = MEDIA_WAIT;
}

int toram_fits(uint64_t size, uint64_t avail, uint64_t *need)
{
	*need = size > UINT64_MAX - TORAM_HEADROOM ? UINT64_MAX : size + TORAM_HEADROOM;
	return *need <= avail ? 0 : -ENOMEM;
}
