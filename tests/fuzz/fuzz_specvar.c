// SPDX-License-Identifier: MIT
/* libFuzzer target for ${mac} and ${hostname} in an export name: the input
 * is a command line's text (and, after its first NUL, a host name). Checked
 * names expand, or are refused with one line; what comes out holds no '${'
 * that was not in a value, and fits its buffer. */
#include "conf/specvar.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[512], host[128], out[128], why[200], mac[SPECVAR_MAC_TEXT];
	const uint8_t *nul = memchr(data, 0, size);
	size_t n = nul ? (size_t)(nul - data) : size, h = nul ? size - n - 1 : 0;
	struct specvar_vals v = { "52-54-00-12-34-56", host };
	int checked, rc;

	if (n >= sizeof(text) || h >= sizeof(host))
		return 0;
	memcpy(text, data, n);
	text[n] = '\0';
	memcpy(host, nul ? nul + 1 : data, h);
	host[h] = '\0';
	why[0] = '\0';
	checked = specvar_check(text, why, sizeof(why));
	if (checked < 0 && (!why[0] || strchr(why, '\n')))
		__builtin_trap();
	why[0] = '\0';
	rc = specvar_expand(text, &v, out, sizeof(out), why, sizeof(why));
	if (rc < 0 && (!why[0] || strchr(why, '\n')))
		__builtin_trap();
	if (checked < 0 && rc == 0)
		__builtin_trap(); /* a name refused at configuration never expands */
	if (rc == 0 && strlen(out) >= sizeof(out))
		__builtin_trap();
	if (specvar_mac(text, mac) == 0 && (strlen(mac) != 17 || mac[2] != '-'))
		__builtin_trap();
	return 0;
}
