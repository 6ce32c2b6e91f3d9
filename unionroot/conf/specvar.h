/* SPDX-License-Identifier: MIT */
/* ${mac} and ${hostname} in an nbd: export name, so that one command line
 * gives each client a branch of its own on a shared server
 * (nbd:10.0.2.100:10809/clients-${mac}). Pure: names checked when the
 * configuration is read, values put in once the network is up. */
#ifndef UNIONROOT_SPECVAR_H
#define UNIONROOT_SPECVAR_H

#include <stddef.h>

#include "lib/defs.h"

#define SPECVAR_MAC_TEXT 18  /* "52-54-00-12-34-56" and its NUL */
#define SPECVAR_HOST_MAX 65  /* a host name (__NEW_UTS_LEN) and its NUL */
#define SPECVAR_NAMES "${mac} or ${hostname}"

struct specvar_vals {
	const char *mac;       /* "52-54-00-12-34-56", NULL or "" not known */
	const char *hostname;  /* DHCP's or ip='s, NULL or "" none */
};

/* Each ${NAME} of text is one this file knows: 0, or -EINVAL with why. */
int specvar_check(const char *text, char *why, size_t whycap) WUR;
/* text into out with each ${NAME} replaced by its value: 0, or -EINVAL
 * (an unknown name, no value, a host name an export name cannot hold) or
 * -ENAMETOOLONG, with why. A '$' not followed by '{' is itself. */
int specvar_expand(const char *text, const struct specvar_vals *v, char *out, size_t cap, char *why,
		   size_t whycap) WUR;
/* /sys/class/net/DEV/address ("52:54:00:12:34:56\n") as ${mac} spells it,
 * 12 lowercase hex digits joined by dashes: 0, or -EINVAL. */
int specvar_mac(const char *text, char out[SPECVAR_MAC_TEXT]) WUR;

#endif
