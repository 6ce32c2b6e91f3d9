// SPDX-License-Identifier: MIT
/* libFuzzer target for modules.dep + modules.softdep parsing and ordering:
 * the input holds both files separated by a NUL byte; every module named in
 * the index is resolved. */
#include "moddep.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dep[65537], soft[65537];
	static struct moddep md;
	static unsigned order[MODDEP_MAX];
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
	if (moddep_parse(&md, dep, soft) < 0)
		return 0;
	for (unsigned i = 0; i < md.n; i++) {
		char name[64];
		unsigned count = 0;
		int rc;

		if (moddep_need(md.e[i].path) > NEED_DM)
			__builtin_trap();
		if (md.e[i].name_len >= sizeof(name))
			continue;
		memcpy(name, md.e[i].name, md.e[i].name_len);
		name[md.e[i].name_len] = '\0';
		rc = moddep_resolve(&md, name, order, &count, MODDEP_MAX);
		if (rc < 0 && rc != -ENOENT && rc != -ELOOP && rc != -E2BIG)
			__builtin_trap();
		if (count > MODDEP_MAX)
			__builtin_trap();
		for (unsigned k = 0; k < count; k++)
			if (order[k] >= md.n)
				__builtin_trap();
	}
	return 0;
}
