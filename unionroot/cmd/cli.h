/* SPDX-License-Identifier: MIT */
/* The admin commands: a table of names, one function each. */
#ifndef UNIONROOT_CLI_H
#define UNIONROOT_CLI_H

#include "defs.h"

#define UNIONROOT_VERSION "0.1"

int cli_main(int argc, char **argv);
/* A command's usage error: its usage line from the table on stderr, after
 * the option it did not know (bad, or NULL). Returns the exit status, 2. */
int cli_usage(const char *name, const char *bad);

int cmd_status(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_boot_ok(int argc, char **argv);
int cmd_test_reset(int argc, char **argv);
int cmd_test_reserve(int argc, char **argv);
int cmd_copyup(int argc, char **argv);
/* unionroot diff's line "K /path" on stdout, for both backends: control
 * bytes, DEL and '\' as \xHH, so a file name cannot forge or break a line.
 * 0 or -EIO. */
int diff_print(char kind, const char *path) WUR;

#endif
