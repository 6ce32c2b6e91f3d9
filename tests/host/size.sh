#!/bin/bash
# SPDX-License-Identifier: MIT
# The binary's size budget (no root needed): the shipped build and the
# overlay-only build (make COPYUP=0) stay under their budgets and link
# neither musl's vfprintf nor its malloc (nor the strtol family, strstr or
# qsort, which own small code replaces), and the overlay-only build's plan
# says it has no copy-up backend. The sizes are printed on every run.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
scratch size
# Stripped bytes. The aim is 150 KiB and 100 KiB (what remains is spread over
# the boot's own code, see README "Size"); a budget is what was reached plus
# one 4 KiB page, the step in which the file grows (its RELRO end is
# page-aligned).
BUDGET_FULL=${BUDGET_FULL:-186776}
BUDGET_OVERLAY=${BUDGET_OVERLAY:-170392}
FULL=$BUILD/unionroot
OVERLAY=$BUILD/overlay/unionroot

if ! make --no-print-directory -s BUILD="$BUILD" "$FULL" "$OVERLAY" >"$T/make.log" 2>&1; then
	fail "size: both builds" "make failed: $(tail -3 "$T/make.log")"
	exit 1
fi

# budget NAME BINARY BYTES
budget() {
	local size
	size=$(stat -c %s "$2")
	echo "size: $1 $2: $size bytes, budget $3 bytes"
	if [ "$size" -le "$3" ]; then
		pass "size: the $1 build is within its budget ($size <= $3 bytes)"
	else
		fail "size: the $1 build is within its budget" "$size bytes > $3 (see the link map $2.map)"
	fi
}
budget full "$FULL" "$BUDGET_FULL"
budget overlay-only "$OVERLAY" "$BUDGET_OVERLAY"

# libc members come from the link map; formatting and allocation are the
# project's own (unionroot/lib/fmt.c, mmap'd tables)
for bin in "$FULL" "$OVERLAY"; do
	if [ ! -s "$bin.map" ]; then
		fail "size: $bin links no vfprintf or malloc" "no link map $bin.map"
		continue
	fi
	expect "size: $bin's link map names the libc members" "$bin.map" 'libc\.a\(__libc_start_main\.lo\)'
	expect_not "size: $bin links neither musl's vfprintf nor its malloc" "$bin.map" \
		'libc\.a\((vfprintf|malloc|realloc|free|calloc)\.lo\)' \
		"$(grep -oE 'libc\.a\((vfprintf|malloc|realloc|free|calloc)\.lo\)' "$bin.map" | sort -u | tr '\n' ' ')"
	# each pulled in kilobytes for a handful of callers (unionroot/strnum.c)
	expect_not "size: $bin links neither musl's number scanner, strstr nor qsort" "$bin.map" \
		'libc\.a\((intscan|strtol|atoi|strstr|qsort)\.lo\)' \
		"$(grep -oE 'libc\.a\((intscan|strtol|atoi|strstr|qsort)\.lo\)' "$bin.map" | sort -u | tr '\n' ' ')"
done

# the same command line, planned by each build
CMD='union.lower=/dev/vda union.upper=tmpfs union.mode=copyup'
"$FULL" plan "$CMD" >"$T/full.plan" 2>&1
"$OVERLAY" plan "$CMD" >"$T/overlay.plan" 2>&1
expect "size: the full build plans copy-up where asked" "$T/full.plan" '^backend +copy-up: union.mode=copyup$'
expect "size: the overlay-only build plans a read-only root there, and says why" "$T/overlay.plan" \
	'^backend +read-only: copy-up is needed, and this build has no copy-up backend'
expect_not "size: the overlay-only build never plans copy-up" "$T/overlay.plan" '^backend +copy-up' \
	"it planned a backend it does not have"
"$OVERLAY" copyup --id x / / >"$T/copyup.out" 2>&1
expect "size: the overlay-only build's copyup command says it is left out" "$T/copyup.out" \
	'^unionroot copyup: this build has no copy-up backend'
