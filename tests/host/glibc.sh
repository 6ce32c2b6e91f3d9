#!/bin/bash
# SPDX-License-Identifier: MIT
# The program built with glibc (make LIBC=glibc; no root needed), in a
# build directory of its own (BUILD/glibc): it builds, says its version,
# plans as the musl build plans, and probes a file system image as it does,
# word for word. Its size is reported; the budget is musl's (size.sh).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
scratch glibc
need_tools glibc gcc mkfs.ext4 || exit 0
MUSL=$BUILD/unionroot
GLIBC=$BUILD/glibc/unionroot
if [ ! -x "$MUSL" ]; then
	skip glibc "$MUSL missing (make)"
	exit 0
fi
if ! make --no-print-directory -s -j"$(nproc)" LIBC=glibc BUILD="$BUILD/glibc" "$GLIBC" >"$T/make.log" 2>&1; then
	fail "glibc: make LIBC=glibc builds the program" "$(tail -3 "$T/make.log")"
	exit 1
fi
read -r libc link <"$GLIBC.libc"
echo "glibc: $GLIBC: $(stat -c %s "$GLIBC") bytes ($libc $link)"
file -L "$GLIBC" >"$T/file"
expect "glibc: the glibc build is static ($link)" "$T/file" 'static(-pie)? linked'
"$GLIBC" --version >"$T/version" 2>&1
"$MUSL" --version >"$T/version.musl" 2>&1
expect "glibc: the glibc build says its version" "$T/version" '^unionroot [0-9]'
if cmp -s "$T/version" "$T/version.musl"; then
	pass "glibc: its version is the musl build's"
else
	fail "glibc: its version is the musl build's" "$(cat "$T/version") versus $(cat "$T/version.musl")"
fi

# the same plans for the same command lines
n=0
while read -r line; do
	n=$((n + 1))
	"$GLIBC" plan "$line" >"$T/plan.$n" 2>&1
	"$MUSL" plan "$line" >"$T/plan.musl.$n" 2>&1
	cmp -s "$T/plan.$n" "$T/plan.musl.$n" || echo "[$line: $(diff "$T/plan.musl.$n" "$T/plan.$n" | sed -n 2p)]"
done >"$T/differ" <<'LINES'
union.lower=/dev/vda union.upper=tmpfs
union.lower=auto:/isos/live.iso:/live/filesystem.squashfs union.upper=LABEL=persist union.persist.size=1G
union.lower=mtd:rootfs union.upper=ubi:data union.ubi=mtd:ubi union.mode=copyup
union.lower=/dev/vda union.upper=/dev/vdb union.fsck=yes union.onfail=rescue union.break=mount
LINES
expect "glibc: the plan is there to compare" "$T/plan.1" '^read-only 1 +/dev/vda'
expect_not "glibc: the glibc build plans as the musl build, word for word ($n command lines)" "$T/differ" . \
	"$(tr '\n' ' ' <"$T/differ")"

# a file system image probed by both
truncate -s 8M "$T/ext4.img"
mkfs.ext4 -q -L persist -U 0b2ec1f1-6e8b-4c53-9d5c-3a4a2b7d6e10 "$T/ext4.img"
"$GLIBC" probe "$T/ext4.img" >"$T/probe" 2>&1
"$MUSL" probe "$T/ext4.img" >"$T/probe.musl" 2>&1
expect "glibc: the glibc build probes an ext4 image" "$T/probe" \
	'TYPE="ext4" UUID="0b2ec1f1-6e8b-4c53-9d5c-3a4a2b7d6e10" LABEL="persist"'
if cmp -s "$T/probe" "$T/probe.musl"; then
	pass "glibc: it probes as the musl build"
else
	fail "glibc: it probes as the musl build" "$(cat "$T/probe") versus $(cat "$T/probe.musl")"
fi
