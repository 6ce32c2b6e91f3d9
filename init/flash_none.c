// SPDX-License-Identifier: MIT
/* Raw flash in a build without it (make FLASH=0): the plan never waits for
 * an mtd: or ubi: medium there, nor formats one, so these never run. */
#include <errno.h>

#include "boot.h"

int flash_resolve(struct boot *b, const struct spec *s, int is_upper, char *dev, char *type,
		  const char *role)
{
	(void)b, (void)s, (void)is_upper, (void)dev, (void)type, (void)role;
	return -EOPNOTSUPP;
}

int flash_upper_marked(void)
{
	return 0;
}

int flash_format_upper(struct boot *b)
{
	(void)b;
	return -EOPNOTSUPP;
}
