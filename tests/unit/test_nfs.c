// SPDX-License-Identifier: MIT
/* nfs: layers: the SPEC's split (an export whose ":/" is the base's own,
 * an image file on it), the kernel NFS client's option text, and the
 * plan's rows for them. */
#include "unit.h"
#include "plan_case.h"

#include "conf/config.h"
#include "conf/spec.h"
#include "net/nfs.h"
#include "plan/plan.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void an_nfs_spec_names_a_server_an_export_and_an_image(void)
{
	struct spec s;
	char err[128], back[512];
	uint32_t addr;
	unsigned port;
	const char *export_path;

	CHECK_INT(spec_parse("nfs:10.0.2.100:/srv", &s, err, sizeof(err)), 0);
	CHECK_INT(s.kind, SPEC_NFS);
	CHECK_STR(s.value, "10.0.2.100:/srv");
	CHECK_INT(s.npaths, 0);
	CHECK_INT(spec_nfs_split(s.value, &addr, &port, &export_path), 0);
	CHECK(addr == 0x0a000264u);
	CHECK_INT(port, 2049);
	CHECK_STR(export_path, "/srv");
	CHECK_INT(spec_format(&s, back, sizeof(back)), 0);
	CHECK_STR(back, "nfs:10.0.2.100:/srv");
	CHECK_STR(spec_kind_name(SPEC_NFS), "nfs");

	/* the third field is an image file on the export; a deadline ends it */
	CHECK_INT(spec_parse("nfs:10.0.2.100:/srv/images:/live/rootfs.squashfs@30", &s, err, sizeof(err)), 0);
	CHECK_STR(s.value, "10.0.2.100:/srv/images");
	CHECK_INT(s.npaths, 1);
	CHECK_STR(s.paths[0], "/live/rootfs.squashfs");
	CHECK_INT(s.deadline, 30);
	CHECK_INT(spec_format(&s, back, sizeof(back)), 0);
	CHECK_STR(back, "nfs:10.0.2.100:/srv/images:/live/rootfs.squashfs@30");

	/* a port of its own, and NFSv4's pseudo root */
	CHECK_INT(spec_parse("nfs:192.168.1.2:2050:/", &s, err, sizeof(err)), 0);
	CHECK_STR(s.value, "192.168.1.2:2050:/");
	CHECK_INT(spec_nfs_split(s.value, &addr, &port, &export_path), 0);
	CHECK_INT(port, 2050);
	CHECK_STR(export_path, "/");

	/* in a list, each layer its own */
	{
		struct spec l[SPEC_LIST_MAX];

		CHECK_INT(spec_list_parse("nfs:10.0.2.100:/a:/i.img,/dev/vda", l, SPEC_LIST_MAX, err, sizeof(err)), 2);
		CHECK_STR(l[0].value, "10.0.2.100:/a");
		CHECK_STR(l[0].paths[0], "/i.img");
		CHECK_INT(l[1].kind, SPEC_DEV);
	}
}

