#!/bin/bash
# SPDX-License-Identifier: MIT
# `unionroot plan` on the host (no root, touches nothing): the facts it
# gathers name what the boot will look for on each medium.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
scratch plan
if [ ! -x "$BUILD/unionroot" ]; then
	skip "plan" "$BUILD/unionroot not built"
	exit 0
fi

# auto looks for union.image on each medium, or for the first file of the
# chain the SPEC names (a Ventoy-style ISO file: open_chain opens it)
"$BUILD/unionroot" plan 'union.lower=auto union.upper=tmpfs' >"$T/auto" 2>&1
expect "plan: auto looks for union.image" "$T/auto" '^ +candidates for /live/filesystem\.squashfs, in order:'
"$BUILD/unionroot" plan 'union.lower=auto:/isos/live.iso:/live/filesystem.squashfs union.upper=tmpfs' >"$T/chain" 2>&1
expect "plan: auto with a chain looks for the chain's first file" "$T/chain" '^ +candidates for /isos/live\.iso, in order:'
"$BUILD/unionroot" plan 'union.lower=auto union.upper=tmpfs union.image=/casper/filesystem.squashfs' >"$T/image" 2>&1
expect "plan: auto follows union.image" "$T/image" '^ +candidates for /casper/filesystem\.squashfs, in order:'
