#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# dm-verity on the arm64 board, whose Debian kernel has device-mapper as
# modules (dm-mod, dm-bufio, dm-verity, dax, reed_solomon): a good image
# boots verified while a second verified layer with a flipped data byte
# fails the read of that file with EIO (one boot: neither ends it); a
# flipped hash tree byte and a wrong root hash are refused at setup, naming
# the layer, and the layer is never mounted unverified.
BOARD=qemu-aarch64
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
if ! command -v qemu-system-aarch64 >/dev/null; then
	skip qemu-aarch64-verity "qemu-system-aarch64 not installed (qemu-system-arm)"
	exit 0
fi
for f in "$OUTDIR/vmlinuz" "$OUTDIR/initramfs.cpio.gz" "$OUTDIR/rootfs.squashfs"; do
	[ -f "$f" ] || { skip qemu-aarch64-verity "$f missing (make initramfs images BOARD=$BOARD)"; exit 0; }
done
need_root qemu-aarch64-verity || exit 0
need_tools qemu-aarch64-verity veritysetup unsquashfs mksquashfs || exit 0
scratch verity-arm64
export BOOT_TIMEOUT=240
U=/run/unionroot/bin/unionroot
# shellcheck source=tests/verity-images.sh
source "$(dirname "$0")/../verity-images.sh"
verity_images "$OUTDIR/rootfs.squashfs" || exit 0

# 1. layer 1 the good image, layer 2 the one with a flipped data byte, both
# verified (the same tree: only a data block differs); layer 2's copy of
# the probe is read from its own mount, where layer 1 does not hide it.
# The kernel's line names the bad block "corrupted": boot() fails on that
# word, so this story judges by its own markers
boot "$T/good.log" none "$U"' status | sed "s/^/STATUS: /"
	sed "s/^/MOUNT: /" /proc/mounts
	echo "MARK-arch=$(uname -m)"
	echo "SUM: $(md5sum </verity-probe | cut -d" " -f1)"
	if cat /run/unionroot/lower/1/verity-probe >/dev/null 2>/tmp/err; then echo MARK-read-ok
	else echo "MARK-read-failed: $(cat /tmp/err)"; fi' \
	--lower "$T/good.img" --disk "$T/data.img" \
	--append "union.lower=/dev/vda,/dev/vdb union.upper=tmpfs union.verity=1:$ROOT,2:$ROOT" || true
expect "arm64: the guest is aarch64" "$T/good.log" '^MARK-arch=aarch64'
expect "arm64: the device-mapper modules load for verity" "$T/good.log" 'read-only layer 1: /dev/vda verified by dm-verity as /dev/dm-0'
expect "arm64: a verified image boots" "$T/good.log" '^real-init: cmd exit=0'
expect "arm64: status shows both layers verified" "$T/good.log" "^STATUS: lower2_verity=verified, root hash $ROOT, /dev/dm-[0-9]+ over /dev/vdb"
expect "arm64: the layers are mounted from the verity devices" "$T/good.log" '^MOUNT: /dev/dm-1 [^ ]+ squashfs ro'
expect_not "arm64: no layer is mounted from its disk" "$T/good.log" '^MOUNT: /dev/vd[ab] ' "a layer is mounted unverified"
expect "arm64: a verified file reads back whole" "$T/good.log" "^SUM: $SUM"
expect "arm64: a flipped data byte fails the read of its file with EIO" "$T/good.log" '^MARK-read-failed: .*Input/output error'
expect "arm64: the kernel names the corrupted block" "$T/good.log" 'device-mapper: verity: [0-9:]+: data block [0-9]+ is corrupted'
expect_not "arm64: a corrupted file is never read" "$T/good.log" '^MARK-read-ok' "the tampered file read back"

# 2. one byte flipped in the hash tree's top block: refused at setup; the
# boot ends in a reboot (a rescue shell only with union.onfail=shell)
boot "$T/tree.log" none 'echo MARK-booted' --lower "$T/tree.img" \
	--append "union.upper=tmpfs union.verity=$ROOT" || true
expect "arm64: a flipped hash tree byte is refused at setup, naming the layer" "$T/tree.log" \
	'unionroot: read-only layer 1 /dev/vda: verity refused it: reading through it failed'
expect "arm64: then the boot stops and reboots" "$T/tree.log" 'rebooting in 10 s \(union.onfail=shell would open a rescue shell\)'
expect_not "arm64: a tampered tree is never mounted" "$T/tree.log" 'read-only layer 1: /dev/[a-z0-9-]+ \(squashfs\) on|^MARK-booted' "the layer was mounted"

# 3. a wrong root hash on the command line: refused, union.onfail=halt
boot "$T/wrong.log" none 'echo MARK-booted' --lower "$T/good.img" \
	--append "union.upper=tmpfs union.onfail=halt union.verity=$WRONG" || true
expect "arm64: a wrong root hash is refused at setup, naming the layer" "$T/wrong.log" \
	'unionroot: read-only layer 1 /dev/vda: verity refused it: reading through it failed: the root hash does not match'
expect "arm64: then union.onfail=halt powers off" "$T/wrong.log" 'powering off \(union.onfail=halt\)'
expect_not "arm64: the layer is never mounted unverified" "$T/wrong.log" 'read-only layer 1: /dev/[a-z0-9-]+ \(squashfs\) on|^MARK-booted' "the layer was mounted"
keep_log "$T"/*.log
