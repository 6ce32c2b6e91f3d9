/* SPDX-License-Identifier: MIT */
/* Other live systems' parameters on the command line: live-boot's
 * (boot=live persistence persistence-label= toram findiso=), casper's
 * (persistent), dracut's (root=live: rd.live.image rd.live.overlay=
 * rd.live.ram iso-scan/filename=) and overlayroot's (overlayroot=). Each is
 * said in one line with what it means here; with union.compat= naming its
 * family, one that means what a union.* parameter means acts as that one,
 * unless the command line names the union.* parameter itself. */
#ifndef UNIONROOT_PEERS_H
#define UNIONROOT_PEERS_H

#include "conf/config.h"

/* key[=val] is a peer's parameter: kept in c (the last of a key wins), 1;
 * 0 when it is not one (boot=other, root=/dev/x, ...). */
int peers_seen(struct config *c, const char *key, const char *val);
/* After the command line: each parameter kept is said in c->peer_said,
 * one line each, and those union.compat= names act (config_apply). */
void peers_resolve(struct config *c, config_err_fn err, void *ctx);

#endif
