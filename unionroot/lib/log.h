/* SPDX-License-Identifier: MIT */
/* Logging: one record to /dev/kmsg and one line to the console, formatted on
 * the stack (no stdio); warnings and errors are kept for the status file. */
#ifndef UNIONROOT_LOG_H
#define UNIONROOT_LOG_H

#include "lib/defs.h"

enum log_level { L_ERR = 3, L_WARN = 4, L_NOTE = 5, L_INFO = 6, L_DEBUG = 7 };

#define LOG_LINE_MAX 512
#define LOG_KEEP 16

/* kmsg_fd and console_fd may be -1; without either, lines go to stderr. */
void log_setup(int kmsg_fd, int console_fd);
void log_set_quiet(int quiet);
void log_set_debug(int debug);
/* The kernel echoes kmsg records below this level to the console itself. */
void log_set_console_loglevel(int level);
void ur_log(int level, const char *fmt, ...) PRINTF(2, 3);

/* Warnings and errors so far, oldest first; i < log_kept_count(). */
unsigned log_kept_count(void);
const char *log_kept(unsigned i);

#define log_err(...) ur_log(L_ERR, __VA_ARGS__)
#define log_warn(...) ur_log(L_WARN, __VA_ARGS__)
#define log_note(...) ur_log(L_NOTE, __VA_ARGS__)
#define log_info(...) ur_log(L_INFO, __VA_ARGS__)
#define log_debug(...) ur_log(L_DEBUG, __VA_ARGS__)

#endif
