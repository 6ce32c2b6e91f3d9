// SPDX-License-Identifier: MIT
/* The openat2 fallback walk versus the kernel's openat2: one table of paths
 * (nested directories, relative and absolute symlinks, ".." escapes, loops)
 * under every RESOLVE_* set the callers use; the same file or the same
 * -errno. Then sys_openat2 itself in a child whose openat2 answers ENOSYS. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/resolve.h"
#include "lib/sys.h"
#include "unit.h"

static const char *const paths[] = {
    "a/b/file",
    "a/b//file",
    "a/b/file/",
    "a/b/file/.",
    "a/rel",
    "a/up/file",
    "a/esc/outside",
    "../outside",
    "a/../../outside",
    "a/../a/b/file",
    "abs",
    "absdir/b/file",
    "/a/b/file",
    "/",
    ".",
    "..",
    "a/..",
    "/../a/b/file",
    "absdir/../../outside",
    "loop1",
    "dangling",
    "self/self/a/b/file",
    "c0",
    "c1",
    "f/x",
    "filelink/",
    "dirlink/",
    "dirlink/file",
    "missing/x",
    "",
    "sbin/init",
    "/sbin/init",
    "etc/unionroot/keep",
    "a/esc",
};

static const uint64_t scopes[] = {
    0,
    RESOLVE_BENEATH,
    RESOLVE_IN_ROOT,
    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
    RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
    RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV,
    RESOLVE_IN_ROOT | RESOLVE_NO_XDEV,
};

static const int flagsets[] = {O_RDONLY, O_PATH, O_RDONLY | O_DIRECTORY, O_PATH | O_NOFOLLOW};

#define NCASES (ARRAY_SIZE(paths) * ARRAY_SIZE(scopes) * ARRAY_SIZE(flagsets))

/* What one open gave: -errno, or the file it reached. */
struct answer {
	int rc;
	dev_t dev;
	ino_t ino;
};

static struct answer answer_of(int fd)
{
	struct answer a = {fd < 0 ? fd : 0, 0, 0};
	struct stat st;

	if (fd >= 0) {
		if (fstat(fd, &st) == 0) {
			a.dev = st.st_dev;
			a.ino = st.st_ino;
		} else {
			a.rc = -errno;
		}
		close(fd);
	}
	return a;
}

/* The cases that compare the walk with the kernel's openat2 need one. */
#define NO_OPENAT2 "the kernel here has no openat2 to compare with (before Linux 5.6, or qemu-user)"

