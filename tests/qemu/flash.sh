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
	# the idle cleaner empties it while the real init waits: up to 10 s
	for i in $(seq 100); do
		[ -z "$(ls /run/unionroot/rw/.unionroot/trash)" ] && break
		sleep 0.1
	done
	echo "MARK-trash=$(ls /run/unionroot/rw/.unionroot/trash | wc -l)"' --reset; then
	expect "a reset on jffs2 brings the factory state back" "$T/j3.log" '^MARK-factory=factory'
	expect "a reset on jffs2 drops the settings" "$T/j3.log" '^MARK-persist-gone'
	expect "the old jffs2 tree is deleted after the switch" "$T/j3.log" '^MARK-trash=0'
else
	fail "jffs2 reset boot" "no clean boot (see $T/j3.log)"
fi

# --- jffs2 filled to the brim -------------------------------------------------
# jffs2 refuses writes (even a rename) while df still shows free space. The
# branch's reserve (.unionroot/reserve, set aside at boot while there is room)
# is given up by the next boot, which then stays persistent and can reset.
FF=$T/full.img
erased "$FF"
if boot "$T/n1.log" "$FF" '
	echo kept >/root/persist
	[ -f /run/unionroot/rw/.unionroot/reserve ] && echo MARK-reserve
	dd if=/dev/urandom of=/root/big bs=64k 2>/dev/null
	sync; df /run/unionroot/rw | sed -n "2s/^/DF: /p"' &&
	boot "$T/n2.log" "$FF" 'echo "MARK-persist=$(cat /root/persist)"; echo x >/root/more && echo MARK-write' &&
	boot "$T/n3.log" "$FF" '[ -e /root/persist ] && echo MARK-kept || echo MARK-gone' --reset; then
	expect "a jffs2 branch sets a reserve aside while it has room" "$T/n1.log" '^MARK-reserve'
	expect "the user fills the jffs2 branch" "$T/n1.log" '^DF: .* (9[5-9]|100)% '
	expect "the next boot gives the reserve up and says so" "$T/n2.log" 'writable branch /dev/mtdblock0 is full: gave up its reserve of [0-9]+ KiB'
	expect "and warns that the branch is nearly full" "$T/n2.log" 'writable branch /dev/mtdblock0 is [0-9]+% full \(union.warnfull=90\)'
	expect "a full jffs2 branch still boots persistent" "$T/n2.log" '^real-init: status: upper_state=persistent on /dev/mtdblock0 \(jffs2\)'
	expect "with the user's settings" "$T/n2.log" '^MARK-persist=kept'
	expect "and takes a write" "$T/n2.log" '^MARK-write'
	expect "a reset on the full jffs2 branch is done" "$T/n3.log" 'factory reset \(union.reset=1\)'
	expect "and drops the settings" "$T/n3.log" '^MARK-gone'
else
	fail "full jffs2 boots" "no clean boot (see $T/n1.log, $T/n2.log, $T/n3.log)"
	keep_log "$T/n2.log" "$T/n3.log"
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
	expect_not "the second UBI boot reuses the volume" "$T/u2.log" 'created volume' "it created a second one"
else
	fail "UBI boots" "no clean boot (see $T/u1.log, $T/u2.log)"
	keep_log "$T/u1.log"
fi

# --- a blank block partition with union.format=ext4 -------------------------
B=$T/blank.img
truncate -s 64M "$B"
BLK='union.upper=/dev/vdc union.format=ext4'
if boot "$T/b1.log" "$F" 'echo "n=1" >/root/boots' --disk "$B" --append "$BLK" &&
	boot "$T/b2.log" "$F" 'echo "MARK-$(cat /root/boots)"
		[ -d /sys/module/mtd ] && echo MARK-module-mtd=loaded || echo MARK-module-mtd=left' --disk "$B" --append "$BLK"; then
	expect "a blank partition is formatted as union.format says" "$T/b1.log" 'writable branch /dev/vdc is blank; formatting it as ext4'
	expect "the formatted partition is the writable branch" "$T/b1.log" '^real-init: status: upper_state=persistent on /dev/vdc \(ext4\)'
	expect "the next boot reuses it with its data" "$T/b2.log" '^MARK-n=1'
	expect_not "a formatted partition is never formatted a second time" "$T/b2.log" 'formatting it' "the second boot formatted it"
	# the board lists the MTD stack: it waits for a boot with a flash SPEC
	expect "MTD waits for a flash SPEC" "$T/b2.log" '^MARK-module-mtd=left'
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
	expect_not "an f2fs branch is never formatted a second time" "$T/b5.log" 'formatting it' "the second boot formatted it"
	expect "a checker's lines are logged whole, even after a line longer than the buffer" "$T/b5.log" 'unionroot: fsck.f2fs: Info: FSCK version$'
else
	fail "blank f2fs boots" "no clean boot (see $T/b4.log, $T/b5.log)"
	keep_log "$T/b4.log" "$T/b5.log"
