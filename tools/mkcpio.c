// SPDX-License-Identifier: MIT
/* mkcpio: writes a staging directory as a reproducible newc cpio archive on
 * stdout, plus device nodes given on the command line (no mknod, no root). */
#include "cpio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_NODES 64

static void usage(void)
{
	(void)fprintf(stderr, "usage: mkcpio [--mtime N] [--node 'PATH c|b MAJOR MINOR MODE']... "
			      "STAGEDIR > out.cpio\n");
}

int main(int argc, char **argv)
{
	static struct cpio_node nodes[MAX_NODES];
	struct cpio_writer w;
	unsigned long long mtime = 0;
	const char *dir = NULL;
	size_t n_nodes = 0;
	int ret;

	for (int i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--mtime") && i + 1 < argc) {
			errno = 0;
			mtime = strtoull(argv[++i], &end, 10);
			if (errno || *end || end == argv[i] || mtime > UINT32_MAX) {
				(void)fprintf(stderr, "mkcpio: bad --mtime '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--node") && i + 1 < argc) {
			if (n_nodes == MAX_NODES) {
				(void)fprintf(stderr, "mkcpio: more than %d --node\n", MAX_NODES);
				return 2;
			}
			if (cpio_parse_node(argv[++i], &nodes[n_nodes]) < 0) {
				(void)fprintf(stderr, "mkcpio: bad --node '%s'\n", argv[i]);
				return 2;
			}
			n_nodes++;
		} else if (argv[i][0] != '-' && !dir) {
			dir = argv[i];
		} else {
			usage();
			return 2;
		}
	}
	if (!dir || isatty(STDOUT_FILENO)) {
		usage();
		return 2;
	}

	cpio_init(&w, STDOUT_FILENO, (uint32_t)mtime);
	ret = cpio_write_tree(&w, dir, nodes, n_nodes);
	if (ret >= 0)
		ret = cpio_write_trailer(&w);
	if (ret < 0) {
		(void)fprintf(stderr, "mkcpio: writing '%s': %s\n", dir, strerror(-ret));
		return 1;
	}
	return 0;
}
