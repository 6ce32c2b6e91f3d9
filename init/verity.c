// SPDX-License-Identifier: MIT
/* Verified read-only layers: a dm-verity device over each layer the plan
 * names, set up through the device-mapper ioctls, checked by reading
 * through it before anything mounts it. A layer that fails is refused. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "media/dm.h"
#include "lib/log.h"
#include "probe/probe.h"
#include "lib/sbuf.h"
#include "lib/sysx.h"
#include "media/verity.h"

struct vdev {
	const struct verity_arg *a;
	const char *data, *hash;  /* device nodes */
	uint64_t data_size;       /* bytes */
	uint64_t offset;          /* superblock (or tree) on the hash device */
	struct verity_geom g;
	const char *why;          /* set with every refusal */
};

static int read_at(const char *dev, uint64_t off, void *buf, size_t len, uint64_t *size)
{
	struct probe_src src;
	int fd = sys_open(dev, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return fd;
	rc = probe_src_fd(&src, fd);
	if (rc == 0 && size)
		*size = src.size;
	if (rc == 0)
		rc = probe_read(&src, off, buf, len);
	sys_close(fd);
	return rc;
}

/* The tree's place and geometry: the superblock, or the command line. */
static int geometry(struct vdev *v)
{
	static uint8_t head[4096];
	uint8_t sb[VERITY_SB_SIZE];
	int rc = read_at(v->data, 0, head, sizeof(head), &v->data_size);

	v->why = "cannot read the data device";
	if (rc < 0)
		return rc;
	v->offset = v->a->offset;
	if (v->offset == VERITY_OFFSET_AUTO)
		v->offset = v->a->hashdev[0] ? 0 : verity_data_end(head, sizeof(head));
	v->why = "cannot tell where the image ends (give offset=)";
	if (v->offset == 0 && !v->a->hashdev[0])
		return -EINVAL;
	if (v->a->nosb) {
		v->g = v->a->geom;
		if (!v->g.data_blocks)
			v->g.data_blocks = (v->a->hashdev[0] ? v->data_size : v->offset) / v->g.data_bs;
		return verity_geom_check(&v->g, &v->why);
	}
	rc = read_at(v->hash, v->offset, sb, sizeof(sb), NULL);
	v->why = "cannot read the verity superblock";
	if (rc < 0)
		return rc;
	return verity_sb_parse(sb, sizeof(sb), &v->g, &v->why);
}

/* Reads the first and the last data block through the verity device: the
 * kernel checks the root hash only when a block is read, so this is where
 * a wrong root hash or a tampered tree shows. */
static int check_reads(const char *node, const struct verity_geom *g)
{
	static uint8_t block[65536];
	uint64_t last = (g->data_blocks - 1) * g->data_bs;
	int rc = read_at(node, 0, block, g->data_bs, NULL);

	if (rc == 0 && last)
		rc = read_at(node, last, block, g->data_bs, NULL);
	return rc;
}

static int setup(struct boot *b, struct vdev *v, unsigned n, char *node, size_t cap)
{
	static char table[VERITY_TABLE_MAX];
	struct verity_table t = { v->data, v->hash, v->a->root, &v->g, 0, b->cfg.verity_onerror };
	char name[32];
	int rc = geometry(v);

	if (rc < 0)
		return rc;
	v->why = "the data blocks pass the end of the data device or reach the tree";
	if (v->g.data_blocks > v->data_size / v->g.data_bs ||
	    (!v->a->hashdev[0] && v->g.data_blocks * v->g.data_bs > v->offset))
		return -EINVAL;
	t.hash_start = verity_hash_start(v->offset, v->a->nosb, v->g.hash_bs);
	v->why = "the verity table does not fit";
	rc = verity_table_format(&t, table, sizeof(table));
	if (rc == 0)
		rc = strfmt(name, sizeof(name), RUN_VERITY_DM_FMT, n);
	if (rc < 0)
		return rc;
	log_debug("read-only layer %u: verity table %s", n, table);
	v->why = "device-mapper refused the verity table";
	rc = dm_create(name, "verity", v->g.data_blocks * (v->g.data_bs / 512), table, node, cap);
	if (rc < 0)
		return rc;
	rc = check_reads(node, &v->g);
	if (rc < 0) {
		v->why = "reading through it failed: the root hash does not match the image or its hash tree";
		IGNORE(dm_remove(name)); /* refused either way; a stale node mounts nothing */
	}
	return rc;
}

static int one_layer(struct boot *b, unsigned i, const struct verity_arg *a, char *why, size_t cap)
{
	struct vdev v = { .a = a, .data = b->lower_dev[i], .hash = a->hashdev[0] ? a->hashdev : b->lower_dev[i] };
	char node[DEVNODE_MAX];
	int rc;

	if (b->pivot) {
		IGNORE(strfmt(why, cap, "read-only layer %u: verity needs an initramfs (the kernel mounted the root unverified)", i + 1));
		return -EPERM;
	}
	rc = setup(b, &v, i + 1, node, sizeof(node));
	if (rc < 0) {
		IGNORE(strfmt(why, cap, "read-only layer %u %s: verity refused it: %s (%s)", i + 1,
			      b->lower_dev[i], v.why, strerror(-rc))); /* a cut line still names it */
		return rc;
	}
	IGNORE(strfmt(b->lower_verity[i], sizeof(b->lower_verity[i]),
		      "verified, root hash %s, %s over %s (hash tree on %s at byte %llu; a bad block read: %s)",
		      a->root, node, b->lower_dev[i], v.hash, (unsigned long long)v.offset,
		      verity_onerror_name(b->cfg.verity_onerror))); /* a cut status line is fine */
	log_info("read-only layer %u: %s verified by dm-verity as %s", i + 1, b->lower_dev[i], node);
	IGNORE(strcopy(b->lower_dev[i], sizeof(b->lower_dev[i]), node)); /* DEVNODE_MAX both */
	return 0;
}

int verity_layers(struct boot *b, char *why, size_t cap)
{
	int rc = 0;

	if (!b->plan.nverity)
		return 0;
	modules_by_name("dm-verity");
	for (unsigned i = 0; rc == 0 && i < b->nlower; i++) {
		const struct verity_arg *a = plan_verity(&b->plan, i + 1);

		if (a)
			rc = one_layer(b, i, a, why, cap);
	}
	return rc;
}