fi
# vfat: formatted once (mkfs.vfat is in TOOLS), but a FAT file system holds
# no symbolic links, owners or modes, so neither overlayfs nor copy-up can
# keep a root on it: the boot says so and takes union.onfail (a volatile
# overlay), never a copy that cannot start (no /bin/sh, no init)
B3=$T/blank-vfat.img
truncate -s 64M "$B3"
BLK3='union.upper=/dev/vdc union.format=vfat'
if boot "$T/b6.log" "$F" 'echo MARK-booted' --disk "$B3" --append "$BLK3" &&
	boot "$T/b7.log" "$F" 'echo MARK-booted' --disk "$B3" --append "$BLK3"; then
	expect "a blank partition is formatted as vfat with union.format=vfat" "$T/b6.log" 'writable branch /dev/vdc is blank; formatting it as vfat'
	expect "a vfat branch is refused with its reason" "$T/b6.log" 'writable branch /dev/vdc \(vfat\) cannot hold symbolic links, so no root can live on it'
	expect "then the boot runs on a volatile overlay" "$T/b6.log" '^real-init: status: backend=overlay$'
	expect "and status says why it is volatile" "$T/b6.log" '^real-init: status: upper_state=volatile: writable branch /dev/vdc \(vfat\) cannot hold'
	expect "the next boot finds the vfat and does not format it a second time" "$T/b7.log" 'writable branch: /dev/vdc is /dev/vdc \(vfat\)'
	expect_not "a vfat branch is never formatted twice" "$T/b7.log" 'formatting it' "the second boot formatted it"
	if [ -n "$(mdir -b -i "$B3" ::/ 2>&1)" ]; then
		fail "the refused vfat branch is left as it was" "something was written to it: $(mdir -b -i "$B3" ::/ 2>&1 | head -3 | tr '\n' ' ')"
	else
		pass "the refused vfat branch is left as it was"
	fi
else
	fail "blank vfat boots" "no clean boot (see $T/b6.log, $T/b7.log)"
	keep_log "$T/b6.log"
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
# The board's own kernel (board/qemu-x86_64-flash/kernel.config, built from
# Debian's linux-source by tools/build-kernel) has every driver built in and
# no module support: the kernel itself mounts the squashfs as / and runs
# unionroot. No initramfs is given to QEMU at all.
NR=$OUTDIR/rootfs-noinitrd.squashfs
if [ ! -f "$NR" ]; then
	skip "booting without an initramfs" "$NR missing (make images BOARD=$BOARD)"
	exit 0
fi
need_kernel_builtin "booting without an initramfs" || exit 0
P=$T/pivot.img
erased "$P"
NOI=(--kernel "$BZ" --initrd none --lower "$NR" --append "root=/dev/vda rootfstype=squashfs rootwait")
if boot "$T/p1.log" "$P" '
	echo pivoted >/root/persist
	echo "MARK-pid1=$(tr "\0" " " </proc/1/cmdline)"
	[ -e /lib/modules ] || echo MARK-no-modules' "${NOI[@]}" &&
	boot "$T/p2.log" "$P" 'echo "MARK-persist=$(cat /root/persist)"' "${NOI[@]}" &&
	boot "$T/p3.log" "$P" '[ -e /root/persist ] && echo MARK-kept || echo MARK-reset' "${NOI[@]}" --reset; then
	expect "the kernel mounts the squashfs as / itself, no initramfs" "$T/p1.log" 'VFS: Mounted root \(squashfs filesystem\) readonly'
	expect_not "no initramfs is unpacked" "$T/p1.log" 'Unpacking initramfs|Trying to unpack rootfs' "the kernel unpacked one"
	expect "unionroot as /sbin/init takes the running root as the read-only layer" "$T/p1.log" 'no initramfs: the running squashfs root is the read-only layer'
	expect "it relies on the built-in drivers" "$T/p1.log" 'no module list \(/etc/unionroot/modules\); relying on built-in drivers'
	expect "it pivots into an overlay root" "$T/p1.log" '^real-init: root: overlay / overlay rw'
	expect "it starts /sbin/init.real as PID 1" "$T/p1.log" '^MARK-pid1=/bin/sh /sbin/init.real'
	expect "the old root stays visible as the read-only branch, named by its device" "$T/p1.log" '^real-init: status: lower1=/ /dev/vda squashfs /run/unionroot/lower/0'
	expect "the kernel's root device gives the image identity (upgrade detection)" "$T/p1.log" '^real-init: status: lower1_id=size=[0-9]+,'
	expect "without an initramfs, settings persist" "$T/p2.log" '^MARK-persist=pivoted'
	expect "without an initramfs, a reset brings the factory state" "$T/p3.log" '^MARK-reset'
else
	fail "boots without an initramfs" "no clean boot (see $T/p1.log, $T/p2.log, $T/p3.log)"
	keep_log "$T/p1.log"
fi
Q=$T/pivot-ubi.img
erased "$Q"
if boot "$T/q1.log" "$Q" 'echo ubi-pivoted >/root/persist' "${NOI[@]}" --append "$UBI" &&
	boot "$T/q2.log" "$Q" 'echo "MARK-persist=$(cat /root/persist)"' "${NOI[@]}" --append "$UBI"; then
	expect "without an initramfs, the built-in UBI attaches and makes the volume" "$T/q1.log" 'UBI: created volume "rootfs_data" on ubi0'
	expect "without an initramfs, ubifs is the writable branch" "$T/q1.log" '^real-init: status: upper_state=persistent on ubi0_0 \(ubifs\)'
	expect "without an initramfs, settings on ubifs persist" "$T/q2.log" '^MARK-persist=ubi-pivoted'
else
	fail "UBI boots without an initramfs" "no clean boot (see $T/q1.log, $T/q2.log)"
	keep_log "$T/q1.log"
fi
