// SPDX-License-Identifier: MIT
/* The tool_run_input stand-in of init_tool.h. */
#include "init_tool.h"

#include <stdio.h>
#include <string.h>

#include "../../init/boot.h"
#include "fake_sys.h"

int tool_answer, tool_runs;
unsigned tool_layer;
unsigned tool_took_ms;
char tool_argv[4][64];
char tool_input[64];

void tool_forget(int answer)
{
	tool_answer = answer;
	tool_runs = 0;
	tool_layer = 99;
	tool_took_ms = 0;
	memset(tool_argv, 0, sizeof(tool_argv));
	memset(tool_input, 0, sizeof(tool_input));
}

int tool_run_input(const struct tool *t, char *const argv[], unsigned timeout_s, const void *in, size_t len)
{
	(void)timeout_s;
	snprintf(tool_input, sizeof(tool_input), "%.*s", in ? (int)len : 0, in ? (const char *)in : "");
	tool_runs++;
	tool_layer = t->layer;
	memset(tool_argv, 0, sizeof(tool_argv));
	for (int i = 0; i < 4 && argv[i]; i++)
		snprintf(tool_argv[i], sizeof(tool_argv[i]), "%s", argv[i]);
	fake_now_ms += tool_took_ms;
	return tool_answer;
}
