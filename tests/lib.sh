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
	if grep -aEq -- "$3" "$2"; then
		pass "$1"
	else
		fail "$1" "${4:-no line matching /$3/ in $2}"
	fi
}

# await_line LOG PATTERN PID [TICKS]: waits (TICKS x 0.2 s, 600 unless
# given) until the extended regex PATTERN shows in the console LOG of the
# boot running as PID; 0 when it showed while that boot still runs (a
# monitor command may follow), 1 when the boot ended or time ran out.
await_line() {
	local _
	for _ in $(seq "${4:-600}"); do
		grep -aEq -- "$2" "$1" 2>/dev/null && break
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.2
	done
	grep -aEq -- "$2" "$1" 2>/dev/null && kill -0 "$3" 2>/dev/null
}

# ---- QEMU boots of the board ------------------------------------------------
OUTDIR=${OUTDIR:-$BUILD/$BOARD}

# expect_not NAME FILE PATTERN WHY: PASS when PATTERN does not occur in FILE.
# Use it beside a positive expect on the same log, never alone: a log that
# shows nothing at all must not pass.
expect_not() {
	if grep -aEq -- "$3" "$2"; then
		fail "$1" "$4"
	else
		pass "$1"
	fi
}

# scratch NAME: a fresh directory in $T, removed when the script ends.
scratch() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/unionroot-$1.XXXXXX")
	# shellcheck disable=SC2064 # $T is meant to be expanded now
	trap "rm -rf '$T'" EXIT
}

# keep_log FILE...: saves a failing boot's console in $BUILD/tests for later
# reading, named after the test script.
keep_log() {
	local f
	for f; do
		cp "$f" "$BUILD/tests/$(basename "$0" .sh)-$(basename "$f")" 2>/dev/null
	done
	return 0
}

# Guest commands of the persistence stories: write a file and delete one of
# the image (change_root VALUE), then tell what the next boot sees.
change_root() { echo "echo $1 >/root/persist; rm /etc/factory-file"; }
# shellcheck disable=SC2016 # expanded in the guest
SHOW_CHANGES='
	echo "MARK-persist=$(cat /root/persist 2>/dev/null)"
	[ -e /etc/factory-file ] && echo MARK-factory-back || echo MARK-factory-gone'

# need_qemu NAME: prints a SKIP and returns 1 when the board cannot boot here.
need_qemu() {
	local f
	for f in "$OUTDIR/vmlinuz" "$OUTDIR/initramfs.cpio.gz" "$OUTDIR/rootfs.squashfs"; do
		if [ ! -f "$f" ]; then
			skip "$1" "$f missing (make initramfs images)"
			return 1
		fi
	done
	if ! command -v qemu-system-x86_64 >/dev/null; then
		skip "$1" "qemu-system-x86_64 not installed"
		return 1
	fi
}

# need_tools NAME TOOL...: prints a SKIP and returns 1 when a host tool is missing.
need_tools() {
	local name=$1 t
	shift
	for t in "$@"; do
		if ! command -v "$t" >/dev/null; then
			skip "$name" "$t not installed (tools/packages)"
			return 1
		fi
	done
}

