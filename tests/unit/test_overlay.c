// SPDX-License-Identifier: MIT
/* Overlay options: every safety option explicit, paths checked. */
#include <errno.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

#include "overlay/overlay.h"
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

static void a_whiteout_is_a_character_device_0_0(void)
{
	struct stat st = { .st_mode = S_IFCHR | 0, .st_rdev = 0 };

	CHECK_INT(overlay_is_whiteout(&st), 1);
	st.st_rdev = makedev(1, 3); /* /dev/null kept in an upper is no whiteout */
	CHECK_INT(overlay_is_whiteout(&st), 0);
	st.st_mode = S_IFREG | 0644;
	st.st_rdev = 0;
	CHECK_INT(overlay_is_whiteout(&st), 0);
}

static void the_overlay_module_is_looked_for_under_the_running_kernel(void)
{
	struct utsname u;
	char want[400], buf[400];

	CHECK_INT(uname(&u), 0);
	snprintf(want, sizeof(want), "/lib/modules/%s/kernel/fs/overlayfs/overlay.ko", u.release);
	CHECK_INT(overlay_module_path(0, buf, sizeof(buf)), 0);
	CHECK_STR(buf, want);
	CHECK_INT(overlay_module_path(1, buf, sizeof(buf)), 1); /* compressed */
	CHECK(strstr(buf, "/overlay.ko.xz") != NULL);
	CHECK_INT(overlay_module_path(2, buf, sizeof(buf)), 1);
	CHECK(strstr(buf, "/overlay.ko.zst") != NULL);
	CHECK_INT(overlay_module_path(3, buf, sizeof(buf)), -ENOENT);
	CHECK_INT(overlay_module_path(0, buf, 20), -ENAMETOOLONG);
}

UNIT_SUITE(overlay,
	   { "persistent unions pass every option explicitly", persistent_unions_pass_every_option_explicitly },
	   { "a read-only union has no upper", a_read_only_union_has_no_upper },
	   { "separators in paths and short buffers are refused", separators_in_paths_and_short_buffers_are_refused },
	   { "a whiteout is a character device 0:0", a_whiteout_is_a_character_device_0_0 },
	   { "the overlay module is looked for under the running kernel",
	     the_overlay_module_is_looked_for_under_the_running_kernel });
