// SPDX-License-Identifier: MIT
/* A plan from a command line alone, for the network layers' tests. */
#include "plan_case.h"

#include <stdio.h>
#include <string.h>

void plan_for(struct config *c, struct plan_facts *f, struct plan *p, const char *cmdline)
{
	char buf[512];

	config_defaults(c);
	snprintf(buf, sizeof(buf), "union.upper=tmpfs %s", cmdline);
	config_apply_text(c, buf, 0, NULL, NULL);
	memset(f, 0, sizeof(*f));
	f->cfg = c;
	f->have_overlay = 1;
	plan_build(f, p);
}

int row_of(const struct plan *p, int kind)
{
	for (unsigned i = 0; i < p->nrow; i++)
		if (p->row[i].kind == kind)
			return (int)i;
	return -1;
}
