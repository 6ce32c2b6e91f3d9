/* SPDX-License-Identifier: MIT */
/* A plan from a command line alone (union.upper=tmpfs before it, overlayfs
 * known), and where a kind of row stands in it: what the network layers'
 * tests start from. */
#ifndef UNIT_PLAN_CASE_H
#define UNIT_PLAN_CASE_H

#include "conf/config.h"
#include "plan/plan.h"

void plan_for(struct config *c, struct plan_facts *f, struct plan *p, const char *cmdline);
/* The index of the first row of kind in p, -1 when there is none. */
int row_of(const struct plan *p, int kind);

#endif
