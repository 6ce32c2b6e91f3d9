#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# User stories of a router's flash (board qemu-x86_64-flash: block2mtd turns
# a virtio disk into the MTD partition "rootfs_data"): erased flash is a
# working jffs2 on first boot, settings persist, a reset brings the factory
# state back, foreign data is never wiped unasked, UBI makes its volume, a
# blank block partition is formatted once, and the same works without an
# initramfs, with unionroot as the image's /sbin/init.
BOARD=qemu-x86_64-flash
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-flash || exit 0
scratch flash
erased() { head -c 8M /dev/zero | tr '\0' '\377' >"$1"; }

# --- jffs2 on erased flash -------------------------------------------------
F=$T/flash.img
erased "$F"
if boot "$T/j1.log" "$F" "$(change_root settings)"'
	grep " /run/unionroot/rw " /proc/mounts | sed "s/^/MOUNT: /"'; then
	expect "erased flash is found as an empty jffs2" "$T/j1.log" 'mtd:rootfs_data is /dev/mtdblock0 \(mtd0, erased flash: mounts as an empty jffs2\)'
	expect "the first boot on erased flash runs on an overlay root" "$T/j1.log" '^real-init: root: overlay / overlay rw'
	expect "the writable branch is jffs2 on mtdblock0" "$T/j1.log" '^MOUNT: /dev/mtdblock0 /run/unionroot/rw jffs2 rw'
	expect "the boot names what jffs2 cannot do under overlayfs" "$T/j1.log" 'is jffs2, which lacks RENAME_WHITEOUT'
else
	fail "jffs2 first boot" "no clean boot (see $T/j1.log)"
	keep_log "$T/j1.log"
fi
if boot "$T/j2.log" "$F" "$SHOW_CHANGES"; then
	expect "settings on jffs2 survive a reboot" "$T/j2.log" '^MARK-persist=settings'
	expect "a file deleted from the image stays deleted on jffs2" "$T/j2.log" '^MARK-factory-gone'
else
	fail "jffs2 second boot" "no clean boot (see $T/j2.log)"
fi
if boot "$T/j3.log" "$F" '
	[ -e /root/persist ] && echo MARK-persist-kept || echo MARK-persist-gone
	echo "MARK-factory=$(cat /etc/factory-file)"
	sleep 1; echo "MARK-trash=$(ls /run/unionroot/rw/.unionroot/trash | wc -l)"' --reset; then
	expect "a reset on jffs2 brings the factory state back" "$T/j3.log" '^MARK-factory=factory'
	expect "a reset on jffs2 drops the settings" "$T/j3.log" '^MARK-persist-gone'
	expect "the old jffs2 tree is deleted after the switch" "$T/j3.log" '^MARK-trash=0'
else
	fail "jffs2 reset boot" "no clean boot (see $T/j3.log)"
fi

# --- foreign data on the partition: reported, kept; union.format=jffs2 -----
G=$T/foreign.img
head -c 8M /dev/zero >"$G"
printf 'not a file system' | dd of="$G" conv=notrunc status=none
before=$(sha256sum <"$G")
if boot "$T/f1.log" "$G" 'echo MARK-booted' --append union.wait=3; then
	expect "data that is not jffs2 is reported" "$T/f1.log" 'mtd:rootfs_data \(mtd0\) holds data that is neither erased flash nor jffs2; not touching it'
	expect "the boot goes on with a volatile writable branch" "$T/f1.log" '^real-init: status: upper_state=volatile'
	if [ "$(sha256sum <"$G")" = "$before" ]; then
		pass "foreign data on the flash is left untouched"
	else
		fail "foreign data on the flash is left untouched" "the image changed"
	fi
else
	fail "foreign flash boot" "no clean boot (see $T/f1.log)"
fi
if boot "$T/f2.log" "$G" 'echo kept >/root/persist; echo MARK-booted' --append union.format=jffs2; then
	expect "union.format=jffs2 erases the partition" "$T/f2.log" 'erased 64 eraseblocks \(union.format=jffs2\)'
	expect "after union.format=jffs2 the branch is persistent" "$T/f2.log" '^real-init: status: upper_state=persistent on /dev/mtdblock0 \(jffs2\)'
else
	fail "union.format=jffs2 boot" "no clean boot (see $T/f2.log)"
fi

# --- UBI / ubifs ------------------------------------------------------------
U=$T/ubi.img
erased "$U"
UBI='union.ubi=mtd:rootfs_data union.upper=ubi:rootfs_data'
if boot "$T/u1.log" "$U" "$(change_root ubi-settings)" --append "$UBI" &&
	boot "$T/u2.log" "$U" "$SHOW_CHANGES" --append "$UBI"; then
	expect "union.ubi= attaches the MTD partition" "$T/u1.log" 'UBI: attached mtd:rootfs_data \(mtd0\) as ubi0'
	expect "the first UBI boot creates the volume" "$T/u1.log" 'UBI: created volume "rootfs_data" on ubi0'
	expect "the UBI volume is the writable branch, as ubifs" "$T/u1.log" '^real-init: status: upper_state=persistent on ubi0_0 \(ubifs\)'
	expect "settings on ubifs survive a reboot" "$T/u2.log" '^MARK-persist=ubi-settings'
	expect "a deletion on ubifs stays deleted" "$T/u2.log" '^MARK-factory-gone'
	expect_not "the second UBI boot reuses the volume" "$T/u2.log" 'created volume' "it created one again"
