// SPDX-License-Identifier: MIT
/* Logging for PID 1 and the admin commands. PID 1 writes whole records with
 * write(2): buffered stdio would be duplicated by fork or lost at exec. */
#include "lib/log.h"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "lib/fdcopy.h"
#include "lib/fmt.h"

static struct {
	int kmsg;
	int console;
	int quiet;
	int debug;
	int echo_below; /* kernel prints kmsg records with level < this */
	unsigned kept;
} lg = { .kmsg = -1, .console = -1, .echo_below = 0 };

/* apart from lg so that it stays in .bss, not in the file */
static char keep[LOG_KEEP][LOG_LINE_MAX];

void log_setup(int kmsg_fd, int console_fd)
{
	lg.kmsg = kmsg_fd;
	lg.console = console_fd;
}

void log_set_quiet(int quiet)
{
	lg.quiet = quiet;
}

void log_set_debug(int debug)
{
	lg.debug = debug;
}

void log_set_console_loglevel(int level)
{
	lg.echo_below = level;
}

void ur_log(int level, const char *fmt, ...)
{
	char line[LOG_LINE_MAX];
	char rec[LOG_LINE_MAX + 8];
	va_list ap;
	size_t n, r;

	if (level >= L_DEBUG && !lg.debug)
		return;
	va_start(ap, fmt);
	n = fmt_vsn(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n >= sizeof(line) - 1)
		n = sizeof(line) - 2; /* a long user value: cut the line, keep the record */
	/* one record, one line: a byte of a label or of a tool's output can
	 * neither start a line of its own (a forged "unionroot: ...") nor steer
	 * the terminal (ESC): control bytes become '?', a tab a space */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
			line[i] = line[i] == '\t' ? ' ' : '?';
	if (level <= L_WARN) {
		memcpy(keep[lg.kept % LOG_KEEP], line, n + 1);
		lg.kept++;
	}
	line[n++] = '\n';

	if (lg.kmsg < 0 && lg.console < 0) {
		IGNORE(fd_write_all(2, "unionroot: ", 11)); /* nowhere to say that it failed */
		IGNORE(fd_write_all(2, line, n));
		return;
	}
	if (lg.kmsg >= 0) {
		r = fmt_sn(rec, sizeof(rec), "<%d>unionroot: ", level);
		if (r + n <= sizeof(rec)) {
			memcpy(rec + r, line, n);
			IGNORE(fd_write_all(lg.kmsg, rec, r + n));
		}
	}
	if (lg.console >= 0 && (level <= L_WARN || !lg.quiet) &&
	    !(lg.kmsg >= 0 && level < lg.echo_below)) {
		IGNORE(fd_write_all(lg.console, "unionroot: ", 11));
		IGNORE(fd_write_all(lg.console, line, n));
	}
}

unsigned log_kept_count(void)
{
	return lg.kept < LOG_KEEP ? lg.kept : LOG_KEEP;
}

const char *log_kept(unsigned i)
{
	unsigned first = lg.kept < LOG_KEEP ? 0 : lg.kept - LOG_KEEP;

	return keep[(first + i) % LOG_KEEP];
}
