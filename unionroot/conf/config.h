/* SPDX-License-Identifier: MIT */
/* The boot configuration: board defaults, then the kernel command line.
 * Every value is validated; a bad one is named and replaced by its default. */
#ifndef UNIONROOT_CONFIG_H
#define UNIONROOT_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "conf/spec.h"
#include "lib/defs.h"
#include "conf/verity_arg.h"

#define CFG_SPEC_MAX 256   /* one SPEC */
#define UPPER_KEY ":key="  /* union.upper=SPEC:key=KEYSPEC, a LUKS branch's key file */
#define CFG_LIST_MAX 1024  /* a comma list of SPECs */
#define CFG_PATH_MAX 256
#define CFG_OPTS_MAX 256
#define CFG_WORD_MAX 32
#define CFG_ERR_MAX 256
#define CFG_WAIT_FOREVER (-1)
#define CFG_PERSIST_MIN (16ull << 20) /* an ext4 with room for work/ and a change */
#define CFG_PERSIST_MAX (1ull << 44)  /* 16 TiB */

enum cfg_mode { MODE_AUTO, MODE_OVERLAY, MODE_COPYUP };
enum cfg_onfail { ONFAIL_TMPFS, ONFAIL_SHELL, ONFAIL_REBOOT, ONFAIL_HALT };
enum cfg_reset { RESET_OFF, RESET_ON, RESET_KEEP };
enum cfg_upgrade { UPGRADE_KEEP, UPGRADE_RESET, UPGRADE_KEEPLIST };
enum cfg_scan { SCAN_ALL, SCAN_REMOVABLE };
/* Which drivers PID 1 loads: those the media need, or all the hardware asks for. */
enum cfg_drivers { DRIVERS_BOOT, DRIVERS_ALL };
enum cfg_rorw { RORW_DEFAULT, RORW_RO, RORW_RW };
enum cfg_break { BREAK_MODULES = 1, BREAK_MOUNT = 2, BREAK_SWITCH = 4 };
/* What the root loses when its writable branch is on removable media. */
enum cfg_removable { REMOVABLE_NODEV_NOSUID, REMOVABLE_NODEV, REMOVABLE_NONE };
/* Whose parameters act here (union.compat, conf/peers.h). */
enum cfg_compat { COMPAT_NONE, COMPAT_LIVEBOOT, COMPAT_DRACUT };
#define CFG_PEERS 8        /* other live systems' parameters kept */
#define CFG_PEER_SAID 1536 /* their lines */

struct config {
	char lower[CFG_LIST_MAX];   /* union.lower, "" = use root= */
	char image[CFG_PATH_MAX];   /* union.image */
	char upper[CFG_SPEC_MAX];   /* union.upper: SPEC, "tmpfs" or "none" */
	char upperfs[CFG_WORD_MAX];
	char upperflags[CFG_OPTS_MAX];
	int mode;                   /* enum cfg_mode */
	int wait;                   /* seconds, CFG_WAIT_FOREVER */
	int reset;                  /* enum cfg_reset */
	int onfail;                 /* enum cfg_onfail */
	int brk;                    /* enum cfg_break bits */
	int toram;
	int insecure;               /* union.insecure=1: an http:// layer taken unverified */
	int upgrade;                /* enum cfg_upgrade */
	int maxfails;
	int session_volatile;
	char size[CFG_WORD_MAX];    /* tmpfs size= */
	char persist_size[CFG_WORD_MAX]; /* union.persist.size: make a missing persistence file */
	int scan;                   /* enum cfg_scan */
	int drivers;                /* enum cfg_drivers */
	int removable;              /* enum cfg_removable */
	char format[CFG_WORD_MAX];  /* union.format, "" = never */
	char ubi[CFG_SPEC_MAX];
	char verity[CFG_LIST_MAX];  /* union.verity: verity_args_parse */
	char verity_bad[CFG_ERR_MAX]; /* why a union.verity value was refused, "" none:
				       * a security parameter fails closed, so the plan
				       * refuses the layers instead of booting them unverified */
	int verity_onerror;         /* enum verity_onerror (verity.h) */
	int fsck;
	int warnfull;
	char init[CFG_PATH_MAX];    /* union.init / init=, "" = the fallback list */
	int debug;
	int quiet;
	char crashafter[CFG_WORD_MAX]; /* union.test.crashafter: test builds only */
	int stall;                  /* union.test.stall, seconds: test builds only */
	/* standard parameters */
	char root[CFG_SPEC_MAX];
	char rootfstype[CFG_WORD_MAX];
	char rootflags[CFG_OPTS_MAX];
	int rootwait;
	int rootdelay;              /* seconds to pause before the device wait, -1 = not given */
	char ip[CFG_OPTS_MAX];      /* ip=, the kernel's syntax: read by the network step */
	int rorw;                   /* enum cfg_rorw */
	int compat;                 /* enum cfg_compat: union.compat */

