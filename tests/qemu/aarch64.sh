#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# The arm64 board (qemu-system-aarch64 -M virt, TCG): the cross-built
# unionroot boots Debian's arm64 kernel into an overlay root; a file written
# persists, a file deleted from the image stays deleted, a reset brings the
# factory state back.
BOARD=qemu-aarch64
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
if ! command -v qemu-system-aarch64 >/dev/null; then
	skip qemu-aarch64 "qemu-system-aarch64 not installed (qemu-system-arm)"
	exit 0
fi
for f in "$OUTDIR/vmlinuz" "$OUTDIR/initramfs.cpio.gz" "$OUTDIR/rootfs.squashfs"; do
	[ -f "$f" ] || { skip qemu-aarch64 "$f missing (make initramfs images BOARD=$BOARD)"; exit 0; }
done
scratch arm64
DATA=$T/data.img
new_data "$DATA"
export BOOT_TIMEOUT=240

if boot "$T/1.log" "$DATA" '
	echo "MARK-arch=$(uname -m)"
	'"$(change_root hello)" &&
	boot "$T/2.log" "$DATA" "$SHOW_CHANGES" &&
	boot "$T/3.log" "$DATA" '
	[ -e /root/persist ] && echo MARK-persist-kept || echo MARK-persist-gone
	echo "MARK-factory=$(cat /etc/factory-file)"' --reset; then
	expect "arm64: the cross-built unionroot boots an overlay root" "$T/1.log" '^real-init: root: overlay / overlay rw'
	expect "arm64: the guest is aarch64" "$T/1.log" '^MARK-arch=aarch64'
	expect "arm64: a file written survives the next boot" "$T/2.log" '^MARK-persist=hello'
	expect "arm64: a file deleted from the image stays deleted" "$T/2.log" '^MARK-factory-gone'
	expect "arm64: union.reset=1 brings the factory state back" "$T/3.log" '^MARK-factory=factory'
	expect "arm64: union.reset=1 drops the user's files" "$T/3.log" '^MARK-persist-gone'
else
	fail "arm64 boots" "no clean boot (see $T/1.log, $T/2.log, $T/3.log)"
	keep_log "$T"/*.log
fi

# --- an arm64 router: no initramfs, settings on raw flash ---------------------
# The board's own kernel (board/qemu-aarch64/kernel.config, cross-built from
# Debian's linux-source by tools/build-kernel: Debian's arm64 kernel has no
# block2mtd) mounts the squashfs as / and runs unionroot as /sbin/init; the
# settings partition is erased flash (block2mtd over vdb), a jffs2 on first
# boot.
NR=$OUTDIR/rootfs-noinitrd.squashfs
if [ ! -f "$NR" ]; then
	skip "arm64 flash without an initramfs" "$NR missing (make images BOARD=$BOARD)"
	exit 0
fi
need_kernel_builtin "arm64 flash without an initramfs" || exit 0
FLASH=$T/flash.img
head -c 8M /dev/zero | tr '\0' '\377' >"$FLASH"
ROUTER=(--kernel "$BZ" --initrd none --lower "$NR"
	--append "root=/dev/vda rootfstype=squashfs rootwait block2mtd.block2mtd=/dev/vdb,128KiB,rootfs_data")
if boot "$T/r1.log" "$FLASH" '
	echo "MARK-arch=$(uname -m)"
	'"$(change_root router)" "${ROUTER[@]}" &&
	boot "$T/r2.log" "$FLASH" "$SHOW_CHANGES" "${ROUTER[@]}" &&
	boot "$T/r3.log" "$FLASH" '
	[ -e /root/persist ] && echo MARK-persist-kept || echo MARK-persist-gone
	echo "MARK-factory=$(cat /etc/factory-file)"' "${ROUTER[@]}" --reset; then
	expect "arm64 router: the kernel mounts the squashfs as / itself" "$T/r1.log" 'VFS: Mounted root \(squashfs filesystem\) readonly'
	expect "arm64 router: unionroot as /sbin/init takes the running root as the read-only layer" "$T/r1.log" 'no initramfs: the running squashfs root is the read-only layer'
	expect "arm64 router: erased flash is an empty jffs2" "$T/r1.log" 'mtd:rootfs_data is /dev/mtdblock0 \(mtd0, erased flash: mounts as an empty jffs2\)'
	expect "arm64 router: the root is an overlay on jffs2" "$T/r1.log" '^real-init: status: upper_state=persistent on /dev/mtdblock0 \(jffs2\)'
	expect "arm64 router: the guest is aarch64" "$T/r1.log" '^MARK-arch=aarch64'
	expect "arm64 router: settings on flash survive a reboot" "$T/r2.log" '^MARK-persist=router'
	expect "arm64 router: a file deleted from the image stays deleted" "$T/r2.log" '^MARK-factory-gone'
	expect "arm64 router: a reset brings the factory state back" "$T/r3.log" '^MARK-factory=factory'
	expect "arm64 router: a reset drops the settings" "$T/r3.log" '^MARK-persist-gone'
else
	fail "arm64 router boots" "no clean boot (see $T/r1.log, $T/r2.log, $T/r3.log)"
	keep_log "$T"/r*.log
fi
