#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# Power cuts at random moments: QEMU is killed (SIGKILL, the data disk with
# cache=none) at a random instant of a boot that applies a reset of thousands
# of files, five times, on ext4 and on jffs2 flash (where a rename can leave
# both names behind); every following boot must find the old tree or the
# factory tree, never a mix, and come up clean. POWERCUT_SERIES also knows
# f2fs (a disk formatted f2fs on the eMMC board, which checks it with
# fsck.f2fs at each boot) and ubifs (a UBI volume on the flash board), which
# tests/qemu/powercut-fs.sh runs.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
scratch powercut
CUTS=${POWERCUT_CUTS:-5}
# extra kernel parameters for every boot (union.debug to hunt a stall), and
# which series to run
APPEND=${POWERCUT_APPEND:-}
SERIES=${POWERCUT_SERIES:-ext4 jffs2}

# series NAME BOARD FILES: CUTS cuts on that board's writable medium.
series() {
	local name=$1 FILES=$3 DATA=$T/$1.img APPEND=$APPEND
	BOARD=$2
	OUTDIR=$BUILD/$BOARD
	need_qemu "qemu-powercut-$name" || return 0
	case $name in
	jffs2) head -c 8M /dev/zero | tr '\0' '\377' >"$DATA" ;; # erased flash
	ubifs)
		head -c 16M /dev/zero | tr '\0' '\377' >"$DATA"
		APPEND+=" union.ubi=mtd:rootfs_data union.upper=ubi:rootfs_data"
		;;
	f2fs)
		if ! command -v mkfs.f2fs >/dev/null; then
			skip "qemu-powercut-f2fs" "mkfs.f2fs not installed (f2fs-tools)"
			return 0
		fi
		rm -f "$DATA" && truncate -s 128M "$DATA" && mkfs.f2fs -q -l data "$DATA" >/dev/null
		# the demo's disks instead of the board's SD card partitions
		APPEND+=" union.lower=/dev/vda union.upper=LABEL=data"
		;;
	*) new_data "$DATA" ;;
	esac
	# What the next boot must see: all of the user's tree, or none of it.
	PROBE=$(reset_probe "$FILES")
	SETUP=$(reset_setup "$FILES")

	cut=0
	bad=0
	while [ $cut -lt "$CUTS" ]; do
		cut=$((cut + 1))
		t0=$(date +%s.%N)
		if ! boot "$T/setup$cut.log" "$DATA" "$SETUP" --cache none --append "$APPEND" || ! grep -q '^MARK-requested' "$T/setup$cut.log"; then
			fail "$name: power cut $cut: the user's tree and a reset request are set up" "see $T/setup$cut.log"
			keep_log "$T/setup$cut.log"
			bad=1
			break
		fi
		# somewhere between the kernel's start and well after the switch,
		# measured on the setup boot: QEMU's own start (firmware, loading
		# the kernel: its wall time less the guest's last uptime) comes
		# first, then the guest's time to the switch, which a busy host
		# stretches; a fixed window from QEMU's start cut most boots before
		# the kernel ran
		delay=$(awk -v s="$RANDOM" -v t0="$t0" -v t1="$(date +%s.%N)" \
			-v up="$(sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p' "$T/setup$cut.log" | tail -1)" \
			-v sw="$(sed -n 's/^\[ *\([0-9.]*\)\] unionroot: switching to .*/\1/p' "$T/setup$cut.log")" \
			'BEGIN { srand(s); fw = t1 - t0 - up; if (fw < 0) fw = 0
				printf "%.1f", fw + (sw ? sw : 4) * (0.3 + rand() * 1.3) }')
		"$ROOT_DIR/board/$BOARD/run" "$OUTDIR" --data "$DATA" --cache none --cmd 'sleep 30' \
			--append "$APPEND" --timeout "$delay" --log "$T/cut$cut.log" >/dev/null 2>&1
		# a boot that stalls (no power-off within BOOT_TIMEOUT) fails like
		# any other: PID 1's watchdog line in its log says where it hung
		if ! boot "$T/after$cut.log" "$DATA" "$PROBE" --cache none --append "$APPEND"; then
			fail "$name: power cut $cut at ${delay} s: the next boot is clean" "see $BUILD/tests/"
			keep_log "$T/cut$cut.log" "$T/after$cut.log"
			bad=1
			continue
		fi
		state=$(sed -n 's/^MARK-state=//p' "$T/after$cut.log")
		echo "$name: power cut $cut at ${delay} s: the next boot found $state" >&2
		case $state in
		old | factory) ;;
		*)
			fail "$name: power cut $cut at ${delay} s: the next boot is old or factory" "$state"
			keep_log "$T/cut$cut.log" "$T/after$cut.log"
			bad=1
			;;
		esac
		# the request outlives any cut, so a clean boot always finishes the reset
		if [ "$state" = old ] || ! grep -q '^MARK-pending=no' "$T/after$cut.log"; then
			fail "$name: power cut $cut at ${delay} s: the following boot finishes the reset" "state $state"
			bad=1
		fi
	done
	[ $bad = 0 ] && pass "$name: $CUTS random power cuts during a reset of $FILES files: each next boot is factory and clean"
	# the eMMC board checks its f2fs branch before each mount
	[ "$name" != f2fs ] || [ ! -f "$T/after1.log" ] ||
		expect "f2fs: the boot after a cut checks the branch with the board's fsck.f2fs" "$T/after1.log" \
			'writable branch /dev/vdb: /sbin/fsck\.f2fs'
}

case " $SERIES " in *" ext4 "*) series ext4 qemu-x86_64 "${POWERCUT_FILES:-2000}" ;; esac
case " $SERIES " in *" jffs2 "*) series jffs2 qemu-x86_64-flash "${POWERCUT_FLASH_FILES:-500}" ;; esac
case " $SERIES " in *" f2fs "*) series f2fs qemu-x86_64-emmc "${POWERCUT_FILES:-2000}" ;; esac
case " $SERIES " in *" ubifs "*) series ubifs qemu-x86_64-flash "${POWERCUT_FLASH_FILES:-500}" ;; esac
