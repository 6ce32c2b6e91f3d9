// SPDX-License-Identifier: MIT
/* A writable branch that is a LUKS container, opened with cryptsetup (the
 * initramfs', else the image's, as mkfs is): with the key file union.upper's
 * key= names, or with a passphrase asked on every console (the screen and
 * the serial line alike), three tries. The opened device is then the
 * branch; unlock_close closes it on the way to any fallback. The key never
 * leaves PID 1 but through the pipe to cryptsetup's standard input. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <termios.h>

#include "boot.h"
#include "lib/log.h"
#include "lib/runstate.h"
#include "lib/sbuf.h"
#include "lib/sys.h"
#include "lib/sysx.h"
#include "media/dm.h"
#include "probe/probe.h"
#include "steps.h"

#define CRYPT_NAME RUN_CRYPT_DM
#define CRYPT_TIMEOUT_S 300 /* argon2 may ask for a second per try on a slow board */
#define KEY_MAX 8192        /* cryptsetup's default for a key file */
#define TRIES 3
#define CONSOLES_MAX 4
#define BAD_KEY 2           /* cryptsetup: no key slot opens with this key */

static const char cryptsetup[][22] = { "/sbin/cryptsetup", "/usr/sbin/cryptsetup" };

static char key[KEY_MAX + 1];

/* The key file: its medium found among the devices (shown within its
 * deadline), the file read beneath the medium's mount. Its length or -errno. */
static ssize_t read_key_file(struct boot *b, const char **what)
{
	const struct spec *s = &b->cfg.upper_key;
	uint64_t until = sys_now_ms() + 1000u * (unsigned)(s->deadline >= 0 ? s->deadline : 10);
	ssize_t n;

	*what = "its key file's medium is not there";
	for (;;) {
		for (unsigned i = 0; i < b->devs.n; i++) {
			const struct blkdev *d = &b->devs.d[i];

			if (d->probed != 1 || !blkdev_match(d, s))
				continue;
			*what = "reading its key file";
			n = image_read_file(b, d->path, d->info.type, s->paths[0], key, sizeof(key));
			if (n > KEY_MAX) {
				*what = "its key file is over 8 KiB";
				return -EFBIG;
			}
			if (n == 0) {
				*what = "its key file is empty";
				return -ENODATA;
			}
			return n;
		}
		if (sys_now_ms() >= until)
			return -ENODEV;
		sys_sleep_ms(250);
		IGNORE(blkdev_refresh(&b->devs)); /* a key stick may come late */
	}
}

/* The consoles the kernel writes to (/proc/consoles), opened for a prompt;
 * /dev/console when none can be read. How many. */
static unsigned open_consoles(int *fd, struct termios *saved)
{
	char text[512], dev[40];
	unsigned n = 0;
	ssize_t len = sys_read_file("/proc/consoles", text, sizeof(text) - 1);

	text[len > 0 ? len : 0] = '\0';
	for (char *line = text, *end; *line && n < CONSOLES_MAX; line = end) {
		size_t name = strcspn(line, " \n");

		end = line + strcspn(line, "\n");
		end += *end == '\n';
		if (!name || name > 30)
			continue;
		memcpy(dev, "/dev/", 5);
		memcpy(dev + 5, line, name);
		dev[5 + name] = '\0';
		if ((fd[n] = sys_open(dev, O_RDWR | O_NOCTTY | O_CLOEXEC)) >= 0)
			n++;
	}
	if (!n && (fd[0] = sys_open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC)) >= 0)
		n = 1;
	for (unsigned i = 0; i < n; i++) { /* no echo of what is typed */
		struct termios t;

		if (tcgetattr(fd[i], &saved[i]) < 0)
			continue;
		t = saved[i];
		t.c_lflag &= ~(tcflag_t)ECHO;
		t.c_lflag |= ICANON;
		IGNORE(tcsetattr(fd[i], TCSAFLUSH, &t));
	}
	return n;
}

static void close_consoles(int *fd, const struct termios *saved, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		IGNORE(sys_write(fd[i], "\n", 1));
		IGNORE(tcsetattr(fd[i], TCSAFLUSH, &saved[i]));
		sys_close(fd[i]);
	}
}

/* One passphrase, from whichever console answers first: its length, 0 for
 * an empty line, -errno when no console can be read. */
static ssize_t ask(const int *fd, unsigned n, const char *prompt)
{
	struct pollfd p[CONSOLES_MAX];
	ssize_t len;

	for (unsigned i = 0; i < n; i++) {
		IGNORE(sys_write(fd[i], prompt, strlen(prompt)));
		p[i] = (struct pollfd){ fd[i], POLLIN, 0 };
	}
	for (;;) {
		int rc = sys_poll(p, n, -1);

		if (rc == -EINTR)
			continue;
		if (rc < 0)
			return rc;
		for (unsigned i = 0; i < n; i++) {
			if (!(p[i].revents & POLLIN))
				continue;
			len = sys_read(fd[i], key, KEY_MAX);
			if (len == -EINTR || len == -EAGAIN)
				continue;
			while (len > 0 && (key[len - 1] == '\n' || key[len - 1] == '\r'))
				len--;
			return len;
		}
	}
}

