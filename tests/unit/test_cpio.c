// SPDX-License-Identifier: MIT
/* The cpio writer: archives are parsed back field by field, and two trees
 * with the same content but different history give the same bytes. */
#include "../../tools/cpio.h"
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

struct parsed {
	char name[256];
	unsigned long f[13]; /* ino mode uid gid nlink mtime size ... namesize check */
	const char *data;
	size_t next; /* offset of the following header */
};

enum { F_INO, F_MODE, F_UID, F_GID, F_NLINK, F_MTIME, F_SIZE, F_RMAJ = 9, F_RMIN, F_NAMESIZE };

static size_t up4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* Parses the entry at @off of @buf (@len bytes); 0 on success. */
static int parse(const char *buf, size_t len, size_t off, struct parsed *p)
{
	char field[9] = {0};

	if (off + 110 > len || memcmp(buf + off, "070701", 6) != 0)
		return -1;
	for (int i = 0; i < 13; i++) {
		memcpy(field, buf + off + 6 + 8 * i, 8);
		p->f[i] = strtoul(field, NULL, 16);
	}
	if (p->f[F_NAMESIZE] == 0 || p->f[F_NAMESIZE] > sizeof(p->name) ||
	    off + 110 + p->f[F_NAMESIZE] > len)
		return -1;
	memcpy(p->name, buf + off + 110, p->f[F_NAMESIZE]);
	if (p->name[p->f[F_NAMESIZE] - 1] != '\0')
		return -1;
	p->data = buf + up4(off + 110 + p->f[F_NAMESIZE]);
	p->next = up4((size_t)(p->data - buf) + p->f[F_SIZE]);
	return p->next <= len ? 0 : -1;
}

/* Reads file @path into @buf; returns its length or -1. */
static long slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, cap);
	close(fd);
	return n;
}

/* "A/B" into @buf; -1 when it does not fit. */
static int join(char *buf, size_t cap, const char *a, const char *b)
{
	int n = snprintf(buf, cap, "%s/%s", a, b);

	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

static char path_buf[512];

/* A path in the case's scratch directory (truncation fails the open). */
static const char *tmp(const char *name)
{
	if (join(path_buf, sizeof(path_buf), unit_tmpdir(), name) < 0)
		return "/nonexistent/path-too-long";
	return path_buf;
}

static void put_file(const char *path, const char *text, mode_t mode, long mtime)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	struct timeval tv[2] = {{mtime, 0}, {mtime, 0}};

	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			perror(path);
		close(fd);
	}
	if (chmod(path, mode) < 0 || utimes(path, tv) < 0)
		perror(path);
}

static char buf_a[65536], buf_b[65536];

static void header_fields_and_padding(void)
{
	struct cpio_writer w;
	struct parsed p;
	long len;
	int fd = open(tmp("one.cpio"), O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0);
	cpio_init(&w, fd, 1700000000);
	CHECK_INT(cpio_write_entry(&w, "init", S_IFREG | 0755, 0, 0, "abc", 3), 0);
	CHECK_INT(cpio_write_entry(&w, "dev/null", S_IFCHR | 0666, 1, 3, NULL, 0), 0);
	close(fd);
	len = slurp(tmp("one.cpio"), buf_a, sizeof(buf_a));

	CHECK_INT(parse(buf_a, (size_t)len, 0, &p), 0);
	CHECK_STR(p.name, "init");
	CHECK_INT(p.f[F_INO], 1);
	CHECK_INT(p.f[F_MODE], S_IFREG | 0755);
	CHECK_INT(p.f[F_UID], 0);
	CHECK_INT(p.f[F_GID], 0);
	CHECK_INT(p.f[F_NLINK], 1);
	CHECK_INT(p.f[F_MTIME], 1700000000);
	CHECK_INT(p.f[F_SIZE], 3);
	CHECK_INT(p.f[F_NAMESIZE], 5);
	/* 110 + 5 = 115: the name is padded to 116, the data to 120. */
	CHECK_INT(p.data - buf_a, 116);
	CHECK(memcmp(p.data, "abc\0", 4) == 0);
	CHECK_INT(p.next, 120);

	CHECK_INT(parse(buf_a, (size_t)len, p.next, &p), 0);
	CHECK_STR(p.name, "dev/null");
	CHECK_INT(p.f[F_INO], 2);
	CHECK_INT(p.f[F_MODE], S_IFCHR | 0666);
	CHECK_INT(p.f[F_RMAJ], 1);
	CHECK_INT(p.f[F_RMIN], 3);
	CHECK_INT(p.f[F_SIZE], 0);
	CHECK_INT(p.next, (size_t)len);
	CHECK_INT(len % 4, 0);
}

