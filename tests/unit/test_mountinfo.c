// SPDX-License-Identifier: MIT
/* /proc/self/mountinfo read in place: the optional fields skipped, the
 * escapes of a path decoded, a short line skipped. */
#include <string.h>

#include "lib/mountinfo.h"
#include "unit.h"

static void fields_optional_fields_and_escapes(void)
{
	char text[] = "22 1 0:21 / / rw,relatime shared:1 - overlay overlay rw,lowerdir=/x\n"
		      "30 22 8:0 / /run/unionroot/media/0 rw master:2 shared:3 - vfat /dev/sda rw\n"
		      "short line\n"
		      "31 22 0:30 /sub\\040dir /mnt/with\\040space rw - ext4 /dev/vda1 rw";
	char *pos = text;
	struct mountinfo m;

	CHECK_INT(mountinfo_next(&pos, &m), 1);
	CHECK_STR(m.target, "/");
	CHECK_STR(m.type, "overlay");
	CHECK_INT(mountinfo_next(&pos, &m), 1);
	CHECK_STR(m.root, "/");
	CHECK_STR(m.target, "/run/unionroot/media/0");
	CHECK_STR(m.type, "vfat");
	CHECK_STR(m.source, "/dev/sda");
	CHECK_INT(mountinfo_next(&pos, &m), 1);
	CHECK_STR(m.root, "/sub\\040dir");
	CHECK_STR(m.target, "/mnt/with space");
	CHECK_STR(m.source, "/dev/vda1");
	CHECK_INT(mountinfo_next(&pos, &m), 0);
}

UNIT_SUITE(mountinfo,
	   { "fields, optional fields and escapes; a short line is skipped", fields_optional_fields_and_escapes });
