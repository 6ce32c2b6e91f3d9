# SPDX-License-Identifier: MIT
# Shared helpers for tests/host and tests/qemu scripts. Every outcome is one
# line, "PASS name", "FAIL name: why" or "SKIP name: why", which tests/run counts.

: "${BUILD:=build}"
: "${BOARD:=qemu-x86_64}"
TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT_DIR=$(cd "$TESTS_DIR/.." && pwd)

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }

# need_root NAME: prints a SKIP and returns 1 when not root.
need_root() {
	if [ "$(id -u)" != 0 ]; then
		skip "$1" "needs root (loop devices, mounts)"
		return 1
	fi
}

# expect NAME FILE PATTERN [WHY]: PASS when the extended regex PATTERN occurs in FILE.
expect() {
	if grep -Eq -- "$3" "$2"; then
		pass "$1"
	else
		fail "$1" "${4:-no line matching /$3/ in $2}"
	fi
}