static void trailer_ends_archive(void)
{
	struct cpio_writer w;
	struct parsed p;
	long len;
	int fd = open(tmp("trailer.cpio"), O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0);
	cpio_init(&w, fd, 0);
	CHECK_INT(cpio_write_entry(&w, "bin", S_IFDIR | 0755, 0, 0, NULL, 0), 0);
	CHECK_INT(cpio_write_trailer(&w), 0);
	close(fd);
	len = slurp(tmp("trailer.cpio"), buf_a, sizeof(buf_a));

	CHECK_INT(parse(buf_a, (size_t)len, 0, &p), 0);
	CHECK_INT(p.f[F_NLINK], 2);
	CHECK_INT(parse(buf_a, (size_t)len, p.next, &p), 0);
	CHECK_STR(p.name, "TRAILER!!!");
	CHECK_INT(p.f[F_INO], 0);
	CHECK_INT(p.f[F_MODE], 0);
	CHECK_INT(p.next, (size_t)len);
	CHECK_INT(len % 4, 0);
}

static void bad_names_are_refused(void)
{
	struct cpio_writer w;

	cpio_init(&w, -1, 0);
	CHECK_INT(cpio_write_entry(&w, "", S_IFDIR | 0755, 0, 0, NULL, 0), -EINVAL);
	CHECK_INT(cpio_write_entry(&w, "/abs", S_IFDIR | 0755, 0, 0, NULL, 0), -EINVAL);
	CHECK_INT(w.off, 0);
}

static void node_specs_parse(void)
{
	struct cpio_node n;

	CHECK_INT(cpio_parse_node("/dev/console c 5 1 0600", &n), 0);
	CHECK_STR(n.path, "dev/console");
	CHECK_INT(n.mode, S_IFCHR | 0600);
	CHECK_INT(n.major, 5);
	CHECK_INT(n.minor, 1);
	CHECK_INT(cpio_parse_node("dev/vda b 254 0 660", &n), 0);
	CHECK_INT(n.mode, S_IFBLK | 0660);
	CHECK(cpio_parse_node("dev/x p 1 2 0600", &n) < 0);
	CHECK(cpio_parse_node("dev/x c 1 2", &n) < 0);
	CHECK(cpio_parse_node("dev/x c 1 2 0600 extra", &n) < 0);
	CHECK(cpio_parse_node("dev/x c 1 2 0789", &n) < 0);
	CHECK(cpio_parse_node("/ c 1 2 0600", &n) < 0);
}

/* Builds the same tree twice: different creation order and mtimes. */
static int make_tree(const char *root, int reverse)
{
	char p[600];
	const char *names[] = {"b", "a", "a.d"};
	long t = reverse ? 1000 : 2000000;

	if (mkdir(root, 0755) < 0)
		return -1;
	for (int k = 0; k < 3; k++) {
		const char *n = names[reverse ? 2 - k : k];

		if (join(p, sizeof(p), root, n) < 0)
			return -1;
		put_file(p, n, 0644, t + k);
	}
	if (join(p, sizeof(p), root, "sub") < 0)
		return -1;
	if (mkdir(p, 0700) < 0)
		return -1;
	if (join(p, sizeof(p), root, "sub/exe") < 0)
		return -1;
	put_file(p, "#!/bin/sh\n", 0755, t);
	if (join(p, sizeof(p), root, "sub/link") < 0)
		return -1;
	if (symlink("..", p) < 0) /* a loop if followed */
		return -1;
	if (join(p, sizeof(p), root, "sub") < 0)
		return -1;
	if (chmod(p, 0755) < 0)
		return -1;
	return 0;
}

