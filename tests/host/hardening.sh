#!/bin/bash
# SPDX-License-Identifier: MIT
# The shipped binaries' hardening, as the kernel and the loader see them (no
# root needed): static-pie (its own ASLR, no interpreter), no executable
# stack, the stack protector linked, and RELRO sealed at run time. musl
# 1.2.3's static-pie start code never mprotects PT_GNU_RELRO; main() does
# (unionroot/lib/relro.c): strace shows the call over the segment's whole
# pages, and the process's maps, read while strace holds it at its exit,
# show those pages read-only at the load base plus the segment's address.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
scratch hardening
need_tools hardening readelf strace pgrep || exit 0

bins=("$BUILD/unionroot" "$BUILD/overlay/unionroot" "$BUILD/minimal/unionroot")
# a build of another libc (make LIBC=glibc, BUILD/unionroot.libc): its one
# binary, static-pie or static as its toolchain allows, glibc's stack protector
libc=musl link=-static-pie
read -r libc link <"$BUILD/unionroot.libc" 2>/dev/null || true
stack_chk='libc\.a\(__stack_chk_fail\.lo\)'
if [ "$libc" != musl ]; then
	bins=("$BUILD/unionroot")
	stack_chk='libc\.a\(stack_chk_fail\.o\)'
fi
if ! make --no-print-directory -s BUILD="$BUILD" "${bins[@]}" >"$T/make.log" 2>&1; then
	fail "hardening: the builds" "make failed: $(tail -3 "$T/make.log")"
	exit 1
fi

for bin in "${bins[@]}"; do
	readelf -hlW "$bin" >"$T/elf"
	if [ "$link" = -static-pie ]; then
		expect "hardening: $bin is position-independent (ELF type DYN)" "$T/elf" 'Type: +DYN'
	else
		expect "hardening: $bin is static ($libc $link: the toolchain has no static-pie)" "$T/elf" 'Type: +EXEC'
	fi
	expect_not "hardening: $bin needs no interpreter ($link)" "$T/elf" 'INTERP'
	expect "hardening: $bin's stack is not executable" "$T/elf" 'GNU_STACK +(0x[0-9a-f]+ +){5}RW +0x'
	expect "hardening: $bin links the stack protector ($libc)" "$bin.map" "$stack_chk"

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
	# the process is held at its exit (strace delays exit_group) while its
	# maps are read: the sealed page must be the segment's, from the load base
	bash -c 'echo $$ >"$1"; exec strace -o "$2" -e trace=mprotect,exit_group \
		-e inject=exit_group:delay_enter=3000000 "$3" --help' _ "$T/strace.pid" "$T/trace" "$bin" \
		>/dev/null 2>&1 &
	held=$!
	: >"$T/maps"
	for _ in $(seq 25); do
		sleep 0.1
		child=$(pgrep -P "$(cat "$T/strace.pid" 2>/dev/null)" 2>/dev/null) || continue
		# before the seal the binary's own mappings are r-xp and rw-p only
		grep -q " r--p .* $(realpath "$bin")\$" "/proc/$child/maps" 2>/dev/null &&
			cp "/proc/$child/maps" "$T/maps" && break
	done
	wait "$held"
	base=$(awk -v f="$(realpath "$bin")" '$6 == f && $3 == "00000000" { print $1; exit }' "$T/maps")
	base=${base%%-*}
	[ "$link" = -static-pie ] || [ -z "$base" ] || base=0 # EXEC: the addresses are absolute
	if [ -z "$base" ]; then
		fail "hardening: $bin seals its RELRO segment at start" \
			"no page of it became read-only while it ran ($(grep -c '^mprotect' "$T/trace") mprotect calls)"
		continue
	fi
	page=$(printf '%x' $(( 0x$base + (vaddr & ~4095) )))
	expect "hardening: $bin seals its RELRO segment at start ($len bytes read-only)" "$T/trace" \
		"^mprotect\(0x$page, $len, PROT_READ\) = 0"
	expect "hardening: $bin's RELRO page is read-only while it runs" "$T/maps" "^$page-[0-9a-f]+ r--p "
done
