/* SPDX-License-Identifier: MIT */
/* Every unit suite, one line each: main.c runs them in this order. */
SUITE(cmdline)
SUITE(config)
SUITE(spec)
SUITE(moddep)
SUITE(overlay)
SUITE(branch)
SUITE(cpio)
SUITE(probe)
SUITE(parttab)
SUITE(copyup)
