#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# A writable branch on removable media (a USB stick: anyone can prepare one
# elsewhere) brings no device node and no setuid bit into the root: the root
# is mounted nodev,nosuid; union.removable=nodev keeps setuid for images
# that need it; a fixed disk's root has neither flag. A kiosk session, a
# failsafe boot and boot-ok keep the flags on the root and on every mount of
# the stick. A stick serves as the writable branch only when asked
# (union.scan=removable here); one that copies the fixed branch's label,
# PARTLABEL or UUID never takes the root, whichever appears first.
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

ASK=union.scan=removable # this boot's writable branch is on removable media
if boot "$T/1.log" none "$PROBE" --usb "$T/stick.img" --append "$ASK"; then
	expect "a USB stick is seen as removable media" "$T/1.log" 'writable branch /dev/sd[a-z] is on removable media: the root is mounted nodev,nosuid \(union.removable=nodev,nosuid\)'
	expect "the root on a USB stick is nodev,nosuid" "$T/1.log" '^ROOT: overlay / overlay [^ ]*nosuid,nodev'
	expect "a device node on the stick cannot be opened" "$T/1.log" '^MARK-dev-refused'
	expect "status records the flags" "$T/1.log" '^real-init: status: root_flags=nodev,nosuid'
	expect "the stick is the persistent writable branch" "$T/1.log" '^real-init: status: upper_state=persistent on /dev/sd[a-z] \(ext4\)'
else
	fail "removable: USB boot" "no clean boot (see $T/1.log)"
	keep_log "$T/1.log"
fi

if boot "$T/2.log" none "$PROBE" --usb "$T/stick.img" --append "$ASK union.removable=nodev"; then
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
A="union.maxfails=2 $ASK"
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
	expect "after boot-ok the saved branch is back to read-only" "$T/4f-after.log" '^MNT /run/unionroot/saved [^ ]+ ro,'
else
	fail "removable: normal, kiosk, failsafe boots" "no clean boot (see $T/4*.log)"
	keep_log "$T"/4*.log
fi

# 5. a stick that copies the fixed writable branch's identity (a kiosk's
# public USB port): the fixed branch is the root, whichever appears first;
# a stick alone is refused unless asked for. Each branch carries a marker
# in upper/etc, so the root shows whose upper it got.
WHOSE='for f in fixed-branch stick-branch; do [ -e /etc/$f ] && echo "MARK-branch=$f"; done
	/run/unionroot/bin/unionroot status | grep "^upper_state=" | sed "s/^/STATUS: /"'
# branch_img IMG NAME [mkfs.ext4 options]: an ext4 branch, upper/etc/NAME-branch in it
branch_img() {
	local img=$1 name=$2
	shift 2
	rm -f "$img"
	truncate -s 64M "$img"
	mkfs.ext4 -q -F "$@" "$img"
	debugfs -w -f - "$img" >/dev/null 2>&1 <<-EOF2
		mkdir upper
		mkdir upper/etc
		mkdir work
		write /dev/null upper/etc/$name-branch
	EOF2
}
# gpt_img IMG PART: a GPT disk whose one partition, named "data", is PART
gpt_img() {
	rm -f "$1"
	truncate -s 72M "$1"
	printf 'label: gpt\nstart=2048, size=131072, name=data\n' | sfdisk -q "$1" >/dev/null
	dd if="$2" of="$1" bs=1M seek=1 conv=notrunc status=none
}
# branch_is NAME LOG WHOSE: the root's upper is the branch marked WHOSE
branch_is() {
	expect "$1: the root's writable branch is the $3 one" "$2" "^MARK-branch=$3-branch\$"
	expect_not "$1: the stick's upper never reaches the root" "$2" '^MARK-branch=stick-branch' \
		"the stick's upper is in the root"
}

branch_img "$T/fixed.img" fixed -L data
branch_img "$T/stick-data.img" stick -L data
# 5a. the audit's machine: the fixed branch on AHCI, the stick on xHCI
if boot "$T/5a.log" none "$WHOSE" --attach "sata-disk:$T/fixed.img" --attach "usb-xhci:$T/stick-data.img"; then
	branch_is "AHCI disk and xHCI stick both LABEL=data" "$T/5a.log" fixed
