/* SPDX-License-Identifier: MIT */
/* unit-init's stand-in for init/tool.c's tool_run_input (no process is started):
 * it records what was asked, takes tool_took_ms of the fake clock and
 * answers tool_answer. */
#ifndef INIT_TOOL_H
#define INIT_TOOL_H

extern int tool_answer, tool_runs;
extern unsigned tool_layer; /* where the last run's tool was: TOOL_INITRAMFS or layer N */
extern unsigned tool_took_ms;
extern char tool_argv[4][64]; /* the last run's first four arguments */
extern char tool_input[64];   /* and what it was given on its standard input */
void tool_forget(int answer);
#endif
