#!/bin/bash
# SPDX-License-Identifier: MIT
# The shipped binaries' hardening, as the kernel and the loader see them (no
# root needed): static-pie (its own ASLR, no interpreter), no executable
# stack, the stack protector linked, and RELRO sealed at run time. musl
# 1.2.3's static-pie start code never mprotects PT_GNU_RELRO; main() does
# (unionroot/lib/relro.c), and strace shows the call that covers the
# segment's whole pages.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
scratch hardening
need_tools hardening readelf strace || exit 0

bins=("$BUILD/unionroot" "$BUILD/overlay/unionroot" "$BUILD/minimal/unionroot")
if ! make --no-print-directory -s BUILD="$BUILD" "${bins[@]}" >"$T/make.log" 2>&1; then
	fail "hardening: the three builds" "make failed: $(tail -3 "$T/make.log")"
	exit 1
fi

for bin in "${bins[@]}"; do
	readelf -hlW "$bin" >"$T/elf"
	expect "hardening: $bin is position-independent (ELF type DYN)" "$T/elf" 'Type: +DYN'
	expect_not "hardening: $bin needs no interpreter (static-pie)" "$T/elf" 'INTERP'
	expect "hardening: $bin's stack is not executable" "$T/elf" 'GNU_STACK +(0x[0-9a-f]+ +){5}RW +0x'
	expect "hardening: $bin links the stack protector" "$bin.map" 'libc\.a\(__stack_chk_fail\.lo\)'

	# the pages RELRO covers: from the page its start is in to its end's page
	# boundary (the linker aligns the end to one)
	read -r _ _ vaddr _ _ memsz _ < <(grep GNU_RELRO "$T/elf") || true
	len=
	if [ -n "${memsz:-}" ]; then
		len=$(( ((vaddr + memsz) & ~4095) - (vaddr & ~4095) ))
	fi
	if [ -z "$len" ] || [ "$len" -le 0 ]; then
		fail "hardening: $bin has a RELRO segment of whole pages" "readelf: $(grep -c GNU_RELRO "$T/elf") GNU_RELRO, $len bytes"
		continue
	fi
	strace -o "$T/trace" -e trace=mprotect "$bin" --help >/dev/null 2>&1
	expect "hardening: $bin seals its RELRO segment at start ($len bytes read-only)" "$T/trace" \
		"^mprotect\(0x[0-9a-f]*000, $len, PROT_READ\) = 0"
done
