// SPDX-License-Identifier: MIT
/* A build without other live systems' parameters (PEERS=0): none is
 * recognised, and union.compat= says it acts on nothing. */
#include "conf/peers.h"

#include "lib/sbuf.h"

int peers_seen(struct config *c, const char *key, const char *val)
{
	(void)c, (void)key, (void)val;
	return 0;
}

void peers_resolve(struct config *c, config_err_fn err, void *ctx)
{
	(void)err, (void)ctx;
	if (c->compat != COMPAT_NONE)
		IGNORE(strcopy(c->peer_said, sizeof(c->peer_said),
			       "union.compat: this build leaves other live systems' parameters out\n"));
}
