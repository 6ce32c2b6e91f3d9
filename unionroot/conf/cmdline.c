// SPDX-License-Identifier: MIT
/* Kernel command line tokenizer: follows lib/cmdline.c next_arg() so that a
 * value means here what it means to the kernel. */
#include "conf/cmdline.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "lib/sys.h"

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static char *next_arg(char *args, char **key, char **val)
{
	size_t i, equals = 0;
	int in_quote = 0, quoted = 0;

	if (*args == '"') {
		args++;
		in_quote = 1;
		quoted = 1;
	}
	for (i = 0; args[i]; i++) {
		if (is_space(args[i]) && !in_quote)
			break;
		if (equals == 0 && args[i] == '=')
			equals = i;
		if (args[i] == '"')
			in_quote = !in_quote;
	}
	*key = args;
	if (!equals) {
		*val = NULL;
	} else {
		args[equals] = '\0';
		*val = args + equals + 1;
		if (**val == '"') {
			(*val)++;
			if (i > 0 && args[i - 1] == '"')
				args[i - 1] = '\0';
		}
	}
	if (quoted && i > 0 && args[i - 1] == '"')
		args[i - 1] = '\0';
	if (args[i]) {
		args[i] = '\0';
		args += i + 1;
	} else {
		args += i;
	}
	while (is_space(*args))
		args++;
	return args;
}

unsigned cmdline_split(char *buf, cmdline_fn fn, void *ctx)
{
	unsigned n = 0;
	char *key, *val;

	while (is_space(*buf))
		buf++;
	while (*buf) {
		buf = next_arg(buf, &key, &val);
		if (!val && strcmp(key, "--") == 0)
			break;
		if (!*key && !val)
			continue;
		fn(key, val, ctx);
		n++;
	}
	return n;
}

void cmdline_strip_comments(char *buf)
{
	int in_comment = 0;

	for (; *buf; buf++) {
		if (*buf == '\n')
			in_comment = 0;
		else if (*buf == '#')
			in_comment = 1;
		if (in_comment)
			*buf = ' ';
	}
}

int modname_eq(const char *a, size_t alen, const char *b, size_t blen)
{
	if (alen != blen)
		return 0;
	for (size_t i = 0; i < alen; i++) {
		char x = a[i] == '-' ? '_' : a[i];
		char y = b[i] == '-' ? '_' : b[i];

		if (x != y)
			return 0;
	}
	return 1;
}

int cmdline_read(int fd, char *buf, size_t cap, struct cmdline_cut *cut)
{
	static const char word[] = "union.verity";
	char chunk[256], prev = ' ';
	size_t pos = 0, match = 0;
	ssize_t n = sys_read_fd(fd, buf, cap);

	memset(cut, 0, sizeof(*cut));
	if (n >= 0) {
		cut->kept = (size_t)n;
		return 0;
	}
	if (n != -EFBIG || cap == 0)
		return (int)n;
	cut->cut = 1;
	cut->kept = strlen(buf);
	while (cut->kept && !is_space(buf[cut->kept - 1]))
		cut->kept--;
	buf[cut->kept] = '\0';
	/* again from the start: sys_read_fd read one byte past what it kept */
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0 || (n < 0 && errno == EINTR)) {
		for (ssize_t i = 0; i < n; i++, pos++) {
			char ch = chunk[i];

			/* the whole word "union.verity", with or without a
			 * value (not union.verity.onerror); it repeats no
			 * prefix of itself, so a mismatch restarts at this byte */
			if (match == sizeof(word) - 1)
				cut->verity |= ch == '=' || is_space(ch);
			if (match && (match == sizeof(word) - 1 || ch != word[match]))
				match = 0;
			if (match ? ch == word[match] : ch == word[0] && is_space(prev) && pos >= cut->kept)
				match++;
			prev = ch;
		}
	}
	cut->verity |= match == sizeof(word) - 1;
	return n < 0 ? -errno : 0;
}
