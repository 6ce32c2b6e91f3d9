#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# A worn card: the writable branch's disk starts failing mid-session (QEMU's
# monitor deletes its drive: every later request of the guest's disk ends in
# an I/O error). The running system must see errors or a read-only branch,
# never hang; `unionroot status` says the branch refuses writes (ext4 stops
# writing but its mount still reads "rw" in /proc/mounts); the next
# boot (the card answering again) runs fsck and comes up persistent with
# what was synced before the failure. Flash board: its initramfs carries
# e2fsck; the branch is an ext4 disk, union.upper=/dev/vdc.
BOARD=qemu-x86_64-flash
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-worn || exit 0
scratch worn
F=$T/flash.img
head -c 8M /dev/zero | tr '\0' '\377' >"$F"
D=$T/card.img
new_data "$D"
UP='union.upper=/dev/vdc'

# drives: d1 the image, d2 the flash, d3 the card (--disk), then the command disk
mkfifo "$T/mon.in" "$T/mon.out"
cat "$T/mon.out" >/dev/null &
drain=$!
boot "$T/1.log" "$F" '
	echo before >/root/before; sync
	echo MARK-fail-now
	sleep 4
	echo after >/root/after
	# the write-back of "after" fails; bounded, so a hang shows as a missing mark
	timeout 30 sync; echo "MARK-sync-returned"
	timeout 10 sh -c "echo more >/root/more" && echo MARK-write-ok || echo MARK-write-refused
	/run/unionroot/bin/unionroot status | sed "s/^/STATUS: /"' \
	--disk "$D" --cache none --monitor "$T/mon" --append "$UP" &
booting=$!
for _ in $(seq 900); do
	grep -q '^MARK-fail-now' "$T/1.log" 2>/dev/null && break
	kill -0 "$booting" 2>/dev/null || break
	sleep 0.2
done
# a FIFO open blocks without a reader: only while QEMU runs, and bounded
kill -0 "$booting" 2>/dev/null && timeout 10 bash -c 'echo "drive_del d3" >"$1"' _ "$T/mon.in"
if wait "$booting"; then
	expect "worn card: the session goes on after the card fails (no hang)" "$T/1.log" '^MARK-sync-returned'
	expect "worn card: a write after the failure is refused" "$T/1.log" '^MARK-write-refused'
	expect "worn card: the kernel stops writing to the branch" "$T/1.log" 'EXT4-fs .*(Remounting filesystem read-only|Detected aborted journal)'
	expect "worn card: unionroot status says the branch refuses writes" "$T/1.log" '^STATUS: upper_error=the writable branch refuses writes \((Read-only file system|I/O error)\)'
else
	fail "worn card: a session whose card fails" "no clean boot (see $BUILD/tests/)"
	keep_log "$T/1.log"
fi
kill "$drain" 2>/dev/null

# the card answers again: the next boot checks it and keeps what was synced
if boot "$T/2.log" "$F" 'echo "MARK-before=$(cat /root/before)"
	/run/unionroot/bin/unionroot status | sed "s/^/STATUS: /"' --disk "$D" --append "$UP"; then
	expect "worn card: the next boot checks the branch" "$T/2.log" 'writable branch /dev/vdc: (/sbin/e2fsck repaired its file system|/sbin/e2fsck: clean)'
	expect "worn card: the next boot is persistent" "$T/2.log" '^real-init: status: upper_state=persistent on /dev/vdc \(ext4\)'
	expect "worn card: what was synced before the failure is kept" "$T/2.log" '^MARK-before=before'
	expect_not "worn card: a healthy branch shows no error in the status" "$T/2.log" '^STATUS: upper_error=' "status reports an error on a healthy branch"
else
	fail "worn card: the boot after the failure" "no clean boot (see $BUILD/tests/)"
	keep_log "$T/2.log"
fi
