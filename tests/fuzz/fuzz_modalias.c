// SPDX-License-Identifier: MIT
/* libFuzzer target for modules.alias parsing and modalias matching: the
 * input holds an alias file, a NUL, then modaliases one a line; the whole
 * input is also read as a uevent. */
#include "kmod/modalias.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "lib/lines.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[65537], devs[4097];
	/* shorter than the longest input's lines: a full table is fuzzed too */
	static struct modalias_entry entries[1024];
	static struct modalias ma = { .e = entries, .cap = ARRAY_SIZE(entries) };
	size_t lines;
	const uint8_t *nul = memchr(data, 0, size);
	size_t tlen = nul ? (size_t)(nul - data) : size;
	size_t dlen = nul ? size - tlen - 1 : 0;
	const char *dev, *alias;

	alias = modalias_of_uevent((const char *)data, size, &dev);
	if (alias && (alias < (const char *)data || alias >= (const char *)data + size))
		__builtin_trap();
	if (tlen >= sizeof(text) || dlen >= sizeof(devs))
		return 0;
	memcpy(text, data, tlen);
	text[tlen] = '\0';
	memcpy(devs, nul ? nul + 1 : data, dlen);
	devs[dlen] = '\0';
	lines = lines_count(text);
	if ((modalias_parse(&ma, text) == -E2BIG) != (ma.dropped > 0)) /* -E2BIG keeps what fits */
		__builtin_trap();
	if (ma.n > ma.cap || ma.n + ma.dropped > lines)
		__builtin_trap();
	for (char *line = devs, *end; line; line = end) {
		int i = -1;

		end = strchr(line, '\n');
		if (end)
			*end++ = '\0';
		while ((i = modalias_next(&ma, line, (unsigned)(i + 1))) >= 0)
			if ((unsigned)i >= ma.n)
				__builtin_trap();
		for (unsigned k = 0; k < ma.n && k < 8; k++)
			(void)modalias_cpu_lacks(&ma, ma.e[k].module, strlen(ma.e[k].module), line);
	}
	return 0;
}