else
	fail "removable: AHCI disk and xHCI stick" "no clean boot (see $T/5a.log)"
	keep_log "$T/5a.log"
fi

# 5b. the stick first: the fixed disk is plugged in (virtio, PCI hotplug)
# only once the boot has found the stick alone and said it waits
mkfifo "$T/mon.in" "$T/mon.out"
cat "$T/mon.out" >"$T/mon.txt" &
drain=$!
boot "$T/5b.log" none "$WHOSE" --usb "$T/stick-data.img" --monitor "$T/mon" \
	--append 'union.wait=30' &
booting=$!
await_line "$T/5b.log" 'waiting for a fixed device' "$booting" && timeout 10 bash -c 'printf "%s\n" "$2" "$3" >"$1"' _ "$T/mon.in" \
	"drive_add 0 if=none,id=late,format=raw,file=$T/fixed.img" "device_add virtio-blk-pci,drive=late,id=latedisk"
if wait "$booting"; then
	expect "the stick alone: the boot says it waits for a fixed device" "$T/5b.log" \
		'unionroot: writable branch LABEL=data: only removable /dev/sd[a-z] matches; waiting for a fixed device'
	branch_is "the stick before the fixed disk" "$T/5b.log" fixed
else
	fail "removable: the stick before the fixed disk" "no clean boot (see $T/5b.log, $T/mon.txt)"
	keep_log "$T/5b.log" "$T/mon.txt"
fi
kill "$drain" 2>/dev/null

# 5c. the stick alone, unasked: refused at the deadline, union.onfail
if boot "$T/5c.log" none "$WHOSE" --usb "$T/stick-data.img" --append 'union.wait=3'; then
	expect "a stick alone is refused as the writable branch, with why" "$T/5c.log" \
		'unionroot: writable branch LABEL=data: only removable /dev/sd[a-z] matches, and a writable branch goes on removable media only when asked .*; booting with a volatile writable branch in RAM'
	expect_not "and its upper never reaches the root" "$T/5c.log" '^MARK-branch=' "a branch's upper is in the root"
else
	fail "removable: a stick alone, unasked" "no clean boot (see $T/5c.log)"
	keep_log "$T/5c.log"
fi
# 5d. asked for (union.scan=removable): the stick alone serves
if boot "$T/5d.log" none "$WHOSE" --usb "$T/stick-data.img" --append "$ASK"; then
	expect "union.scan=removable: the stick serves" "$T/5d.log" '^MARK-branch=stick-branch$'
else
	fail "removable: a stick asked for" "no clean boot (see $T/5d.log)"
	keep_log "$T/5d.log"
fi

# 5e. a stick with the fixed branch's PARTLABEL, and one with its UUID
branch_img "$T/fixed-part.img" fixed -L one
branch_img "$T/stick-part.img" stick -L two
gpt_img "$T/fixed-gpt.img" "$T/fixed-part.img"
gpt_img "$T/stick-gpt.img" "$T/stick-part.img"
if boot "$T/5e.log" "$T/fixed-gpt.img" "$WHOSE" --usb "$T/stick-gpt.img" --append 'union.upper=PARTLABEL=data'; then
	branch_is "a stick with the fixed branch's PARTLABEL" "$T/5e.log" fixed
else
	fail "removable: a copied PARTLABEL" "no clean boot (see $T/5e.log)"
	keep_log "$T/5e.log"
fi
U=0d6c6b1e-5a1e-4c3a-9d7e-7a3b1c2d4e5f
branch_img "$T/fixed-uuid.img" fixed -U "$U"
branch_img "$T/stick-uuid.img" stick -U "$U"
if boot "$T/5f.log" "$T/fixed-uuid.img" "$WHOSE" --usb "$T/stick-uuid.img" --append "union.upper=UUID=$U"; then
	branch_is "a stick with the fixed branch's UUID" "$T/5f.log" fixed
else
	fail "removable: a copied UUID" "no clean boot (see $T/5f.log)"
	keep_log "$T/5f.log"
fi
