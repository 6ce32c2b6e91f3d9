// SPDX-License-Identifier: MIT
/* Writes a staging directory as cpio entries in bytewise path order, so the
 * archive depends only on names, types, modes and contents of the tree. */
#include "cpio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

struct tree_entry {
	char *path;		      /* relative to the tree root, no leading '/' */
	const struct cpio_node *node; /* set for --node entries */
};

struct tree_list {
	struct tree_entry *v;
	size_t n, cap;
};

static int list_add(struct tree_list *l, const char *path, const struct cpio_node *node)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		struct tree_entry *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].path = strdup(path);
	if (!l->v[l->n].path)
		return -ENOMEM;
	l->v[l->n].node = node;
	l->n++;
	return 0;
}

static void list_free(struct tree_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
}

/* Collects every entry below @dfd (prefix @rel) without following symlinks. */
static int collect(int dfd, const char *rel, struct tree_list *l)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		ret = -errno;
		close(dfd);
		return ret;
	}
	while ((errno = 0, de = readdir(d))) {
		char path[4096];
		struct stat st;
		int n, sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n = snprintf(path, sizeof(path), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		if (n < 0 || (size_t)n >= sizeof(path)) {
			ret = -ENAMETOOLONG;
			goto out;
		}
		ret = list_add(l, path, NULL);
		if (ret < 0)
			goto out;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			ret = -errno;
			goto out;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			ret = -errno;
			goto out;
		}
		ret = collect(sub, path, l);
		if (ret < 0)
			goto out;
	}
	if (errno)
		ret = -errno;
out:
	closedir(d);
	return ret;
}

static int by_path(const void *a, const void *b)
{
	const struct tree_entry *x = a, *y = b;

	return strcmp(x->path, y->path);
}

static int write_one(struct cpio_writer *w, int root, const char *path)
{
	struct stat st;
	char target[4096];
	ssize_t len;
	int fd, ret;

	if (fstatat(root, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	/* Only type and permission bits: owners and times are not content. */
	uint32_t mode = (uint32_t)st.st_mode & (S_IFMT | 07777);

	switch (st.st_mode & S_IFMT) {
	case S_IFDIR:
	case S_IFIFO:
	case S_IFSOCK:
		return cpio_write_entry(w, path, mode, 0, 0, NULL, 0);
	case S_IFCHR:
	case S_IFBLK:
		return cpio_write_entry(w, path, mode, major(st.st_rdev), minor(st.st_rdev), NULL,
					0);
	case S_IFLNK:
		len = readlinkat(root, path, target, sizeof(target));
		if (len < 0)
			return -errno;
		if ((size_t)len >= sizeof(target))
			return -ENAMETOOLONG;
		return cpio_write_entry(w, path, mode, 0, 0, target, (size_t)len);
	case S_IFREG:
		fd = openat(root, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		ret = cpio_write_file(w, path, mode, fd, (uint64_t)st.st_size);
		close(fd);
		return ret;
	default:
		return -EINVAL;
	}
}

int cpio_write_tree(struct cpio_writer *w, const char *dir, const struct cpio_node *nodes,
		    size_t n_nodes)
{
	struct tree_list l = {0};
	int root, sub, ret;

	root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -errno;
	sub = fcntl(root, F_DUPFD_CLOEXEC, 0);
	if (sub < 0) {
		ret = -errno;
		goto out;
	}
	ret = collect(sub, "", &l);
	for (size_t i = 0; ret >= 0 && i < n_nodes; i++)
		ret = list_add(&l, nodes[i].path, &nodes[i]);
	if (ret < 0)
		goto out;
	if (l.n)
		qsort(l.v, l.n, sizeof(l.v[0]), by_path);
	for (size_t i = 0; i < l.n; i++) {
		const struct cpio_node *nd = l.v[i].node;

		if (i && !strcmp(l.v[i - 1].path, l.v[i].path)) {
			ret = -EEXIST;
			goto out;
		}
		if (nd)
			ret =
			    cpio_write_entry(w, nd->path, nd->mode, nd->major, nd->minor, NULL, 0);
		else
			ret = write_one(w, root, l.v[i].path);
		if (ret < 0)
			goto out;
	}
out:
	list_free(&l);
	close(root);
	return ret;
}

int cpio_parse_node(const char *spec, struct cpio_node *node)
{
	char path[sizeof(node->path) + 1], type;
	unsigned maj, min, perm;
	const char *p;
	int used = 0;

	if (sscanf(spec, "%256s %c %u %u %o%n", path, &type, &maj, &min, &perm, &used) != 5 ||
	    spec[used] != '\0')
		return -EINVAL;
	if ((type != 'c' && type != 'b') || perm > 07777)
		return -EINVAL;
	p = path;
	while (*p == '/')
		p++;
	if (!*p || strlen(p) >= sizeof(node->path))
		return -ENAMETOOLONG;
	strcpy(node->path, p);
	node->mode = (type == 'c' ? S_IFCHR : S_IFBLK) | perm;
	node->major = maj;
	node->minor = min;
	return 0;
}