else
	fail "UBI boots" "no clean boot (see $T/u1.log, $T/u2.log)"
	keep_log "$T/u1.log"
fi

# --- a blank block partition with union.format=ext4 -------------------------
B=$T/blank.img
truncate -s 64M "$B"
BLK='union.upper=/dev/vdc union.format=ext4'
if boot "$T/b1.log" "$F" 'echo "n=1" >/root/boots' --disk "$B" --append "$BLK" &&
	boot "$T/b2.log" "$F" 'echo "MARK-$(cat /root/boots)"' --disk "$B" --append "$BLK"; then
	expect "a blank partition is formatted as union.format says" "$T/b1.log" 'writable branch /dev/vdc is blank; formatting it as ext4'
	expect "the formatted partition is the writable branch" "$T/b1.log" '^real-init: status: upper_state=persistent on /dev/vdc \(ext4\)'
	expect "the next boot reuses it with its data" "$T/b2.log" '^MARK-n=1'
	expect_not "a formatted partition is never formatted again" "$T/b2.log" 'formatting it' "the second boot formatted it"
else
	fail "blank ext4 boots" "no clean boot (see $T/b1.log, $T/b2.log)"
fi
# the same with f2fs (mkfs.f2fs and fsck.f2fs are in the board's TOOLS)
B2=$T/blank-f2fs.img
truncate -s 128M "$B2"
BLK2='union.upper=/dev/vdc union.format=f2fs'
if boot "$T/b4.log" "$F" 'echo "n=f2fs" >/root/boots' --disk "$B2" --append "$BLK2" &&
	boot "$T/b5.log" "$F" 'echo "MARK-$(cat /root/boots)"' --disk "$B2" --append "$BLK2"; then
	expect "a blank partition is formatted as f2fs with union.format=f2fs" "$T/b4.log" 'writable branch /dev/vdc is blank; formatting it as f2fs'
	expect "the f2fs partition is the writable branch" "$T/b4.log" '^real-init: status: upper_state=persistent on /dev/vdc \(f2fs\)'
	expect "the next boot checks the f2fs branch and reuses its data" "$T/b5.log" '^MARK-n=f2fs'
	expect_not "an f2fs branch is never formatted again" "$T/b5.log" 'formatting it' "the second boot formatted it"
	expect "a checker's lines are logged whole, even after a line longer than the buffer" "$T/b5.log" 'unionroot: fsck.f2fs: Info: FSCK version$'
else
	fail "blank f2fs boots" "no clean boot (see $T/b4.log, $T/b5.log)"
	keep_log "$T/b4.log" "$T/b5.log"
fi
N=$T/notblank.img
truncate -s 64M "$N"
printf 'precious' | dd of="$N" bs=1 seek=300000 conv=notrunc status=none
if boot "$T/b3.log" "$F" 'echo MARK-booted' --disk "$N" --append "$BLK"; then
	expect "a partition with data but no file system is not formatted" "$T/b3.log" '/dev/vdc holds no file system unionroot knows but is not blank'
else
	fail "not-blank partition boot" "no clean boot (see $T/b3.log)"
fi

# --- without an initramfs: unionroot is the image's /sbin/init ----------------
KR=$OUTDIR/initramfs-kernelroot.cpio.gz
NR=$OUTDIR/rootfs-noinitrd.squashfs
if [ ! -f "$KR" ] || [ ! -f "$NR" ]; then
	skip "booting without an initramfs" "$KR or $NR missing (make check builds them)"
	exit 0
fi
P=$T/pivot.img
erased "$P"
NOI=(--initrd "$KR" --lower "$NR" --append root=/dev/vda)
if boot "$T/p1.log" "$P" '
	echo pivoted >/root/persist
	echo "MARK-pid1=$(tr "\0" " " </proc/1/cmdline)"' "${NOI[@]}" &&
	boot "$T/p2.log" "$P" 'echo "MARK-persist=$(cat /root/persist)"' "${NOI[@]}" &&
	boot "$T/p3.log" "$P" '[ -e /root/persist ] && echo MARK-kept || echo MARK-reset' "${NOI[@]}" --reset; then
	expect "unionroot as /sbin/init takes the running root as the read-only layer" "$T/p1.log" 'no initramfs: the running squashfs root is the read-only layer'
	expect "it pivots into an overlay root" "$T/p1.log" '^real-init: root: overlay / overlay rw'
	expect "it starts /sbin/init.real as PID 1" "$T/p1.log" '^MARK-pid1=/bin/sh /sbin/init.real'
	expect "the old root stays visible as the read-only branch" "$T/p1.log" '^real-init: status: lower1=/ / squashfs /run/unionroot/lower/0'
	expect "without an initramfs, settings persist" "$T/p2.log" '^MARK-persist=pivoted'
	expect "without an initramfs, a reset brings the factory state" "$T/p3.log" '^MARK-reset'
else
	fail "boots without an initramfs" "no clean boot (see $T/p1.log, $T/p2.log, $T/p3.log)"
	keep_log "$T/p1.log"
fi
