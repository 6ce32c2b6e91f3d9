/* SPDX-License-Identifier: MIT */
/* The binary's own RELRO: makes its relocated constant pointers read-only. */
#ifndef UNIONROOT_RELRO_H
#define UNIONROOT_RELRO_H

/* musl 1.2.3's static-pie start code (rcrt1.o) applies the relocations and
 * never mprotects PT_GNU_RELRO, so the function-pointer tables, the GOT and
 * .init_array/.fini_array the linker laid out for it (-z relro -z now) stay
 * writable for the whole run. This seals them, as a dynamic linker would:
 * the first call in main(). 0 or -errno; where a loader sealed them
 * already (glibc, the host builds) it changes nothing. */
int relro_seal(void);

#endif
