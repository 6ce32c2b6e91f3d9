// SPDX-License-Identifier: MIT
/* Overlay options: every safety option explicit, paths checked. */
#include <errno.h>

#include "overlay.h"
#include "unit.h"

static void persistent_unions_pass_every_option_explicitly(void)
{
	const char *lowers[] = { "/run/unionroot/lower/0", "/run/unionroot/lower/1" };
	char buf[512];

	CHECK_INT(overlay_options(buf, sizeof(buf), lowers, 2, "/rw/upper", "/rw/work"), 0);
	CHECK_STR(buf, "lowerdir=/run/unionroot/lower/0:/run/unionroot/lower/1,upperdir=/rw/upper,"
		       "workdir=/rw/work,index=off,redirect_dir=nofollow,metacopy=off,xino=off,"
		       "nfs_export=off");
}

static void a_read_only_union_has_no_upper(void)
{
	const char *lowers[] = { "/a", "/b" };
	char buf[512];

	CHECK_INT(overlay_options(buf, sizeof(buf), lowers, 2, NULL, NULL), 0);
	CHECK(strstr(buf, "upperdir") == NULL);
	CHECK(strncmp(buf, "lowerdir=/a:/b,", 15) == 0);
}

static void separators_in_paths_and_short_buffers_are_refused(void)
{
	const char *comma[] = { "/a,b" }, *colon[] = { "/a:b" }, *rel[] = { "a" }, *ok[] = { "/a" };
	char buf[512], tiny[20];

	CHECK_INT(overlay_options(buf, sizeof(buf), comma, 1, NULL, NULL), -EINVAL);
	CHECK_INT(overlay_options(buf, sizeof(buf), colon, 1, NULL, NULL), -EINVAL);
	CHECK_INT(overlay_options(buf, sizeof(buf), rel, 1, NULL, NULL), -EINVAL);
	CHECK_INT(overlay_options(buf, sizeof(buf), ok, 1, "/u", NULL), -EINVAL);
	CHECK_INT(overlay_options(buf, sizeof(buf), ok, 0, NULL, NULL), -EINVAL);
	CHECK_INT(overlay_options(tiny, sizeof(tiny), ok, 1, "/u", "/w"), -ENAMETOOLONG);
}

UNIT_SUITE(overlay,
	   { "persistent unions pass every option explicitly", persistent_unions_pass_every_option_explicitly },
	   { "a read-only union has no upper", a_read_only_union_has_no_upper },
	   { "separators in paths and short buffers are refused", separators_in_paths_and_short_buffers_are_refused });
