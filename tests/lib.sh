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

# need_kernel_builtin NAME: BZ= the board's own kernel, every driver built
# in (tools/build-kernel). make check builds it in the background while the
# tests run (tools/build-kernels): this waits while its lock is held. A
# SKIP and 1 when it was never made (make kernel-builtin), a FAIL and 1
# when its build failed.
need_kernel_builtin() {
	local lock=$OUTDIR/vmlinuz-builtin.lock
	[ ! -e "$lock" ] || flock "$lock" true
	BZ=$OUTDIR/vmlinuz-builtin
	if [ -s "$OUTDIR/vmlinuz-builtin.failed" ]; then
		fail "$1" "the board's own kernel did not build: $(tr '\n' ' ' <"$OUTDIR/vmlinuz-builtin.failed")"
		return 1
	fi
	if [ ! -f "$BZ" ]; then
		skip "$1" "$BZ missing (make kernel-builtin BOARD=$BOARD)"
		return 1
	fi
}

# need_tools NAME TOOL...: prints a SKIP and returns 1 when a host tool is missing.
# The unit programs of another architecture's build (DIR/unit-tests,
# DIR/unit-init) run under qemu-user QEMU; each case's line is relayed
# marked with TAG ("mipsel32:", "bigendian: s390x"), so a case's FAIL fails
# the script, and a program that dies or runs under 10 cases fails it too.
foreign_units() {
	local runner=$1 dir=$2 tag=$3 prog rc n
	for prog in unit-tests unit-init; do
		"$runner" "$dir/$prog" >"$T/$prog.out" 2>&1
		rc=$?
		sed -nE "s/^(PASS|FAIL|SKIP) unit\//\1 $tag unit\//p" "$T/$prog.out"
		n=$(grep -c '^PASS ' "$T/$prog.out")
		if [ "$rc" != 0 ] && ! grep -q '^FAIL ' "$T/$prog.out"; then
			fail "$tag $prog" "exited $rc: $(tail -3 "$T/$prog.out" | tr '\n' ' ')"
		elif [ "$n" -lt 10 ]; then
			fail "$tag $prog ran its cases" "$n passed: $(tail -3 "$T/$prog.out" | tr '\n' ' ')"
		fi
	done
}

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

# need_ganesha NAME: nfs-ganesha and its VFS back end (tests/bench/nfs-serve)
need_ganesha() {
	local lib
	need_tools "$1" ganesha.nfsd python3 ss || return 1
	lib=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/ganesha
	[ -f "$lib/libfsalvfs.so" ] && return 0
	skip "$1" "nfs-ganesha-vfs not installed (tools/packages): no $lib/libfsalvfs.so"
	return 1
}

# isolinux's hybrid MBR, which makes an ISO dd-able (package isolinux)
ISOHYBRID=/usr/lib/ISOLINUX/isohdpfx.bin
# need_isohybrid NAME: prints a SKIP and returns 1 when it is missing.
need_isohybrid() {
	[ -f "$ISOHYBRID" ] && return 0
	skip "$1" "$ISOHYBRID missing (isolinux, tools/packages)"
	return 1
}

