// SPDX-License-Identifier: MIT
/* Tells systemd that the media stay mounted until the end: a medium holds
 * the file under the root's loop device, so its mount unit cannot stop
 * ("Failed unmounting /run/unionroot/media/0"). systemd leaves a mount
 * alone at shutdown whose options hold x-initrd.mount, and it reads the
 * options of a mount made without mount(8) from libmount's utab. The
 * shutdown program (init/shutdown.c) unmounts the media. */
#include <fcntl.h>
#include <string.h>

#include "boot.h"
#include "lib/fdcopy.h"
#include "lib/log.h"
#include "lib/mountinfo.h"
#include "lib/runstate.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"

#define UTAB_DIR "/run/mount"
#define UTAB UTAB_DIR "/utab"

void utab_keep_media(void)
{
	static char text[16384], lines[2048];
	struct sbuf sb;
	struct mountinfo m;
	char *pos = text;
	ssize_t got = sys_read_file("/proc/self/mountinfo", text, sizeof(text));
	int fd, rc;

	sbuf_init(&sb, lines, sizeof(lines));
	/* the source as mountinfo escapes it, which is utab's escaping too; the
	 * mount point is PID 1's own, its root the medium's "/" */
	while (got > 0 && mountinfo_next(&pos, &m))
		if (strncmp(m.target, RUN_MEDIA "/", sizeof(RUN_MEDIA)) == 0)
			sbuf_addf(&sb, "SRC=%s TARGET=%s ROOT=/ OPTS=x-initrd.mount\n", m.source, m.target);
	rc = got < 0 ? (int)got : sbuf_done(&sb);
	if (rc == 0 && sb.len == 0)
		return;
	if (rc == 0)
		rc = sys_mkdir_p(UTAB_DIR, 0755);
	if (rc == 0) {
		fd = rc = sys_openat(AT_FDCWD, UTAB, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd >= 0) {
			rc = fd_write_all(fd, lines, sb.len);
			sys_close(fd);
		}
	}
	if (rc < 0)
		log_warn("%s: %s; systemd will fail to unmount the media", UTAB, strerror(-rc));
}