static int kernel_open(int dir, const char *path, int flags, uint64_t resolve)
{
	struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC), .resolve = resolve};
	long fd = syscall(SYS_openat2, dir, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

/* tmp/outside beside the root tmp/r, whose tree every path of the table
 * walks; c0 -> c1 -> ... -> c40 -> a/b/file is one link past the limit. */
static int tree(void)
{
	static const char *const links[][2] = {
	    {"b/file", "a/rel"},  {"../a/b", "a/up"},	   {"../..", "a/esc"},
	    {"/a/b/file", "abs"}, {"/a", "absdir"},	   {"loop2", "loop1"},
	    {"loop1", "loop2"},	  {"nowhere", "dangling"}, {".", "self"},
	    {"f", "filelink"},	  {"a/b", "dirlink"},	   {"/lib/systemd/systemd", "sbin/init"},
	};
	static const char *const dirs[] = {"a",		  "a/b", "sbin",	 "lib",
					   "lib/systemd", "etc", "etc/unionroot"};
	static const char *const files[] = {"a/b/file", "f", "lib/systemd/systemd",
					    "etc/unionroot/keep"};
	char path[512], name[16], next[16];
	int t = open(unit_tmpdir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	if (t < 0 || mkdirat(t, "r", 0755) < 0)
		return -1;
	close(openat(t, "outside", O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	snprintf(path, sizeof(path), "%s/r", unit_tmpdir());
	close(t);
	r = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(dirs); i++)
		IGNORE(mkdirat(r, dirs[i], 0755));
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(files); i++)
		close(openat(r, files[i], O_WRONLY | O_CREAT | O_CLOEXEC, 0755));
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(links); i++)
		IGNORE(symlinkat(links[i][0], r, links[i][1]));
	for (int i = 0; r >= 0 && i <= 40; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		snprintf(next, sizeof(next), "c%d", i + 1);
		IGNORE(symlinkat(i == 40 ? "a/b/file" : next, r, name));
	}
	return r;
}

typedef int (*open_fn)(int dir, const char *path, int flags, uint64_t resolve);

/* Runs the whole table through fn and counts (and names) each answer that
 * differs from the kernel's in want[]. */
static unsigned table_diff(int dir, open_fn fn, const struct answer *want)
{
	unsigned n = 0, bad = 0;

	for (size_t p = 0; p < ARRAY_SIZE(paths); p++)
		for (size_t s = 0; s < ARRAY_SIZE(scopes); s++)
			for (size_t f = 0; f < ARRAY_SIZE(flagsets); f++, n++) {
				struct answer a =
				    answer_of(fn(dir, paths[p], flagsets[f], scopes[s]));

				if (a.rc == want[n].rc && a.dev == want[n].dev &&
				    a.ino == want[n].ino)
					continue;
				bad++;
				printf("  \"%s\" resolve %#llx flags %#o: kernel %d ino %lu, walk "
				       "%d ino %lu\n",
				       paths[p], (unsigned long long)scopes[s], flagsets[f],
				       want[n].rc, (unsigned long)want[n].ino, a.rc,
				       (unsigned long)a.ino);
			}
	return bad;
}

static void kernel_answers(int dir, struct answer *want)
{
	size_t n = 0;

	for (size_t p = 0; p < ARRAY_SIZE(paths); p++)
		for (size_t s = 0; s < ARRAY_SIZE(scopes); s++)
			for (size_t f = 0; f < ARRAY_SIZE(flagsets); f++)
				want[n++] =
				    answer_of(kernel_open(dir, paths[p], flagsets[f], scopes[s]));
}

static void the_walk_answers_as_the_kernel_does(void)
{
	static struct answer want[NCASES];
	size_t opened = 0;
	int r;

	if (!unit_has_openat2()) {
		unit_skip(NO_OPENAT2);
		return;
	}
	r = tree();
	CHECK(r >= 0);
	CHECK_INT(answer_of(kernel_open(r, "a", O_PATH, 0)).rc, 0); /* the host has openat2 */
	kernel_answers(r, want);
	for (size_t i = 0; i < NCASES; i++)
		opened += want[i].rc == 0;
	CHECK(opened > NCASES / 4 && opened < NCASES * 3 / 4); /* a table of both outcomes */
	CHECK_INT(table_diff(r, sys_openat2_walk, want), 0);
	close(r);
}

/* /proc: its magic links and its own mount, seen from "/". */
static void proc_links_and_mounts_answer_as_the_kernel_does(void)
{
	static const char *const procpaths[] = {"proc", "proc/self", "proc/self/exe",
						"proc/self/cwd/."};
	static const uint64_t procscopes[] = {0, RESOLVE_NO_MAGICLINKS, RESOLVE_NO_XDEV,
					      RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	int root;

	if (!unit_has_openat2()) {
		unit_skip(NO_OPENAT2);
		return;
	}
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	CHECK(root >= 0);
	for (size_t p = 0; p < ARRAY_SIZE(procpaths); p++)
		for (size_t s = 0; s < ARRAY_SIZE(procscopes); s++) {
			struct answer k =
			    answer_of(kernel_open(root, procpaths[p], O_PATH, procscopes[s]));
			struct answer w =
			    answer_of(sys_openat2_walk(root, procpaths[p], O_PATH, procscopes[s]));
			int known = p == 1 && (procscopes[s] & RESOLVE_NO_MAGICLINKS); /* below */

			if (!known && (k.rc != w.rc || k.ino != w.ino))
				unit_failf(__FILE__, __LINE__,
					   "\"%s\" resolve %#llx: kernel %d, walk %d", procpaths[p],
					   (unsigned long long)procscopes[s], k.rc, w.rc);
		}
	/* the one difference, on purpose: /proc/self is no magic link, but on procfs */
	CHECK_INT(sys_openat2_walk(root, "proc/self", O_PATH, RESOLVE_NO_MAGICLINKS), -ELOOP);
	close(root);
}

static void flags_it_cannot_honour_answer_enosys(void)
{
	CHECK_INT(sys_openat2_walk(AT_FDCWD, "x", O_RDONLY, RESOLVE_CACHED), -ENOSYS);
	CHECK_INT(sys_openat2_walk(AT_FDCWD, "x", O_WRONLY | O_CREAT, 0), -ENOSYS);
	CHECK_INT(sys_openat2_walk(AT_FDCWD, ".", O_RDWR | O_TMPFILE, 0), -ENOSYS);
	CHECK_INT(sys_openat2_walk(AT_FDCWD, ".", O_PATH, RESOLVE_BENEATH | RESOLVE_IN_ROOT),
		  -EINVAL);
}

/* From here on this process's openat2 answers ENOSYS, as before Linux 5.6. */
static int deny_openat2(void)
{
	struct sock_filter code[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {ARRAY_SIZE(code), code};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return -errno;
	return kernel_open(AT_FDCWD, ".", O_PATH, 0) == -ENOSYS ? 0 : -EPERM;
}

/* The boot's own calls: the new init through its symlink (handoff.c), the
 * image's keep file (reset.c), a file on a medium (sys_open_beneath). */
static int boot_calls_resolve(int r)
{
	struct stat st, want;
	int fd = sys_openat2(r, "/sbin/init", O_PATH, RESOLVE_IN_ROOT), ok;

	ok = fd >= 0 && fstat(fd, &st) == 0 && fstatat(r, "lib/systemd/systemd", &want, 0) == 0 &&
	     st.st_ino == want.st_ino;
	if (fd >= 0)
		close(fd);
	fd = sys_openat2(r, "etc/unionroot/keep", O_RDONLY, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS);
	ok = ok && fd >= 0;
	if (fd >= 0)
		close(fd);
	fd = sys_open_beneath(r, "/a/rel", O_RDONLY);
	ok = ok && fd >= 0 && sys_open_beneath(r, "/a/esc/outside", O_RDONLY) == -EXDEV;
	if (fd >= 0)
		close(fd);
	return ok;
}

static void without_openat2_sys_openat2_answers_as_the_kernel_does(void)
{
	static struct answer want[NCASES];
	int r, status = -1;
	pid_t pid;

	if (!unit_has_openat2()) {
		unit_skip(NO_OPENAT2);
		return;
	}
	r = tree();
	CHECK(r >= 0);
	kernel_answers(r, want);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		int rc = deny_openat2();

		if (rc < 0) {
			printf("  seccomp filter: %s\n", strerror(-rc));
			_exit(2);
		}
		if (!boot_calls_resolve(r)) {
			printf("  the boot's init, keep file or medium file did not resolve\n");
			_exit(3);
		}
		_exit(table_diff(r, sys_openat2, want) ? 1 : 0);
	}
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_INT(WEXITSTATUS(status), 0);
	close(r);
}

UNIT_SUITE(resolve, {"the walk answers as the kernel does", the_walk_answers_as_the_kernel_does},
	   {"/proc links and mounts answer as the kernel does",
	    proc_links_and_mounts_answer_as_the_kernel_does},
	   {"flags it cannot honour answer ENOSYS", flags_it_cannot_honour_answer_enosys},
	   {"without openat2, sys_openat2 answers as the kernel does",
	    without_openat2_sys_openat2_answers_as_the_kernel_does});
