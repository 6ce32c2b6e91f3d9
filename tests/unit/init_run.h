/* SPDX-License-Identifier: MIT */
/* The fault cases of the boot's loop (init_run_cases.c), and what the
 * cases' fixtures may use of the run (init_run.c). */
#ifndef INIT_RUN_H
#define INIT_RUN_H

#include <stddef.h>

struct boot;

struct run_fault {
	const char *call, *arg;        /* as fake_sys_fail() takes them */
	unsigned nth;
	int err;
};

struct run_case {
	int kind;                      /* the enum run_kind the fault breaks; -1: no fault */
	const char *name;
	const char *cmdline;           /* after the board's union.lower/upper */
	void (*prepare)(void);         /* files and facts before the boot, NULL none */
	struct run_fault fault[2];
	const char *rows;              /* the steps run, in order, until the hand-off */
	int power;                     /* the reboot(2) command the boot stopped with, 0 none,
					* or RUN_EXITED(status): mount-root's exit */
	const char *at;                /* mount-root --at this directory, NULL: PID 1 */
	const char *state;             /* the status's upper_state starts so, NULL: not looked at */
	const char *backend;           /* the root's backend, NULL: not looked at */
	const char *said;              /* a line of the log holds it */
	const char *unsaid;            /* no line of the log holds it */
	const char *calls;             /* system calls made in this order, "|" between */
	const char *never;             /* a system call not made */
	const char *(*check)(void);    /* what else is wrong after, NULL all right */
};

#define RUN_EXITED(status) (0x10000 | (status))

extern const struct run_case run_cases[];
extern const size_t run_ncases;

/* For prepare and check: the boot, a file written beneath the case's root
 * (its directories made), a squashfs superblock there. */
struct boot *run_boot_state(void);
void run_put(const char *path, const char *text);
void run_put_squashfs(const char *path);
#endif
