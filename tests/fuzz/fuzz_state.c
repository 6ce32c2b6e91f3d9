// SPDX-License-Identifier: MIT
/* libFuzzer target for the control state files on the writable branch,
 * .unionroot/state and .unionroot/reset: any text either parses into a value
 * that formats and parses back to itself, or is refused and leaves the
 * defined fallback (a cleared state; a request for the keep list only). */
#include "branch/reset.h"
#include "branch/state.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[STATE_TEXT_MAX * 4 + 1], out[STATE_TEXT_MAX * 4];
	static struct ur_state a, b;
	static struct reset_req ra, rb;

	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	if (state_parse(text, &a) == 0) {
		if (state_format(&a, out, sizeof(out)) < 0 || state_parse(out, &b) < 0 ||
		    memcmp(&a, &b, sizeof(a)) != 0)
			__builtin_trap();
	} else if (a.boots || a.nlower) {
		__builtin_trap(); /* refused: the state is as after state_clear */
	}

	if (reset_request_parse(text, &ra) == 0) {
		if (reset_request_format(&ra, out, sizeof(out)) < 0 ||
		    reset_request_parse(out, &rb) < 0 || memcmp(&ra, &rb, sizeof(ra)) != 0)
			__builtin_trap();
	} else if (!ra.keeplist || ra.keep.n) {
		__builtin_trap(); /* refused: the keep list only, nothing it named */
	}
	return 0;
}
