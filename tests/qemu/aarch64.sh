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
