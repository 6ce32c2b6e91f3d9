// SPDX-License-Identifier: MIT
/* unionroot copyup in a build without the copy-up backend (make COPYUP=0):
 * one line without stdio, which stays in cmd/. */
#include <unistd.h>

#include "cmd/cli.h"

int cmd_copyup(int argc, char **argv)
{
	static const char line[] = "unionroot copyup: this build has no copy-up backend (make COPYUP=0)\n";

	(void)argc, (void)argv;
	IGNORE(write(2, line, sizeof(line) - 1));
	return 1;
}