/* The file system type dev holds, "" when none is known. */
static void probe_type(const char *dev, char *type, size_t cap)
{
	struct probe_src src;
	struct probe_info info;
	int fd = sys_open(dev, O_RDONLY | O_CLOEXEC);

	type[0] = '\0';
	if (fd < 0)
		return;
	if (probe_src_fd(&src, fd) == 0 && probe_fs(&src, &info) == 1)
		IGNORE(strcopy(type, cap, info.type)); /* FSTYPE_MAX both */
	sys_close(fd);
}

/* The opened device's node, "/dev/dm-N", by its name in sysfs. */
static int crypt_node(char *node, size_t cap)
{
	char path[64], name[64];

	for (unsigned i = 0; i < 64; i++) {
		ssize_t len;

		IGNORE(strfmt(path, sizeof(path), "/sys/block/dm-%u/dm/name", i)); /* fits */
		len = sys_read_file(path, name, sizeof(name) - 1);
		if (len <= 0)
			continue;
		name[len] = '\0';
		if (strcmp(name, CRYPT_NAME "\n") == 0 || strcmp(name, CRYPT_NAME) == 0)
			return strfmt(node, cap, "/dev/dm-%u", i);
	}
	return -ENOENT;
}

static int open_with(const struct tool *t, const char *dev, const void *k, size_t len)
{
	/* no locks: the image's /run is read-only, and PID 1 is alone here */
	char *argv[] = { (char *)t->path, "open", "--type", "luks", "--disable-locks", "--key-file=-",
			 (char *)dev, CRYPT_NAME, NULL };

	return tool_run_input(t, argv, CRYPT_TIMEOUT_S, k, len);
}

/* The passphrase asked for and tried, TRIES times. */
static int open_asking(struct boot *b, const struct tool *t, const char **what)
{
	int fd[CONSOLES_MAX], rc = BAD_KEY;
	struct termios saved[CONSOLES_MAX];
	unsigned n = open_consoles(fd, saved);
	char prompt[DEVNODE_MAX + 80];

	*what = "no console to ask for its passphrase on";
	if (!n)
		return -ENOTTY;
	for (unsigned i = 1; i <= TRIES && rc == BAD_KEY; i++) {
		ssize_t len;

		IGNORE(strfmt(prompt, sizeof(prompt), "\nunionroot: passphrase for LUKS container %s (try %u of %u): ",
			      b->upper_dev, i, TRIES)); /* fits */
		watchdog_step(0, "asking for the passphrase of %s", b->upper_dev); /* as long as it takes */
		len = ask(fd, n, prompt);
		watchdog_step_end();
		if (len < 0) {
			rc = (int)len;
			*what = "reading its passphrase";
			break;
		}
		rc = open_with(t, b->upper_dev, key, (size_t)len);
		if (rc == BAD_KEY)
			log_warn("writable branch %s: that passphrase opens no key slot", b->upper_dev);
	}
	close_consoles(fd, saved, n);
	if (rc == BAD_KEY)
		*what = "no passphrase in 3 tries opened it";
	return rc;
}

int step_unlock(struct boot *b, struct step_out *o)
{
	const char *paths[] = { cryptsetup[0], cryptsetup[1] };
	const char *what = "no cryptsetup in this initramfs or in the image";
	char node[DEVNODE_MAX];
	struct tool t;
	ssize_t len = 0;
	int rc;

	o->step = STEP_UNLOCK;
	log_note("writable branch %s is a LUKS container; opening it with %s", b->upper_dev,
		 b->cfg.upper_keyed ? "its key file" : "a passphrase");
	modules_for_need(NEED_DM); /* dm-crypt waits for a boot that needs it */
	rc = tool_find(b, paths, 2, &t) < 0 ? -ENOENT : 0;
	if (rc == 0 && b->cfg.upper_keyed) {
		len = read_key_file(b, &what);
		rc = len < 0 ? (int)len : 0;
	}
	if (rc == 0) {
		what = "cryptsetup failed";
		rc = b->cfg.upper_keyed ? open_with(&t, b->upper_dev, key, (size_t)len) : open_asking(b, &t, &what);
		rc = rc > 0 ? (rc == BAD_KEY ? -EACCES : -EIO) : rc;
	}
	memset(key, 0, sizeof(key));
	if (rc == 0) {
		what = "finding the opened device";
		rc = crypt_node(node, sizeof(node));
	}
	if (rc < 0) {
		IGNORE(strfmt(o->why, sizeof(o->why), "writable branch: opening LUKS container %s failed: %s",
			      b->upper_dev, what)); /* may cut */
		return rc;
	}
	IGNORE(strcopy(b->upper_locked, sizeof(b->upper_locked), b->upper_dev)); /* same sizes */
	IGNORE(strcopy(b->upper_dev, sizeof(b->upper_dev), node));
	probe_type(node, b->upper_type, sizeof(b->upper_type));
	b->facts.unlocked_from = b->upper_locked;
	log_note("writable branch: LUKS container %s opened as %s (%s)", b->upper_locked, node,
		 b->upper_type[0] ? b->upper_type : "no known file system");
	devices_found_upper(b);
	return 0;
}

void unlock_close(struct boot *b)
{
	int rc;

	if (!b->upper_locked[0])
		return;
	if ((rc = dm_remove(CRYPT_NAME)) < 0)
		log_warn("cannot close %s (%s): %s; it stays open", CRYPT_NAME, b->upper_dev, strerror(-rc));
	IGNORE(strcopy(b->upper_dev, sizeof(b->upper_dev), b->upper_locked)); /* same sizes */
	b->upper_locked[0] = '\0';
}
