// SPDX-License-Identifier: MIT
/* "unionroot probe PATH...": what the boot would see on each device or image
 * file, one blkid-like line per filesystem and one per partition. */
#include "cmd/cli.h"
#include "cmd/out.h"
#include "probe/parttab.h"
#include "probe/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROBE_MAX_PARTS 256

/* NAME="value", with quotes, backslashes and control bytes escaped so that
 * a hostile label cannot forge output or drive the terminal. */
static void print_field(const char *name, const char *val)
{
	if (!val[0])
		return;
	out(" %s=\"", name);
	for (const unsigned char *p = (const unsigned char *)val; *p; p++) {
		if (*p == '"' || *p == '\\')
			out("\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			out("\\x%02x", *p);
		else
			out("%c", *p);
	}
	out("\"");
}

static unsigned sector_size_of(int fd)
{
	struct stat st;
	int ss = 0;

	if (fstat(fd, &st) == 0 && S_ISBLK(st.st_mode) && ioctl(fd, BLKSSZGET, &ss) == 0 &&
	    ss >= 512 && ss <= 4096)
		return (unsigned)ss;
	return 0;
}

/* 0 recognized, 2 unknown, 1 error. */
static int probe_one(const char *path)
{
	static struct part_entry parts[PROBE_MAX_PARTS];
	struct probe_src src;
	struct probe_info info;
	unsigned ss;
	int fd, rc, fs, np, ret = 2;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		out_err("unionroot: probe: cannot open \"%s\": %s\n", path, strerror(errno));
		return 1;
	}
	rc = probe_src_fd(&src, fd);
	if (rc < 0) {
		out_err("unionroot: probe: cannot size \"%s\": %s\n", path, strerror(-rc));
		close(fd);
		return 1;
	}
	fs = probe_fs(&src, &info);
	if (fs < 0) {
		out_err("unionroot: probe: reading \"%s\" failed: %s\n", path, strerror(-fs));
		ret = 1;
	} else if (fs > 0) {
		out("%s:", path);
		print_field("TYPE", info.type);
		print_field("UUID", info.uuid);
		print_field("LABEL", info.label);
		out("\n");
		ret = 0;
	}
	/* A device knows its logical sector size; for an image file try 512
	 * and then 4096 (a GPT is where its header says it is). */
	ss = sector_size_of(fd);
	np = parttab_read(&src, ss ? ss : 512, parts, PROBE_MAX_PARTS);
	if (np == 0 && !ss) {
		ss = 4096;
		np = parttab_read(&src, ss, parts, PROBE_MAX_PARTS);
	}
	if (np == -ENOBUFS) {
		out_err("unionroot: probe: \"%s\" has more than %d partitions; listing %d\n",
			path, PROBE_MAX_PARTS, PROBE_MAX_PARTS);
		np = PROBE_MAX_PARTS;
	} else if (np < 0) {
		out_err("unionroot: probe: reading the partition table of \"%s\" failed: %s\n",
			path, strerror(-np));
		ret = 1;
	}
	for (int i = 0; i < np; i++) {
		out("%s: partition %u start=%llu size=%llu", path, parts[i].num,
		       (unsigned long long)parts[i].start_lba, (unsigned long long)parts[i].nr_lba);
		print_field("PARTUUID", parts[i].partuuid);
		print_field("PARTLABEL", parts[i].partlabel);
		out("\n");
	}
	if (np > 0 && ret == 2)
		ret = 0;
	if (ret == 2)
		out_err("unionroot: probe: \"%s\": no known filesystem or partition table\n",
			path);
	close(fd);
	return ret;
}

int cmd_probe(int argc, char **argv)
{
	int ret = 0;

	if (argc < 2) {
		return cli_usage("probe", NULL);
	}
	for (int i = 1; i < argc; i++) {
		int rc = probe_one(argv[i]);

		if (rc == 1 || (rc == 2 && ret == 0))
			ret = rc;
	}
	return ret;
}
