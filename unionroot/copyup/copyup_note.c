// SPDX-License-Identifier: MIT
/* The warnings of one copy-up run about its paths, the first few shown:
 * the walk (copyup.c) and what left the image (copyup_gone.c) both note. */
#include "copyup/copyup_walk.h"

#include "lib/log.h"

#define NOTES_MAX 8

void cu_note(struct run *r, const char *what)
{
	if (r->notes++ < NOTES_MAX)
		log_warn("copy-up: /%s %s", r->rel.s, what);
	else if (r->notes == NOTES_MAX + 1)
		log_warn("copy-up: more notes like these are not shown");
}
