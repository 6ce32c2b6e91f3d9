// SPDX-License-Identifier: MIT
/* unionroot copyup: runs the copy-up step of a boot on any image tree and
 * writable branch (the host tests, a system booted without an initramfs). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "branch/branch.h"
#include "branch/identity.h"
#include "cmd/cli.h"
#include "cmd/out.h"
#include "conf/config.h"
#include "copyup/copyup.h"

int cmd_copyup(int argc, char **argv)
{
	const char *id = NULL, *image = NULL, *done = "nothing to do";
	int reset = 0, upgrade = UPGRADE_KEEP, i, img, rw, rc;
	struct copyup_result res;
	struct branch_result br;
	char idbuf[MF_ID_MAX];
	const char *what;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--reset") == 0)
			reset = 1;
		else if (strcmp(argv[i], "--upgrade") == 0 && i + 1 < argc)
			upgrade = strcmp(argv[++i], "reset") == 0 ? UPGRADE_RESET : UPGRADE_KEEP;
		else if (strcmp(argv[i], "--id") == 0 && i + 1 < argc)
			id = argv[++i];
		else if (strcmp(argv[i], "--image") == 0 && i + 1 < argc)
			image = argv[++i];
		else
			return cli_usage("copyup", argv[i]);
	}
	if (argc - i != 2 || (!id && !image))
		return cli_usage("copyup", NULL);
	if (!id) {
		rc = identity_path(image, idbuf, sizeof(idbuf));
		if (rc < 0) {
			out_err("unionroot copyup: identity of %s: %s\n", image, strerror(-rc));
			return 1;
		}
		id = idbuf;
	}
	img = open(argv[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rw = open(argv[i + 1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (img < 0 || rw < 0) {
		out_err("unionroot copyup: %s: %s\n", argv[img < 0 ? i : i + 1], strerror(errno));
		return 1;
	}
	if (branch_holds_symlinks(rw) == 0) {
		/* as the boot refuses it: a copy would lose every link of the image */
		out_err("unionroot copyup: writable branch %s cannot hold symbolic links, so no root can live on it; nothing copied\n",
			argv[i + 1]);
		close(img);
		close(rw);
		return 1;
	}
	rc = branch_prepare(rw, 0, &br, &what);
	if (rc < 0) {
		out_err("unionroot copyup: %s: %s failed: %s\n", argv[i + 1], what, strerror(-rc));
		return 1;
	}
	rc = copyup_apply(img, rw, id, reset, upgrade, &res, &done);
	if (res.base_damaged)
		out_err("unionroot copyup: the manifest is damaged (%s); merged without it\n",
			res.base_err);
	out("copyup: %s: copied %u, updated %u, removed %u, kept %u (conflicts %u), stay deleted %u, entries %u, errors %u, %llu bytes\n",
	       done, res.copied, res.updated, res.removed, res.kept, res.conflicts, res.stay_deleted,
	       res.entries, res.errors, (unsigned long long)res.bytes);
	if (rc < 0)
		out_err("unionroot copyup: failed: %s\n", strerror(-rc));
	close(img);
	close(rw);
	return rc < 0 ? 1 : 0;
}