# hybrid_iso DIR LABEL OUT: the tree DIR as a hybrid ISO as Debian makes
# them, its MBR partition 1 from sector 0 over the whole ISO
hybrid_iso() {
	mkdir -p "$1/isolinux"
	cp "${ISOHYBRID%/*}/isolinux.bin" "$1/isolinux/"
	xorriso -as mkisofs -quiet -V "$2" -J -R -isohybrid-mbr "$ISOHYBRID" \
		-b isolinux/isolinux.bin -c isolinux/boot.cat -no-emul-boot -boot-load-size 4 \
		-boot-info-table -o "$3" "$1" 2>/dev/null
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

# fat_state IMG: "dirty" when the FAT file system's dirty flag is set (it was
# not unmounted cleanly), else "clean".
fat_state() {
	if fsck.vfat -n "$1" 2>&1 | grep -q 'Dirty bit is set'; then echo dirty; else echo clean; fi
}

# new_data FILE [LABEL]: a fresh, empty ext4 writable disk.
new_data() {
	rm -f "$1"
	truncate -s 64M "$1"
	mkfs.ext4 -q -F -L "${2:-data}" "$1"
}

# damaged_ext4 IMG: a 64 MiB ext4 labelled data with errors e2fsck -p
# cannot repair (a block pointer far outside it) and its check forced;
# returns 1 when the host's e2fsck -n finds it clean (a test of it is void).
damaged_ext4() {
	rm -f "$1"
	truncate -s 64M "$1"
	mkfs.ext4 -q -F -L data -O ^extent,^64bit "$1"
	debugfs -w -R "write /etc/hostname f1" "$1" >/dev/null 2>&1
	debugfs -w -R "set_inode_field f1 block[0] 9999999" "$1" >/dev/null 2>&1
	tune2fs -E force_fsck "$1" >/dev/null
	! e2fsck -n "$1" >/dev/null 2>&1
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

# ---- the power-cut story of a reset -------------------------------------------
# reset_cut_story NAME FILES CUTS HOW CHECK DATA [run options...]: CUTS times,
# a boot writes the user's tree of FILES files and asks for a reset
# (reset_setup), the boot that applies it loses its power, and the next boot
# tells what it found (reset_probe). HOW says when the power goes:
#   window         at a random moment from the kernel's start to well after
#                  the switch, measured on the boot before (a busy host
#                  stretches a boot, so a fixed window would miss)
#   after:PATTERN  a random 0 to (PATTERN to the switch, on the boot before;
#                  RESET_CUT_WINDOW when set) seconds after the console
#                  shows PATTERN (cut_at)
#   sysrq          at once, in the boot that asked, after the request
#                  returned: sysrq b, nothing synced or unmounted
# CHECK CUT LOG DELAY judges the boot after a cut by its PASS/FAIL lines and
# returns 1 on a failure (reset_cut_factory, or a script's own). The boot
# after a cut sets up the next cut's tree and request, unless HOW is sysrq;
# RESET_CUT_FROM names a log whose boot already did for the first. Logs are
# $T/TAG-setupN.log, -cutN.log, -afterN.log (TAG is NAME in letters and
# digits). FAIL lines start "NAME: " when NAME is not empty. Returns 0 when
# every cut passed CHECK.
reset_cut_story() {
	local name=$1 files=$2 cuts=$3 how=$4 check=$5 data=$6 tag pre prev i delay t0 setup probe state bad=0
	shift 6
	tag=${name//[^a-zA-Z0-9]/-}
	tag=${tag:-reset}
	pre=${name:+$name: }
	setup=$(reset_setup "$files")
	probe=$(reset_probe "$files")
	prev=${RESET_CUT_FROM:-}
	for i in $(seq "$cuts"); do
		if [ "$how" = sysrq ] || [ -z "$prev" ] || ! grep -q '^MARK-requested' "$prev"; then
			prev=$T/$tag-setup$i.log
			t0=$(date +%s.%N)
			if [ "$how" = sysrq ]; then
				"$ROOT_DIR/board/$BOARD/run" "$OUTDIR" --data "$data" --timeout "${BOOT_TIMEOUT:-120}" \
					--log "$prev" --cmd "$setup"'
						echo b >/proc/sysrq-trigger' "$@" >/dev/null 2>&1
				sed -i 's/\r$//' "$prev"
				# the request was made and the boot never got to finish
				grep -q '^MARK-requested' "$prev" && ! grep -q '^real-init: cmd exit=' "$prev"
			else
				boot "$prev" "$data" "$setup" "$@" && grep -q '^MARK-requested' "$prev"
			fi || {
				fail "${pre}power cut $i: the user's tree and a reset request are set up" "see $BUILD/tests/"
				keep_log "$prev"
				bad=1
				break
			}
		fi
		delay=0
		case $how in
		sysrq) ;;
		window)
			# QEMU's own start (firmware, loading the kernel: the boot's
			# wall time less the guest's last uptime) comes first, then the
			# guest's time to the switch
			delay=$(awk -v s="$RANDOM" -v t0="${t0:-0}" -v t1="$(date +%s.%N)" \
				-v up="$(sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p' "$prev" | tail -1)" \
				-v sw="$(uptime_at "$prev" 'unionroot: switching to ')" \
				'BEGIN { srand(s); fw = t0 ? t1 - t0 - up : 1; if (fw < 0) fw = 0
					printf "%.1f", fw + (sw ? sw : 4) * (0.3 + rand() * 1.3) }')
			"$ROOT_DIR/board/$BOARD/run" "$OUTDIR" --data "$data" --cmd 'sleep 30' \
				--timeout "$delay" --log "$T/$tag-cut$i.log" "$@" >/dev/null 2>&1
			;;
		after:*)
			cut_at "$T/$tag-cut$i.log" "${how#after:}" \
				"${RESET_CUT_WINDOW:-$(span "$prev" "${how#after:}" 'switching to')}" \
				--data "$data" "$@"
			if ! grep -aq -- "${how#after:}" "$T/$tag-cut$i.log"; then
				fail "${pre}power cut $i during a reset" "the boot never got to '${how#after:}' (see $BUILD/tests/)"
				keep_log "$T/$tag-cut$i.log"
				bad=1
				continue
			fi
			;;
		*)
			fail "${pre}power cut $i" "no such moment '$how'"
			return 1
			;;
		esac
		t0=$(date +%s.%N)
		prev=$T/$tag-after$i.log
		# a boot that stalls fails like any other: PID 1's watchdog line in
		# its log says where it hung
		if ! boot "$prev" "$data" "$probe
			$([ "$how" != sysrq ] && [ "$i" -lt "$cuts" ] && printf '%s' "$setup")" "$@"; then
			fail "${pre}power cut $i at $delay s: the next boot is clean" "see $BUILD/tests/"
			keep_log "$T/$tag-cut$i.log" "$prev"
			bad=1
			continue
		fi
		state=$(sed -n 's/^MARK-state=//p' "$prev")
		echo "${pre}power cut $i at $delay s ($how, $(grep -ac 'factory reset (' "$T/$tag-cut$i.log" 2>/dev/null) reset line(s) before it): the next boot found $state" >&2
		if ! "$check" "$i" "$prev" "$delay"; then
			keep_log "$T/$tag-cut$i.log" "$prev"
			bad=1
		fi
	done
	return $bad
}

# reset_cut_factory CUT LOG DELAY: the default CHECK of reset_cut_story, in
# its NAME (the caller's $name): the boot after the cut found the old or the
# factory tree, never a mix, and finished the reset (the request outlives
# any cut, so a clean boot always finishes it).
reset_cut_factory() {
	local state pre=${name:+$name: } rc=0
	state=$(sed -n 's/^MARK-state=//p' "$2")
	case $state in
	old | factory) ;;
	*)
		fail "${pre}power cut $1 at $3 s: the next boot is old or factory" "$state"
		rc=1
		;;
	esac
	if [ "$state" != factory ] || ! grep -q '^MARK-pending=no' "$2"; then
		fail "${pre}power cut $1 at $3 s: the following boot finishes the reset" "state $state"
		rc=1
	fi
	return $rc
}