# stick IMG LABEL MiB [FILE:PATH]...: a whole-device vfat stick (no
# partition table, as many are sold) holding the files at those paths.
stick() {
	local img=$1 label=$2 size=$3 f
	shift 3
	rm -f "$img"
	truncate -s "${size}M" "$img"
	mkfs.vfat -n "$label" "$img" >/dev/null
	for f; do
		mmd -D s -i "$img" "::$(dirname "${f#*:}")" 2>/dev/null || true
		mcopy -i "$img" "${f%%:*}" "::${f#*:}"
	done
}

# new_data FILE [LABEL]: a fresh, empty ext4 writable disk.
new_data() {
	rm -f "$1"
	truncate -s 64M "$1"
	mkfs.ext4 -q -F -L "${2:-data}" "$1"
}

# boot LOG DATA CMD [run options...]: one non-interactive boot; the console
# goes to LOG. Fails the boot (returns 1) on a timeout, an oops or a panic.
boot() {
	local log=$1 data=$2 cmd=$3
	shift 3
	"$ROOT_DIR/board/$BOARD/run" "$OUTDIR" --data "$data" --cmd "$cmd" \
		--timeout "${BOOT_TIMEOUT:-120}" --log "$log" "$@" >/dev/null 2>&1
	local rc=$?
	# the serial console ends lines with CR LF
	[ -f "$log" ] && sed -i 's/\r$//' "$log"
	if [ $rc != 0 ]; then
		echo "boot: run exited $rc (see $log)" >&2
		return 1
	fi
	# UBI's attach summary always says "corrupted PEBs: 0", fsck.f2fs always
	# prints "Info: Fix the reported corruption." (a hint, not a finding);
	# FAT says "Volume was not properly unmounted. Some data may be corrupt"
	# whenever its dirty flag is set, which a stick holding a persistence
	# file keeps from one power-off to the next (it holds the root)
	local bad
	bad=$(grep -av -e 'corrupted PEBs: 0$' -e 'fsck.f2fs: Info: Fix the reported corruption' \
		-e 'FAT-fs ([a-z0-9]*): Volume was not properly unmounted' "$log" | grep -aE -m 3 'Kernel panic|Oops|BUG:|corrupt')
	if [ -n "$bad" ]; then
		# the lines themselves: the log goes with the scratch directory
		echo "boot: the console shows a panic, oops or corruption (see $log): $(echo "$bad" | tr '\n' '|')" >&2
		return 1
	fi
	grep -q '^real-init: cmd exit=' "$log"
}

# The power-cut stories' guest commands around a reset of FILES files:
# reset_setup FILES writes the user's tree and asks for a reset (says
# MARK-requested); reset_probe FILES tells what the next boot sees, all of
# the tree or none of it (MARK-state=old, factory or mixed), and whether
# the request is still pending (MARK-pending=).
reset_setup() {
	# shellcheck disable=SC2016 # expanded in the guest
	printf '%s' '
		mkdir -p /root/many && cd /root/many || exit 1
		i=0; while [ $i -lt '"$1"' ]; do echo $i >f$i; i=$((i + 1)); done
		echo old >/root/old; rm /etc/factory-file; sync
		/run/unionroot/bin/unionroot reset --yes >/dev/null && echo MARK-requested'
}
reset_probe() {
	# shellcheck disable=SC2016 # expanded in the guest
	printf '%s' '
		n=$(ls /root/many 2>/dev/null | wc -l)
		if [ -e /root/old ] && [ "$n" = '"$1"' ] && [ ! -e /etc/factory-file ]; then
			echo MARK-state=old
		elif [ ! -e /root/old ] && [ "$n" = 0 ] && [ "$(cat /etc/factory-file)" = factory ]; then
			echo MARK-state=factory
		else
			echo "MARK-state=mixed old=$([ -e /root/old ] && echo y) files=$n factory=$(cat /etc/factory-file 2>/dev/null)"
		fi
		echo "MARK-pending=$(/run/unionroot/bin/unionroot status | sed -n "s/^reset_pending=//p")"'
}

# ---- power cuts at a named moment ---------------------------------------------
# uptime_at LOG PATTERN: the guest's uptime on the first kernel console line
# matching PATTERN (a grep regex: it may hold a slash)
uptime_at() { grep -a -- "$2" "$1" | sed -n 's/^\[ *\([0-9.]*\)\] .*/\1/p' | head -1; }
# cut_at LOG PATTERN SECONDS [run options]: a boot whose QEMU is killed a
# random 0 to SECONDS after its console shows PATTERN, however slow the host
# is that minute; the delay chosen is left in $delay
cut_at() {
	local log=$1 pat=$2 max=$3 run t q
	shift 3
	: >"$log"
	"$ROOT_DIR/board/$BOARD/run" "$OUTDIR" --cmd 'sleep 60' --timeout "${BOOT_TIMEOUT:-120}" \
		--log "$log" "$@" >/dev/null 2>&1 &
	run=$!
	for _ in $(seq 2400); do
		grep -aq -- "$pat" "$log" 2>/dev/null && break
		kill -0 "$run" 2>/dev/null || break
		sleep 0.05
	done
	delay=$(awk -v r="$RANDOM" -v m="$max" 'BEGIN { srand(r); printf "%.2f", m * rand() }')
	sleep "$delay"
	# run's pipeline: timeout, whose child is QEMU
	t=$(pgrep -P "$run" -x timeout)
	q=${t:+$(pgrep -P "$t")}
	[ -z "$q" ] || kill -KILL "$q"
	wait "$run"
	return 0
}
# span LOG FROM TO: seconds of guest uptime between two console lines, plus a tenth
span() { awk -v a="$(uptime_at "$1" "$2")" -v b="$(uptime_at "$1" "$3")" 'BEGIN { printf "%.2f", (b - a) * 1.1 + 0.05 }'; }
