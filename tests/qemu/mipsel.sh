#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# The 32-bit MIPS router board (qemu-system-mipsel -M malta, TCG, Debian's
# 4kc-malta kernel): the cross-built unionroot (musl, mipsel) on a squashfs
# and an ext4 writable branch, partitions "rootfs" and "rootfs_data" of one
# disk on the malta's own IDE (PIIX4). That disk goes through five boots: a blank branch formatted on the first boot with the
# image's own mkfs.ext4, union.maxfails=1 making the second boot failsafe,
# the third showing the first's changes and asking for a reset, the fourth
# cut dead in the middle of that reset (the test build's crash point, sysrq
# b with no sync, as the reset tests do), the fifth finishing it: factory.
# Then two boots with the settings on raw flash (block2mtd, jffs2).
BOARD=qemu-mipsel
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
if ! command -v qemu-system-mipsel >/dev/null; then
	skip qemu-mipsel "qemu-system-mipsel not installed (qemu-system-mips)"
	exit 0
fi
need_tools qemu-mipsel sfdisk || exit 0
for f in "$OUTDIR/vmlinuz" "$OUTDIR/initramfs.cpio.gz" "$OUTDIR/initramfs-test.cpio.gz" "$OUTDIR/rootfs.squashfs"; do
	[ -f "$f" ] || { skip qemu-mipsel "$f missing (make initramfs images BOARD=$BOARD)"; exit 0; }
done
scratch mipsel
U=/run/unionroot/bin/unionroot
ST='echo "MARK-failsafe=$(sed -n "s/^failsafe=//p" /run/unionroot/status)"
	echo "MARK-upper=$(sed -n "s/^upper_state=//p" /run/unionroot/status)"'
# The board's disk with a blank rootfs_data: all zeros, as a new eMMC reads.
DATA=$T/disk.img
"$ROOT_DIR/board/$BOARD/mkdisk" "$OUTDIR/rootfs.squashfs" "$DATA"
export BOOT_TIMEOUT=180

