// SPDX-License-Identifier: MIT
/* PT_GNU_RELRO, found through the binary's own ELF header (the linker's
 * __ehdr_start sits at the load base), made read-only page by page. */
#include "lib/relro.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/mman.h>

extern const ElfW(Ehdr) __ehdr_start;

int relro_seal(void)
{
	const uintptr_t base = (uintptr_t)&__ehdr_start;
	const ElfW(Phdr) *ph = (const void *)(base + __ehdr_start.e_phoff);
	uintptr_t page = getauxval(AT_PAGESZ);

	if (!page)
		page = 4096;

	for (unsigned i = 0; i < __ehdr_start.e_phnum; i++) {
		if (ph[i].p_type != PT_GNU_RELRO)
			continue;
		/* as ld.so does: from the page it starts in to the page boundary
		 * the linker aligned its end to (a partial last page stays
		 * writable, for .data shares it) */
		uintptr_t start = (base + ph[i].p_vaddr) & ~(page - 1);
		uintptr_t end = (base + ph[i].p_vaddr + ph[i].p_memsz) & ~(page - 1);

		if (end > start && mprotect((void *)start, end - start, PROT_READ) < 0)
			return -errno;
	}
	return 0;
}
