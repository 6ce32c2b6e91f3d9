// SPDX-License-Identifier: MIT
/* The board file, then the command line (config_boot.h). */
#include "config_boot.h"

#include <stdio.h>

void config_boot(struct config *c, const char *board, const char *cmdline, config_err_fn err, void *ctx)
{
	static char buf[2048]; /* the text outlives the call: peers keep pointers into it */

	config_defaults(c);
	snprintf(buf, sizeof(buf), "%s", board);
	config_apply_text(c, buf, 1, err, ctx);
	snprintf(buf, sizeof(buf), "%s", cmdline);
	config_apply_text(c, buf, 0, err, ctx);
}
