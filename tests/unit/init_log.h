/* SPDX-License-Identifier: MIT */
/* What init/ logged during a unit-init case: the console line by line. */
#ifndef INIT_LOG_H
#define INIT_LOG_H

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"

static int console_pipe[2] = { -1, -1 };
static char console_text[8192];

/* Starts catching the log (and closes the last catch). */
static inline void console_catch(void)
{
	if (console_pipe[0] >= 0) {
		close(console_pipe[0]);
		close(console_pipe[1]);
	}
	if (pipe2(console_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		console_pipe[0] = console_pipe[1] = -1;
	log_setup(-1, console_pipe[1]);
	log_set_debug(1);
}

/* Everything logged since console_catch(). */
static inline const char *console_said(void)
{
	ssize_t n = read(console_pipe[0], console_text, sizeof(console_text) - 1);

	console_text[n > 0 ? n : 0] = '\0';
	return console_text;
}
#endif