if boot "$T/1.log" "$DATA" '
	echo "MARK-arch=$(uname -m)"
	'"$ST"'
	'"$(change_root mips)" --append union.maxfails=1 &&
	boot "$T/2.log" "$DATA" "$ST"'
	echo "MARK-saved-ro=$(awk "\$2 == \"/run/unionroot/saved\" { print substr(\$4, 1, 2) }" /proc/mounts)"
	echo "MARK-saved=$(cat /run/unionroot/saved/upper/root/persist 2>/dev/null)"
	echo "MARK-seen=$(cat /root/persist 2>/dev/null)"
	'"$U"' boot-ok' --append union.maxfails=1 &&
	boot "$T/3.log" "$DATA" "$ST
	$SHOW_CHANGES"'
	'"$U"' reset --yes && echo MARK-reset-asked' --append union.maxfails=1 &&
	{
		# the cut boot ends without the real init's last line: its own
		# checks below, not boot's
		boot "$T/4.log" "$DATA" 'echo MARK-survived-the-crash' \
			--initrd "$OUTDIR/initramfs-test.cpio.gz" --append union.test.crashafter=aside
		[ -s "$T/4.log" ]
	} &&
	boot "$T/5.log" "$DATA" "$ST"'
	[ -e /root/persist ] && echo MARK-persist-kept || echo MARK-persist-gone
	echo "MARK-factory=$(cat /etc/factory-file)"
	echo "MARK-pending=$('"$U"' status | sed -n "s/^reset_pending=//p")"'; then
	expect "mipsel: the guest is 32-bit MIPS" "$T/1.log" '^MARK-arch=mips$'
	expect "mipsel: the lower is on the malta's IDE" "$T/1.log" '^real-init: status: lower1_driver=ata_piix'
	expect "mipsel: a blank branch is formatted with the image's mkfs.ext4" "$T/1.log" \
		"/sbin/mkfs.ext4: none in this initramfs; running read-only layer 1's own"
	expect "mipsel: the first boot's branch is ext4 on IDE" "$T/1.log" '^MARK-upper=persistent on /dev/sda2 \(ext4\)'
	expect "mipsel: the image's e2fsck checks the branch" "$T/2.log" "/sbin/e2fsck: none in this initramfs; running read-only layer 1's own"
	expect "mipsel: a boot without boot-ok past union.maxfails=1 is failsafe" "$T/2.log" '^MARK-failsafe=1 boot'
	expect "mipsel: failsafe: a volatile branch" "$T/2.log" '^MARK-upper=volatile: failsafe'
	expect "mipsel: failsafe: the saved branch read-only, with the first boot's file" "$T/2.log" '^MARK-saved=mips'
	expect "mipsel: failsafe: the saved branch is mounted read-only" "$T/2.log" '^MARK-saved-ro=ro'
	expect "mipsel: failsafe: the saved changes are not in the root" "$T/2.log" '^MARK-seen=$'
	expect "mipsel: boot-ok ends the failsafe" "$T/3.log" '^MARK-failsafe=no'
	expect "mipsel: a file written persists across boots" "$T/3.log" '^MARK-persist=mips'
	expect "mipsel: a file deleted from the image stays deleted" "$T/3.log" '^MARK-factory-gone'
	expect "mipsel: unionroot reset schedules the reset" "$T/3.log" '^MARK-reset-asked'
	expect "mipsel: the reset boot stops dead after moving the old tree aside" "$T/4.log" \
		'test crash point: stopping dead after step "aside"'
	expect_not "mipsel: nothing runs after the cut" "$T/4.log" '^MARK-survived-the-crash' \
		"the real init ran after the crash point (see $T/4.log)"
	expect "mipsel: the boot after the cut is factory: the image's file is back" "$T/5.log" '^MARK-factory=factory'
	expect "mipsel: the boot after the cut is factory: the user's file is gone" "$T/5.log" '^MARK-persist-gone'
	expect "mipsel: the reset is finished, none pending" "$T/5.log" '^MARK-pending=no'
	expect "mipsel: the branch after the reset is persistent" "$T/5.log" '^MARK-upper=persistent on /dev/sda2 \(ext4\)'
else
	fail "mipsel boots" "no clean boot (see $T/[1-5].log)"
	keep_log "$T"/[1-5].log
fi

# --- settings on raw flash: jffs2 on an erased partition ----------------------
# block2mtd (a module of Debian's mipsel kernel) turns the disk's second
# partition, erased (0xff), into the MTD partition rootfs_data; erased flash
# mounts as an empty jffs2, no mkfs.
FLASH=$T/flash.img
"$ROOT_DIR/board/$BOARD/mkdisk" "$OUTDIR/rootfs.squashfs" "$FLASH" --erased
MTD=(--append "block2mtd.block2mtd=/dev/sda2,128KiB,rootfs_data union.upper=mtd:rootfs_data")
if boot "$T/f1.log" "$FLASH" "$ST
	$(change_root flash)" "${MTD[@]}" &&
	boot "$T/f2.log" "$FLASH" "$SHOW_CHANGES" "${MTD[@]}"; then
	expect "mipsel flash: erased flash is an empty jffs2" "$T/f1.log" \
		'mtd:rootfs_data is /dev/mtdblock0 \(mtd0, erased flash: mounts as an empty jffs2\)'
	expect "mipsel flash: the root is an overlay on jffs2" "$T/f1.log" '^MARK-upper=persistent on /dev/mtdblock0 \(jffs2\)'
	expect "mipsel flash: settings on flash survive a reboot" "$T/f2.log" '^MARK-persist=flash'
	expect "mipsel flash: a file deleted from the image stays deleted" "$T/f2.log" '^MARK-factory-gone'
else
	fail "mipsel flash boots" "no clean boot (see $T/f1.log, $T/f2.log)"
	keep_log "$T"/f[12].log
fi
