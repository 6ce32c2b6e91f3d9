// SPDX-License-Identifier: MIT
/* libFuzzer target for dm-verity's parsers and table builder: the first
 * 512 bytes are a superblock, the rest a union.verity= value. Whatever
 * parses must give a table line the kernel can split, or a named error. */
#include "conf/spec.h"
#include "media/verity.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void table(const struct verity_arg *a, const struct verity_geom *g)
{
	static char line[VERITY_TABLE_MAX];
	struct verity_table t = { "/dev/loop0", a->hashdev[0] ? a->hashdev : "/dev/loop0", a->root,
				  g, verity_hash_start(a->offset == VERITY_OFFSET_AUTO ? 0 : a->offset,
						       a->nosb, g->hash_bs),
				  (int)(a->layer % 3) };
	int rc = verity_table_format(&t, line, sizeof(line));

	if (rc == 0 && (strlen(line) >= sizeof(line) || strchr(line, '\n')))
		__builtin_trap();
	if (rc != 0 && rc != -EINVAL && rc != -ENAMETOOLONG)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char val[4097];
	struct verity_arg args[SPEC_LIST_MAX];
	struct verity_geom g;
	const char *why = NULL;
	char err[200];
	size_t sb = size < VERITY_SB_SIZE ? size : VERITY_SB_SIZE;
	int rc, n;

	if (size - sb >= sizeof(val))
		return 0;
	rc = verity_sb_parse(data, sb, &g, &why);
	if ((rc != 0 && rc != -ENOENT && rc != -EINVAL) || (rc < 0 && !why))
		__builtin_trap();
	if (rc == 0 && (verity_geom_check(&g, &why) < 0 || g.salt_len > VERITY_SALT_MAX))
		__builtin_trap();
	(void)verity_data_end(data, sb);
	memcpy(val, data + sb, size - sb);
	val[size - sb] = '\0';
	n = verity_args_parse(val, args, SPEC_LIST_MAX, err, sizeof(err));
	if (n > SPEC_LIST_MAX || (n < 0 && strncmp(err, "entry ", 6) != 0))
		__builtin_trap();
	for (int i = 0; i < n; i++) {
		if (!args[i].layer || args[i].layer > SPEC_LIST_MAX || strlen(args[i].root) % 2)
			__builtin_trap();
		/* hash= is a whole /dev/NAME of the value, never two glued */
		if (args[i].hashdev[0] && (strncmp(args[i].hashdev, "/dev/", 5) != 0 ||
					   !strstr(val, args[i].hashdev) ||
					   memchr(args[i].hashdev, ':', strlen(args[i].hashdev))))
			__builtin_trap();
		table(&args[i], rc == 0 ? &g : &args[i].geom);
	}
	return 0;
}
