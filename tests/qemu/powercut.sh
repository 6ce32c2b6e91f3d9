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
	reset_cut_story "$name" "$FILES" "$CUTS" window reset_cut_factory "$DATA" --cache none --append "$APPEND" &&
		pass "$name: $CUTS random power cuts during a reset of $FILES files: each next boot is factory and clean"
	# the eMMC board checks its f2fs branch before each mount
	[ "$name" != f2fs ] || [ ! -f "$T/f2fs-after1.log" ] ||
		expect "f2fs: the boot after a cut checks the branch with the board's fsck.f2fs" "$T/f2fs-after1.log" \
			'writable branch /dev/vdb: /sbin/fsck\.f2fs'
}

case " $SERIES " in *" ext4 "*) series ext4 qemu-x86_64 "${POWERCUT_FILES:-2000}" ;; esac
case " $SERIES " in *" jffs2 "*) series jffs2 qemu-x86_64-flash "${POWERCUT_FLASH_FILES:-500}" ;; esac
case " $SERIES " in *" f2fs "*) series f2fs qemu-x86_64-emmc "${POWERCUT_FILES:-2000}" ;; esac
case " $SERIES " in *" ubifs "*) series ubifs qemu-x86_64-flash "${POWERCUT_FLASH_FILES:-500}" ;; esac
