// SPDX-License-Identifier: MIT
/* libFuzzer target for the boot configuration: the input is a board file
 * (first half, with comments) and a kernel command line (second half). Every
 * value that survives must be one the boot can use. */
#include "conf/config.h"
#include "conf/spec.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void ignore(const char *msg, void *ctx)
{
	(void)ctx;
	if (strlen(msg) >= CFG_ERR_MAX)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char board[8193], cmdline[8193];
	struct spec specs[SPEC_LIST_MAX];
	struct config c;
	char why[CFG_ERR_MAX];
	size_t half = size / 2;
	int n;

	if (size > 16384)
		return 0;
	memcpy(board, data, half);
	board[half] = '\0';
	memcpy(cmdline, data + half, size - half);
	cmdline[size - half] = '\0';
	config_defaults(&c);
	config_apply_text(&c, board, 1, ignore, NULL);
	config_apply_text(&c, cmdline, 0, ignore, NULL);
	if (c.wait < 0 || c.wait > 3600 || c.maxfails > 1000 || c.mode > MODE_COPYUP)
		__builtin_trap();
	n = c.lower[0] ? spec_list_parse(c.lower, specs, SPEC_LIST_MAX, why, sizeof(why)) : 0;
	if (c.lower[0] && n < 1)
		__builtin_trap();
	/* a layer the config took is one its step can take: an nfs: layer's
	 * value splits, and it names one image at most */
	for (int i = 0; i < n; i++) {
		uint32_t addr;
		unsigned port;
		const char *export_path;

		if (specs[i].kind == SPEC_NFS &&
		    (specs[i].npaths > 1 || spec_nfs_split(specs[i].value, &addr, &port, &export_path) < 0 ||
		     port == 0 || port > 65535 || export_path[0] != '/'))
			__builtin_trap();
	}
	if (c.upper[0] && strcmp(c.upper, "tmpfs") != 0 && strcmp(c.upper, "none") != 0 &&
	    spec_parse(c.upper, specs, why, sizeof(why)) < 0)
		__builtin_trap();
	return 0;
}