static long archive_tree(const char *root, const char *out, char *buf)
{
	static const struct cpio_node nodes[] = {
	    {"sub/console", S_IFCHR | 0600, 5, 1},
	};
	struct cpio_writer w;
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		return -1;
	cpio_init(&w, fd, 42);
	if (cpio_write_tree(&w, root, nodes, 1) < 0 || cpio_write_trailer(&w) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	return slurp(out, buf, 65536);
}

static void tree_is_sorted_and_reproducible(void)
{
	static const char *const want[] = {
	    "a", "a.d", "b", "sub", "sub/console", "sub/exe", "sub/link", "TRAILER!!!",
	};
	char r1[300], r2[300];
	struct parsed p;
	size_t off = 0;
	long la, lb;

	CHECK_INT(join(r1, sizeof(r1), unit_tmpdir(), "t1"), 0);
	CHECK_INT(join(r2, sizeof(r2), unit_tmpdir(), "t2"), 0);
	CHECK_INT(make_tree(r1, 0), 0);
	CHECK_INT(make_tree(r2, 1), 0);
	la = archive_tree(r1, tmp("t1.cpio"), buf_a);
	lb = archive_tree(r2, tmp("t2.cpio"), buf_b);
	CHECK(la > 0);
	CHECK_INT(la, lb);
	CHECK(memcmp(buf_a, buf_b, (size_t)la) == 0);

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		CHECK_INT(parse(buf_a, (size_t)la, off, &p), 0);
		CHECK_STR(p.name, want[i]);
		if (!strcmp(p.name, "sub"))
			CHECK_INT(p.f[F_MODE], S_IFDIR | 0755);
		if (!strcmp(p.name, "sub/exe"))
			CHECK_INT(p.f[F_MODE], S_IFREG | 0755);
		if (!strcmp(p.name, "sub/console"))
			CHECK_INT(p.f[F_RMAJ], 5);
		if (!strcmp(p.name, "sub/link")) {
			CHECK_INT(p.f[F_MODE] & S_IFMT, S_IFLNK);
			CHECK_INT(p.f[F_SIZE], 2);
			CHECK(memcmp(p.data, "..", 2) == 0);
		}
		if (i < 7)
			CHECK_INT(p.f[F_INO], i + 1);
		CHECK_INT(p.f[F_MTIME], 42);
		off = p.next;
	}
	CHECK_INT(off, (size_t)la);
}

static void node_clashing_with_tree_is_refused(void)
{
	static const struct cpio_node nodes[] = {{"b", S_IFCHR | 0600, 1, 3}};
	char r[300];
	struct cpio_writer w;
	int fd = open(tmp("clash.cpio"), O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0);
	CHECK_INT(join(r, sizeof(r), unit_tmpdir(), "t3"), 0);
	CHECK_INT(make_tree(r, 0), 0);
	cpio_init(&w, fd, 0);
	CHECK_INT(cpio_write_tree(&w, r, nodes, 1), -EEXIST);
	close(fd);
}

UNIT_SUITE(cpio, {"header fields and padding read back", header_fields_and_padding},
	   {"the trailer ends the archive", trailer_ends_archive},
	   {"empty and absolute names are refused", bad_names_are_refused},
	   {"--node specs parse, bad ones are refused", node_specs_parse},
	   {"a tree is sorted and its bytes do not depend on history",
	    tree_is_sorted_and_reproducible},
	   {"a node clashing with a tree entry is refused", node_clashing_with_tree_is_refused});
