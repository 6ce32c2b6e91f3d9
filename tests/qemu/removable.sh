#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# A writable branch on removable media (a USB stick: anyone can prepare one
# elsewhere) brings no device node and no setuid bit into the root: the root
# is mounted nodev,nosuid; union.removable=nodev keeps setuid for images
# that need it; a fixed disk's root has neither flag.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-removable || exit 0
scratch removable
new_data "$T/stick.img"
# what the guest shows: the root's mount options, and whether a device node
# made in the root (on the writable branch) can be opened
PROBE='grep " / " /proc/mounts | sed "s/^/ROOT: /"
	mknod /root/nul c 1 3
	if cat /root/nul; then echo MARK-dev-opened; else echo MARK-dev-refused; fi'

if boot "$T/1.log" none "$PROBE" --usb "$T/stick.img"; then
	expect "a USB stick is seen as removable media" "$T/1.log" 'writable branch /dev/sd[a-z] is on removable media: the root is mounted nodev,nosuid \(union.removable=nodev,nosuid\)'
	expect "the root on a USB stick is nodev,nosuid" "$T/1.log" '^ROOT: overlay / overlay [^ ]*nosuid,nodev'
	expect "a device node on the stick cannot be opened" "$T/1.log" '^MARK-dev-refused'
	expect "status records the flags" "$T/1.log" '^real-init: status: root_flags=nodev,nosuid'
	expect "the stick is the persistent writable branch" "$T/1.log" '^real-init: status: upper_state=persistent on /dev/sd[a-z] \(ext4\)'
else
	fail "removable: USB boot" "no clean boot (see $T/1.log)"
	keep_log "$T/1.log"
fi

if boot "$T/2.log" none "$PROBE" --usb "$T/stick.img" --append 'union.removable=nodev'; then
	expect "union.removable=nodev keeps setuid" "$T/2.log" '^ROOT: overlay / overlay rw,nodev,'
	expect_not "union.removable=nodev: no nosuid" "$T/2.log" '^ROOT: .*nosuid' "the root is nosuid"
else
	fail "removable: union.removable=nodev" "no clean boot (see $T/2.log)"
	keep_log "$T/2.log"
fi

new_data "$T/fixed.img"
if boot "$T/3.log" "$T/fixed.img" "$PROBE"; then
	expect "a fixed disk's root opens its device nodes" "$T/3.log" '^MARK-dev-opened'
	expect_not "a fixed disk's root is not nodev" "$T/3.log" '^ROOT: .*nodev' "the root is nodev"
else
	fail "removable: fixed disk" "no clean boot (see $T/3.log)"
	keep_log "$T/3.log"
fi
