// SPDX-License-Identifier: MIT
/* The SPEC grammar: every form, nesting, deadlines, and refusals. */
#include "conf/spec.h"
#include <errno.h>
#include "unit.h"

static void every_form_parses(void)
{
	static const struct {
		const char *text;
		int kind;
		const char *value;
	} rows[] = {
		{ "/dev/vda", SPEC_DEV, "/dev/vda" },
		{ "/dev/disk/x1", SPEC_DEV, "/dev/disk/x1" },
		{ "LABEL=data", SPEC_LABEL, "data" },
		{ "LABEL=with:colon", SPEC_LABEL, "with:colon" },
		{ "UUID=0f3e-AB12", SPEC_UUID, "0f3e-AB12" },
		{ "PARTUUID=1234abcd-02", SPEC_PARTUUID, "1234abcd-02" },
		{ "PARTLABEL=rootfs_data", SPEC_PARTLABEL, "rootfs_data" },
		{ "mtd:rootfs_data", SPEC_MTD, "rootfs_data" },
		{ "ubi:rootfs_data", SPEC_UBI, "rootfs_data" },
		{ "auto", SPEC_AUTO, "" },
		{ "nbd:10.0.2.100:10809/root", SPEC_NBD, "10.0.2.100:10809/root" },
		{ "nbd:192.168.1.2:1/", SPEC_NBD, "192.168.1.2:1/" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct spec s;
		char err[128], back[512];

		CHECK_INT(spec_parse(rows[i].text, &s, err, sizeof(err)), 0);
		CHECK_INT(s.kind, rows[i].kind);
		CHECK_STR(s.value, rows[i].value);
		CHECK_INT(s.npaths, 0);
		CHECK_INT(s.deadline, -1);
		CHECK_INT(spec_format(&s, back, sizeof(back)), 0);
		CHECK_STR(back, rows[i].text);
	}
}

static void images_nest_inside_media(void)
{
	struct spec s;
	char err[128], back[512];

	CHECK_INT(spec_parse("LABEL=USB:/isos/live.iso:/live/filesystem.squashfs@30", &s, err,
			     sizeof(err)), 0);
	CHECK_INT(s.kind, SPEC_LABEL);
	CHECK_STR(s.value, "USB");
	CHECK_INT(s.npaths, 2);
	CHECK_STR(s.paths[0], "/isos/live.iso");
	CHECK_STR(s.paths[1], "/live/filesystem.squashfs");
	CHECK_INT(s.deadline, 30);
	CHECK_INT(spec_format(&s, back, sizeof(back)), 0);
	CHECK_STR(back, "LABEL=USB:/isos/live.iso:/live/filesystem.squashfs@30");
}

/* union.upper=LABEL=STICK:/persistence.img: the writable branch in a file */
static void a_persistence_file_is_a_medium_and_one_path(void)
{
	struct spec s;
	char err[128], back[512];

	CHECK_INT(spec_parse("LABEL=STICK:/persistence.img@30", &s, err, sizeof(err)), 0);
	CHECK_INT(s.kind, SPEC_LABEL);
	CHECK_STR(s.value, "STICK");
	CHECK_INT(s.npaths, 1);
	CHECK_STR(s.paths[0], "/persistence.img");
	CHECK_INT(s.deadline, 30);
	CHECK_INT(spec_format(&s, back, sizeof(back)), 0);
	CHECK_STR(back, "LABEL=STICK:/persistence.img@30");
	CHECK_INT(spec_parse("/dev/sda1:/casper-rw", &s, err, sizeof(err)), 0);
	CHECK_STR(s.value, "/dev/sda1");
	CHECK_STR(s.paths[0], "/casper-rw");
	CHECK(spec_parse("LABEL=STICK:/", &s, err, sizeof(err)) < 0);
	CHECK(spec_parse("LABEL=STICK:/../persistence.img", &s, err, sizeof(err)) < 0);
}

static void a_deadline_needs_digits_after_the_at(void)
{
	struct spec s;
	char err[128];

	CHECK_INT(spec_parse("LABEL=me@home", &s, err, sizeof(err)), 0);
	CHECK_STR(s.value, "me@home");
	CHECK_INT(s.deadline, -1);
	CHECK_INT(spec_parse("LABEL=data@0", &s, err, sizeof(err)), 0);
	CHECK_INT(s.deadline, 0);
	CHECK(spec_parse("LABEL=data@3601", &s, err, sizeof(err)) < 0);
	CHECK(spec_parse("LABEL=data@99999999999999999999", &s, err, sizeof(err)) < 0);
}

static void malformed_specs_are_refused_with_a_reason(void)
{
	static const char *const bad[] = {
		"", "vda", "/dev/", "LABEL=", "UUID=xyz", "/dev/../etc/shadow",
		"LABEL=a:/", "LABEL=a:/x/../../y", "LABEL=a:/1:/2:/3:/4:/5", "@5", "label=x",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct spec s;
		char err[128] = "";

		if (spec_parse(bad[i], &s, err, sizeof(err)) >= 0) {
			unit_failf(__FILE__, __LINE__, "\"%s\" accepted", bad[i]);
			return;
		}
		CHECK(err[0] != '\0');
	}
}

static void long_values_are_refused_not_cut(void)
{
	char text[600];
	struct spec s;
	char err[128];

	memcpy(text, "LABEL=", 6);
	memset(text + 6, 'a', 300);
	text[306] = '\0';
	CHECK_INT(spec_parse(text, &s, err, sizeof(err)), -ENAMETOOLONG);
}

static void lists_stack_top_most_first(void)
{
	struct spec s[SPEC_LIST_MAX];
	char err[128];

	CHECK_INT(spec_list_parse("LABEL=top,/dev/vdb,auto", s, SPEC_LIST_MAX, err, sizeof(err)), 3);
	CHECK_STR(s[0].value, "top");
	CHECK_STR(s[1].value, "/dev/vdb");
	CHECK_INT(s[2].kind, SPEC_AUTO);
	CHECK(spec_list_parse("a,b,c,d,e,f,g,h,i", s, SPEC_LIST_MAX, err, sizeof(err)) < 0);
	CHECK(spec_list_parse("/dev/a,,/dev/b", s, SPEC_LIST_MAX, err, sizeof(err)) < 0);
	CHECK(spec_list_parse("/dev/a,", s, SPEC_LIST_MAX, err, sizeof(err)) < 0);
}

/* nbd:ADDRESS:PORT/EXPORT: an IPv4 address, a port 1-65535, a '/' before
 * the export name (which may be empty, the server's default); a deadline
 * and an image inside the export parse as on any medium */
static void nbd_names_an_address_a_port_and_an_export(void)
{
	static const char *const bad[] = {
		"nbd:", "nbd:server:10809/root", "nbd:10.0.2.100/root", "nbd:10.0.2.100:/root",
		"nbd:10.0.2.100:0/root", "nbd:10.0.2.100:65536/root", "nbd:10.0.2.100:10809",
		"nbd:10.0.2.100:1x/root", "nbd:10.0.2.256:10809/root", "nbd:10.0.2:10809/root",
		"nbd:10.0.2.100:1234567/root",
	};
	struct spec s;
	char err[128];
	uint32_t addr;
	unsigned port;
	const char *name;

	CHECK_INT(spec_parse("nbd:10.0.2.100:10809/root:/live/fs.squashfs@30", &s, err, sizeof(err)), 0);
	CHECK_INT(s.kind, SPEC_NBD);
	CHECK_STR(s.value, "10.0.2.100:10809/root");
	CHECK_INT(s.npaths, 1);
	CHECK_STR(s.paths[0], "/live/fs.squashfs");
	CHECK_INT(s.deadline, 30);
	CHECK_INT(spec_nbd_split(s.value, &addr, &port, &name), 0);
	CHECK(addr == 0x0a000264u);
	CHECK_INT(port, 10809);
	CHECK_STR(name, "root");
	CHECK_STR(spec_kind_name(SPEC_NBD), "nbd");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CHECK_INT(spec_parse(bad[i], &s, err, sizeof(err)), -EINVAL);
		CHECK(err[0] != '\0');
	}
}

UNIT_SUITE(spec,
	   { "nbd: names an address, a port and an export", nbd_names_an_address_a_port_and_an_export },
	   { "every form parses and prints back", every_form_parses },
	   { "images nest inside media", images_nest_inside_media },
	   { "a persistence file is a medium and one path", a_persistence_file_is_a_medium_and_one_path },
	   { "a deadline needs digits after the @", a_deadline_needs_digits_after_the_at },
	   { "malformed SPECs are refused with a reason", malformed_specs_are_refused_with_a_reason },
	   { "long values are refused, not cut", long_values_are_refused_not_cut },
	   { "lists stack top-most first", lists_stack_top_most_first });
