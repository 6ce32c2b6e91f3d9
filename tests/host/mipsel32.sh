#!/bin/bash
# SPDX-License-Identifier: MIT
# 32-bit (no root needed): the unit tests (unit-tests, unit-init) built for
# little-endian 32-bit MIPS (make mipsel32: Debian's cross compiler, glibc
# with 64-bit off_t and time_t as musl has them) and run under qemu-user.
# What 64-bit hides shows here: system calls that take 32-bit times or
# offsets (clock_gettime and utimensat have _time64 twins), struct layouts
# (statfs' signed f_type), errno numbers that differ per architecture. SKIP
# when the cross compiler or qemu-user is missing (tools/packages:
# gcc-mipsel-linux-gnu, libc6-dev-mipsel-cross, qemu-user-static); any
# failed case fails.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
need_tools mipsel32 mipsel-linux-gnu-gcc || exit 0
QEMU=$(command -v qemu-mipsel-static || command -v qemu-mipsel) ||
	{ skip mipsel32 "qemu-mipsel-static not installed (tools/packages: qemu-user-static)"; exit 0; }
scratch mipsel32
M32=$BUILD/mipsel32/host
start=$(date +%s)

if ! make --no-print-directory -s -j2 BUILD="$BUILD" mipsel32 >"$T/make.log" 2>&1; then
	fail "mipsel32: the 32-bit MIPS build (make mipsel32)" "$(tail -3 "$T/make.log")"
	exit 1
fi
if ! file -L "$M32/unit-tests" | grep -q 'ELF 32-bit LSB executable, MIPS'; then
	fail "mipsel32: the unit tests are a 32-bit MIPS program" "$(file -L "$M32/unit-tests")"
	exit 1
fi

foreign_units "$QEMU" "$M32" "mipsel32:"
echo "mipsel32: $(($(date +%s) - start)) s"
