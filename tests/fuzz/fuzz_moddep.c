// SPDX-License-Identifier: MIT
/* libFuzzer target for modules.dep + modules.softdep parsing and ordering:
 * the input holds both files separated by a NUL byte; every module named in
 * the index is resolved. */
#include "kmod/moddep.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "lib/lines.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dep[65537], soft[65537];
	/* shorter than the longest input's lines: full tables are fuzzed too */
	static struct moddep_entry entries[1024];
	static struct softdep_entry softdeps[64];
	static struct moddep md = { .e = entries, .cap = ARRAY_SIZE(entries),
				    .s = softdeps, .scap = ARRAY_SIZE(softdeps) };
	static unsigned order[ARRAY_SIZE(entries)];
	size_t lines;
	int parsed;
	const uint8_t *nul = memchr(data, 0, size);
	size_t dlen = nul ? (size_t)(nul - data) : size;
	size_t slen = nul ? size - dlen - 1 : 0;

	if (dlen >= sizeof(dep) || slen >= sizeof(soft))
		return 0;
	memcpy(dep, data, dlen);
	dep[dlen] = '\0';
	if (nul)
		memcpy(soft, nul + 1, slen);
	soft[slen] = '\0';
	lines = lines_count(dep) + lines_count(soft);
	parsed = moddep_parse(&md, dep, soft);
	if (parsed == -EINVAL)
		return 0;
	if (md.n > md.cap || md.ns > md.scap || md.n + md.dropped + md.ns + md.sdropped > lines)
		__builtin_trap();
	if ((parsed == -E2BIG) != (md.dropped || md.sdropped)) /* -E2BIG keeps what fits */
		__builtin_trap();
	for (unsigned i = 0; i < md.n; i++) {
		char name[64];
		unsigned count = 0;
		int rc;

		if (moddep_need(md.e[i].path) > NEED_NET)
			__builtin_trap();
		if (md.e[i].name_len >= sizeof(name))
			continue;
		memcpy(name, md.e[i].name, md.e[i].name_len);
		name[md.e[i].name_len] = '\0';
		rc = moddep_resolve(&md, name, order, &count, md.n);
		if (rc < 0 && rc != -ENOENT && rc != -ELOOP && rc != -E2BIG)
			__builtin_trap();
		if (count > md.n)
			__builtin_trap();
		for (unsigned k = 0; k < count; k++)
			if (order[k] >= md.n)
				__builtin_trap();
	}
	return 0;
}
