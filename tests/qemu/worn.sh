#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# A worn card: the writable branch's medium starts failing mid-session
# (QEMU's monitor deletes its drive: every later request of the guest's disk
# ends in an I/O error). The running system must see errors or a read-only
# branch, never hang; `unionroot status` says the branch refuses writes (the
# file system stops writing but its mount often still reads "rw" in
# /proc/mounts); the next boot (the card answering once more) checks the branch
# where a checker exists and comes up persistent with what was synced before
# the failure. Flash board (its initramfs carries e2fsck and fsck.f2fs):
# ext4 and f2fs on a disk (union.upper=/dev/vdc), ubifs on a UBI volume of
# the block2mtd flash. block2mtd writes into the page cache and never sees
# its disk fail, so there the flash fails the way UBI meets a failing NAND:
# UBI's own fault injection (debugfs tst_emulate_power_cut, a count of 1)
# fails the second eraseblock header written from then on, and UBI turns
# read-only: every later write fails.
# WORN_FS picks the stories (default: ext4 f2fs ubifs).
BOARD=qemu-x86_64-flash
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-worn || exit 0
scratch worn
erased() { head -c "$2" /dev/zero | tr '\0' '\377' >"$1"; }

# worn FS: the story on that file system. Drives: d1 the image, d2 the
# flash, d3 the card (--disk) when there is one, then the command disk.
worn() {
	local fs=$1 F=$T/$1-flash.img D=$T/$1-card.img up drive=d3 stops checks where fails=""
	local disk=(--disk "$D")
	erased "$F" 8M
	case $fs in
	ext4)
		new_data "$D"
		stops='EXT4-fs .*(Remounting filesystem read-only|Detected aborted journal)'
		checks='writable branch /dev/vdc: (/sbin/e2fsck repaired its file system|/sbin/e2fsck: clean)'
		;;
	f2fs)
		need_tools "qemu-worn f2fs" mkfs.f2fs || return 0
		rm -f "$D" && truncate -s 128M "$D" && mkfs.f2fs -q -l data "$D" >/dev/null
		# f2fs 6.1 says nothing: its checkpoint error flag fails every later change
		stops="can't create /root/more: Input/output error"
		checks='writable branch /dev/vdc: (/sbin/fsck.f2fs repaired its file system|/sbin/fsck.f2fs: clean)'
		;;
	ubifs)
		erased "$F" 16M
		disk=() drive=""
		# a file of several eraseblocks makes UBI write new headers
		fails='mount -t debugfs debugfs /sys/kernel/debug; u=/sys/kernel/debug/ubi/ubi0
			echo 1 >$u/tst_emulate_power_cut_min; echo 1 >$u/tst_emulate_power_cut_max
			echo 3 >$u/tst_emulate_power_cut
			head -c 1048576 /dev/zero >/root/filler; timeout 30 sync'
		stops='UBIFS (error|warning).*switched to read-only mode'
		# no checker: UBIFS replays its journal at mount
		checks='UBIFS \(ubi0:0\): (recovery needed|recovery completed)'
		;;
	esac
	where=/dev/vdc
	if [ "$fs" = ubifs ]; then
		up='union.ubi=mtd:rootfs_data union.upper=ubi:rootfs_data' where=ubi0_0
	else
		up='union.upper=/dev/vdc'
	fi
	mkfifo "$T/mon.in" "$T/mon.out"
	cat "$T/mon.out" >/dev/null &
	drain=$!
	boot "$T/$fs-1.log" "$F" '
		echo before >/root/before; sync
		echo MARK-fail-now
		sleep 4; '"$fails"'
		echo after >/root/after
		# the write-back of "after" fails; bounded, so a hang shows as a missing mark
		timeout 30 sync; echo "MARK-sync-returned"
		timeout 10 sh -c "echo more >/root/more; sync -f /root/more" && echo MARK-write-ok || echo MARK-write-refused
		/run/unionroot/bin/unionroot status | sed "s/^/STATUS: /"' \
		${disk[@]+"${disk[@]}"} --cache none --monitor "$T/mon" --append "$up" &
	booting=$!
	for _ in $(seq 900); do
		grep -q '^MARK-fail-now' "$T/$fs-1.log" 2>/dev/null && break
		kill -0 "$booting" 2>/dev/null || break
		sleep 0.2
	done
	# a FIFO open blocks without a reader: only while QEMU runs, and bounded
	[ -z "$drive" ] || ! kill -0 "$booting" 2>/dev/null ||
		timeout 10 bash -c 'echo "drive_del $2" >"$1"' _ "$T/mon.in" "$drive"
	if wait "$booting"; then
		grep -aEq "$stops" "$T/$fs-1.log" || keep_log "$T/$fs-1.log"
		expect "worn card $fs: the session goes on after the card fails (no hang)" "$T/$fs-1.log" '^MARK-sync-returned'
		expect "worn card $fs: a write after the failure is refused" "$T/$fs-1.log" '^MARK-write-refused'
		expect "worn card $fs: the kernel stops writing to the branch" "$T/$fs-1.log" "$stops"
		expect "worn card $fs: unionroot status says the branch refuses writes" "$T/$fs-1.log" '^STATUS: upper_error=the writable branch refuses writes \((Read-only file system|I/O error)\)'
	else
		fail "worn card $fs: a session whose card fails" "no clean boot (see $BUILD/tests/)"
		keep_log "$T/$fs-1.log"
	fi
	kill "$drain" 2>/dev/null
	rm -f "$T/mon.in" "$T/mon.out"

	# the card answers once more: the next boot checks it and keeps what was synced
	if boot "$T/$fs-2.log" "$F" 'echo "MARK-before=$(cat /root/before)"
		/run/unionroot/bin/unionroot status | sed "s/^/STATUS: /"' ${disk[@]+"${disk[@]}"} --append "$up"; then
		grep -aEq "$checks" "$T/$fs-2.log" || keep_log "$T/$fs-2.log"
		expect "worn card $fs: the next boot checks the branch" "$T/$fs-2.log" "$checks"
		expect "worn card $fs: the next boot is persistent" "$T/$fs-2.log" "^real-init: status: upper_state=persistent on $where \\($fs\\)"
		expect "worn card $fs: what was synced before the failure is kept" "$T/$fs-2.log" '^MARK-before=before'
		expect_not "worn card $fs: a healthy branch shows no error in the status" "$T/$fs-2.log" '^STATUS: upper_error=' "status reports an error on a healthy branch"
	else
		fail "worn card $fs: the boot after the failure" "no clean boot (see $BUILD/tests/)"
		keep_log "$T/$fs-2.log"
	fi
}

for fs in ${WORN_FS:-ext4 f2fs ubifs}; do
	worn "$fs"
done