	/* The SPECs and union.verity, parsed once, when their value is taken:
	 * every reader uses these, none parses the text again. */
	struct spec upper_spec;     /* union.upper, when upper_is_spec */
	int upper_is_spec;          /* union.upper names a device: not "", tmpfs or none */
	struct spec upper_key;      /* union.upper=SPEC:key=KEYSPEC: the key file of a LUKS branch */
	int upper_keyed;            /* it names one; else a passphrase is asked for */
	struct spec lower_spec[SPEC_LIST_MAX]; /* union.lower */
	unsigned nlower_spec;
	struct spec root_spec;      /* root=, when root is set */
	struct verity_arg verity_arg[SPEC_LIST_MAX]; /* union.verity */
	unsigned nverity_arg;

	/* The command line (not the board): which parameters it named, and
	 * other live systems' parameters on it, said and acted on by
	 * conf/peers.c when it is read whole. */
	uint64_t given;             /* a bit per row of config.c's table */
	unsigned npeer;
	struct config_peer {
		unsigned char row;  /* of peers.c's table */
		const char *val;    /* in the text read, NULL: none */
	} peer[CFG_PEERS];
	char peer_said[CFG_PEER_SAID]; /* a line each, "" none */
};

/* The read-only layers' SPECs: union.lower's, else root='s one; *n of them. */
const struct spec *config_layers(const struct config *c, unsigned *n);

/* Called once per rejected value with a one-line reason. */
typedef void (*config_err_fn)(const char *msg, void *ctx);

void config_defaults(struct config *c);
/* Applies one key[=val]. Returns 1 when the key is ours, 0 when it is not
 * (a module parameter, console=, ...); a bad value reports through err and
 * leaves the default in place. */
int config_apply(struct config *c, const char *key, const char *val,
		 config_err_fn err, void *ctx);
/* Applies a whole config text (board: the board file, with # comments) or
 * the command line (board 0), modified in place. A command line naming
 * union.lower= or root= replaces the board's layers; lower stays "" when
 * they come from root=. */
void config_apply_text(struct config *c, char *text, int board,
		       config_err_fn err, void *ctx);
/* The deadline for devices, in seconds (CFG_WAIT_FOREVER): union.wait, or
 * none with rootwait. rootdelay= is a pause before it, not part of it. */
int config_wait(const struct config *c);
/* A size "N[KMGT]" (binary units, either case) in bytes: 0, -EINVAL or
 * -ERANGE. */
int config_bytes(const char *v, uint64_t *out) WUR;
/* The real init's candidates when init= / union.init names none or one
 * that is not there, in the order they are tried. */
#define CFG_INITS 4
extern const char config_inits[CFG_INITS][12];
/* The same as text for messages: "/sbin/init, /etc/init, ...". */
int config_inits_text(char *buf, size_t cap) WUR;
/* 1 when the command line named key (a parameter of the table). */
int config_given(const struct config *c, const char *key);
/* Names for enum values, for plan/status output. */
const char *config_mode_name(int mode);
const char *config_onfail_name(int onfail);

#endif
