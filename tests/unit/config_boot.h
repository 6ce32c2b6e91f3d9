/* SPDX-License-Identifier: MIT */
/* The board file, then the command line, read as init/configure.c reads
 * them: what the configuration tests start from. */
#ifndef UNIT_CONFIG_BOOT_H
#define UNIT_CONFIG_BOOT_H

#include "conf/config.h"

void config_boot(struct config *c, const char *board, const char *cmdline, config_err_fn err, void *ctx);

#endif
