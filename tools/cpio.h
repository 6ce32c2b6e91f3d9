/* SPDX-License-Identifier: MIT */
/* A newc ("070701") cpio writer for the host-side initramfs builder: single
 * entries, a whole staging tree in bytewise path order, and the trailer. */
#ifndef TOOLS_CPIO_H
#define TOOLS_CPIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cpio_writer {
	int fd;		/* output, written with write(2) */
	uint32_t ino;	/* last inode number handed out */
	uint32_t mtime; /* every entry gets this mtime */
	uint64_t off;	/* bytes written so far, for the 4-byte padding */
};

/* A device node (or any entry without a source file) to add to a tree. */
struct cpio_node {
	char path[256]; /* archive path, no leading '/' */
	uint32_t mode;	/* S_IFCHR or S_IFBLK | permissions */
	uint32_t major, minor;
};

void cpio_init(struct cpio_writer *w, int fd, uint32_t mtime);

/* Header, name and padding for one entry, then @len bytes of @data and its
 * padding. uid/gid are 0, inodes are numbered 1, 2, ... in call order. */
int cpio_write_entry(struct cpio_writer *w, const char *name, uint32_t mode, uint32_t rmajor,
		     uint32_t rminor, const void *data, size_t len)
    __attribute__((warn_unused_result));

/* A regular file whose @size bytes are read from @src. */
int cpio_write_file(struct cpio_writer *w, const char *name, uint32_t mode, int src, uint64_t size)
    __attribute__((warn_unused_result));

int cpio_write_trailer(struct cpio_writer *w) __attribute__((warn_unused_result));

/* Parses "PATH c|b MAJOR MINOR MODE" (MODE in octal). */
int cpio_parse_node(const char *spec, struct cpio_node *node) __attribute__((warn_unused_result));

/* Every entry below directory @dir (not @dir itself) plus @nodes, sorted by
 * path bytewise, symlinks stored as links and never followed. Mtimes, owners
 * and creation order of the tree do not change the output. No trailer. */
int cpio_write_tree(struct cpio_writer *w, const char *dir, const struct cpio_node *nodes,
		    size_t n_nodes) __attribute__((warn_unused_result));

#endif
