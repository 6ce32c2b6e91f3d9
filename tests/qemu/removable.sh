#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# A writable branch on removable media (a USB stick: anyone can prepare one
# elsewhere) brings no device node and no setuid bit into the root: the root
# is mounted nodev,nosuid; union.removable=nodev keeps setuid for images
# that need it; a fixed disk's root has neither flag. A kiosk session, a
# failsafe boot and boot-ok keep the flags on the root and on every mount of
# the stick.
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

# 4. the same stick in a normal boot, a kiosk session, a failsafe boot and
# after boot-ok there: every mount of the branch (rw/, saved/) and the root
# stay nodev,nosuid, and a device node planted on the stick opens through
# none of them. A remount replaces a mount's flags unless it repeats them.
new_data "$T/planted.img"
debugfs -w -f - "$T/planted.img" >/dev/null 2>&1 <<-'EOF'
	mkdir upper
	mkdir upper/root
	mkdir work
	cd upper/root
	mknod nul c 1 3
	sif nul mode 020666
EOF
MOUNTS='awk "\$2 == \"/\" || \$2 ~ /^\/run\/unionroot\/(rw|saved)\$/ { print \"MNT \" \$2 \" \" \$1 \" \" \$4 }" /proc/mounts
	for p in /root/nul /run/unionroot/rw/upper/root/nul /run/unionroot/saved/upper/root/nul; do
		[ -e $p ] || continue
		if cat $p; then echo "OPEN $p opened"; else echo "OPEN $p refused"; fi
	done'
# removable_kept NAME LOG MOUNT...: each mount point is listed nosuid,nodev;
# no device node opened, and at least one was tried
removable_kept() {
	local name=$1 log=$2 m
	shift 2
	for m; do
		expect "$name: $m is nosuid,nodev" "$log" "^MNT $m [^ ]+ [^ ]*nosuid,nodev"
	done
	expect "$name: a device node on the stick was tried" "$log" '^OPEN /[^ ]+ refused'
	expect_not "$name: a device node on the stick opens nowhere" "$log" '^OPEN /[^ ]+ opened' \
		"$(grep -a '^OPEN .* opened' "$log" | tr '\n' ' ')"
}
A='union.maxfails=2'
if boot "$T/4n.log" none "$MOUNTS" --usb "$T/planted.img" --append "$A" &&
	boot "$T/4k.log" none "$MOUNTS" --usb "$T/planted.img" --append "$A union.session=volatile" &&
	boot "$T/4f.log" none "$MOUNTS"'
	echo MARK-boot-ok; /run/unionroot/bin/unionroot boot-ok
	'"$MOUNTS" --usb "$T/planted.img" --append "$A"; then
	removable_kept "normal boot" "$T/4n.log" / /run/unionroot/rw
	expect "normal boot: the planted node is tried in the branch" "$T/4n.log" '^OPEN /run/unionroot/rw/upper/root/nul refused'
	removable_kept "kiosk session" "$T/4k.log" / /run/unionroot/rw /run/unionroot/saved
	expect "kiosk session: the planted node is tried through the root" "$T/4k.log" '^OPEN /root/nul refused'
	expect "kiosk session: and in the saved branch" "$T/4k.log" '^OPEN /run/unionroot/saved/upper/root/nul refused'
	expect "the third boot without boot-ok is failsafe" "$T/4f.log" 'failsafe boot: writable branch /dev/sd[a-z]'
	sed -n '1,/^MARK-boot-ok/p' "$T/4f.log" >"$T/4f-before.log"
	removable_kept "failsafe boot" "$T/4f-before.log" / /run/unionroot/rw /run/unionroot/saved
	expect "failsafe boot: the planted node is tried in the saved branch" "$T/4f-before.log" '^OPEN /run/unionroot/saved/upper/root/nul refused'
	expect "boot-ok clears the counter in the failsafe boot" "$T/4f.log" '^unionroot: boot counter cleared'
	sed -n '/^MARK-boot-ok/,$p' "$T/4f.log" >"$T/4f-after.log"
	removable_kept "after boot-ok" "$T/4f-after.log" / /run/unionroot/saved
	expect "after boot-ok the saved branch is read-only again" "$T/4f-after.log" '^MNT /run/unionroot/saved [^ ]+ ro,'
else
	fail "removable: normal, kiosk, failsafe boots" "no clean boot (see $T/4*.log)"
	keep_log "$T"/4*.log
fi