static void a_malformed_nfs_spec_is_refused_with_its_form(void)
{
	static const char *const bad[] = {
		"nfs:10.0.2.100", "nfs:server:/srv", "nfs:10.0.2.256:/srv", "nfs:10.0.2.100:srv",
		"nfs:10.0.2.100:0:/srv", "nfs:10.0.2.100:65536:/srv", "nfs:10.0.2.100:20x9:/srv",
		"nfs:10.0.2.100:2049/srv", "nfs:10.0.2.100:/s\"rv", "nfs:10.0.2.100:/a/../b",
		"nfs:10.0.2.100::/srv", "nfs:10.0.2.100:99999999999:/srv",
	};
	struct spec s;
	char err[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CHECK_INT(spec_parse(bad[i], &s, err, sizeof(err)), -EINVAL);
		CHECK_STR(err, SPEC_NFS_WHY);
	}
	CHECK_INT(spec_parse("nfs:", &s, err, sizeof(err)), -EINVAL);
	/* one image on the export, no nesting inside it */
	CHECK_INT(spec_parse("nfs:10.0.2.100:/srv:/a.iso:/live/fs.squashfs", &s, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "nfs: takes one image path on its export");
	CHECK_INT(spec_parse("nfs:10.0.2.100:/srv:/", &s, err, sizeof(err)), -EINVAL);
	CHECK_INT(spec_parse("nfs:10.0.2.100:/srv:/../x.img", &s, err, sizeof(err)), -EINVAL);
}

static void the_options_name_the_version_the_addresses_and_hard(void)
{
	char buf[NFS_OPTS_MAX], small[40];

	CHECK_INT(nfs_mount_options(buf, sizeof(buf), 2, 0x0a000264u, 2049, 0x0a00020fu),
		  (int)strlen("vers=4.2,proto=tcp,port=2049,hard,timeo=600,retrans=2,sec=sys,"
			      "addr=10.0.2.100,clientaddr=10.0.2.15"));
	CHECK_STR(buf, "vers=4.2,proto=tcp,port=2049,hard,timeo=600,retrans=2,sec=sys,addr=10.0.2.100,clientaddr=10.0.2.15");
	CHECK(nfs_mount_options(buf, sizeof(buf), 0, 0xffffffffu, 65535, 0xffffffffu) > 0);
	CHECK_STR(buf, "vers=4.0,proto=tcp,port=65535,hard,timeo=600,retrans=2,sec=sys,"
		       "addr=255.255.255.255,clientaddr=255.255.255.255");
	CHECK(strlen(buf) < NFS_OPTS_MAX);
	CHECK_INT(nfs_mount_options(buf, sizeof(buf), 3, 0x0a000264u, 2049, 0x0a00020fu), -EINVAL);
	CHECK_INT(nfs_mount_options(buf, sizeof(buf), 1, 0x0a000264u, 0, 0x0a00020fu), -EINVAL);
	CHECK_INT(nfs_mount_options(buf, sizeof(buf), 1, 0x0a000264u, 65536, 0x0a00020fu), -EINVAL);
	CHECK_INT(nfs_mount_options(small, sizeof(small), 1, 0x0a000264u, 2049, 0x0a00020fu), -ENAMETOOLONG);

	CHECK_INT(nfs_mount_source(buf, sizeof(buf), 0x0a000264u, "/srv"), 0);
	CHECK_STR(buf, "10.0.2.100:/srv");
	CHECK_INT(nfs_mount_source(small, 12, 0x0a000264u, "/srv"), -ENAMETOOLONG);
}

#define HASH "4392712ba01368efdf14b05c76f9e4df0d53664630b5d48632ed17a137f39076"

/* An nfs: layer is mounted after the network's row and before the wait,
 * which waits for no device of its; an image on it is verified as any
 * layer, a tree asked to be verified is refused before the network. A
 * build without the network stops. */
static void an_nfs_layer_is_mounted_after_the_network(void)
{
	static struct config c;
	static struct plan_facts f;
	static struct plan p;
	static char text[4096];
	int r;

	plan_for(&c, &f, &p, "union.lower=/dev/vda,nfs:10.0.2.100:/srv:/root.img union.verity=2:" HASH);
	CHECK_INT(p.lower_net, 2);
	CHECK_INT(p.lower_nfs, 2);
	CHECK_INT(p.nfs_tree, 0);
	CHECK_STR(p.net_refused, "");
	r = row_of(&p, RUN_NFS);
	CHECK(r > 0 && p.row[r - 1].kind == RUN_NET && p.row[r + 1].kind == RUN_WAIT_MEDIA);
	CHECK_INT(p.row[r].arg, 2);
	CHECK_INT(p.row[r].onfail, RUNFAIL_LAYER);
	CHECK(row_of(&p, RUN_VERIFY) > r);
	CHECK_INT(row_of(&p, RUN_NBD), -1);
	CHECK_INT(row_of(&p, RUN_HTTP), -1);
	CHECK_INT(p.nwait, 1); /* /dev/vda: the mount gives layer 2's device */
	CHECK_INT(p.wait[0].layer, 1);
	CHECK_INT(plan_row_done(&p, &p.row[r]), 0);
	f.nfs_done = 2;
	CHECK_INT(plan_row_done(&p, &p.row[r]), 1);
	CHECK_STR(plan_row_name(RUN_NFS), "mount the nfs export of layer");
	CHECK(plan_format_decisions(&p, text, sizeof(text)) >= 0);
	CHECK(strstr(text, "the kernel's NFS client, NFSv4 over TCP") != NULL);

	plan_for(&c, &f, &p, "union.lower=nfs:10.0.2.100:/srv");
	CHECK_INT(p.nfs_tree, 1);
	CHECK_INT(p.nwait, 0);
	CHECK_INT(row_of(&p, RUN_NFS), 2);
	CHECK_INT(row_of(&p, RUN_MOUNT_LOWER) > 2, 1);

	plan_for(&c, &f, &p, "union.lower=nfs:10.0.2.100:/srv union.verity=1:" HASH);
	CHECK_STR(p.net_refused, "read-only layer 1: nfs:10.0.2.100:/srv is a directory tree, which union.verity "
				  "cannot verify: name an image file on the export");
	CHECK_INT(p.row[1].kind, RUN_REFUSE);
	CHECK_INT(row_of(&p, RUN_NET), -1);
	CHECK_INT(row_of(&p, RUN_NFS), -1);

	f.no_net = 1;
	plan_build(&f, &p);
	CHECK_INT(p.backend, PLAN_STOP);
	CHECK_STR(p.backend_why, PLAN_NEEDS_NET);
	CHECK_INT(row_of(&p, RUN_NFS), -1);
}

UNIT_SUITE(nfs,
	   { "an nfs: SPEC names a server, an export and an image", an_nfs_spec_names_a_server_an_export_and_an_image },
	   { "a malformed nfs: SPEC is refused with its form", a_malformed_nfs_spec_is_refused_with_its_form },
	   { "the options name the version, the addresses and hard", the_options_name_the_version_the_addresses_and_hard },
	   { "an nfs: layer is mounted after the network", an_nfs_layer_is_mounted_after_the_network });
