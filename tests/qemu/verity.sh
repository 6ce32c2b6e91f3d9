#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# Verified read-only layers (union.verity): an image made by Debian's
# veritysetup with its hash tree appended boots verified from inside a
# medium (through its loop device); a byte flipped in a data block fails the
# read of that file with EIO and nothing else, or restarts the machine
# (union.verity.onerror=restart), or panics the kernel (=panic); a tree on a
# USB stick that appears after the disks is waited for, one that never
# comes refuses the layer; a byte flipped in the
# hash tree and a wrong root hash are refused at setup, the boot ends as
# doc/firmware.md says, and the layer is never mounted unverified.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-verity || exit 0
need_root qemu-verity || exit 0
need_tools qemu-verity veritysetup unsquashfs mksquashfs mkfs.ext4 || exit 0
scratch verity
U=/run/unionroot/bin/unionroot

# shellcheck source=tests/verity-images.sh
source "$(dirname "$0")/../verity-images.sh"
verity_images "$OUTDIR/rootfs.squashfs" || exit 0

# 1. a good image inside a medium, reached through a loop device
mkdir -p "$T/medium/live"
cp "$T/good.img" "$T/medium/live/filesystem.squashfs"
truncate -s 16M "$T/medium.img"
mkfs.ext4 -q -F -L vmedium -d "$T/medium" "$T/medium.img"
boot "$T/good.log" none "$U"' status | sed "s/^/STATUS: /"
	'"$U"' plan | sed "s/^/PLAN: /"
	sed "s/^/MOUNT: /" /proc/mounts
	echo "SUM: $(md5sum </verity-probe | cut -d" " -f1)"' --lower none --disk "$T/medium.img" \
	--append "union.lower=LABEL=vmedium:/live/filesystem.squashfs union.upper=tmpfs union.verity=$ROOT"
expect "a verified image in a medium boots" "$T/good.log" '^real-init: cmd exit=0'
expect "status shows the layer verified with its root hash" "$T/good.log" "^STATUS: lower1_verity=verified, root hash $ROOT, /dev/dm-[0-9]+ over /dev/loop[0-9]+"
expect "the plan shows what is verified" "$T/good.log" "^PLAN: verity +layer 1: root hash $ROOT, hash tree appended to the image"
expect "the layer is mounted from the verity device" "$T/good.log" '^MOUNT: /dev/dm-[0-9]+ [^ ]+ squashfs ro'
expect_not "the image is not mounted from its loop device" "$T/good.log" '^MOUNT: /dev/loop[0-9]+ [^ ]+ squashfs' "a squashfs is mounted from the raw loop device"
expect "a verified file reads back whole" "$T/good.log" "^SUM: $SUM"
# 2. one byte flipped in a data block: the boot goes on, that read fails;
# the kernel's line names the bad block "corrupted": boot() fails on that
# word, so these stories judge by their own markers
READ_PROBE='echo MARK-started
	if cat /verity-probe >/dev/null 2>/tmp/err; then echo MARK-read-ok
	else echo "MARK-read-failed: $(cat /tmp/err)"; fi'
boot "$T/data.log" none "$READ_PROBE"'
	[ -e /etc/factory-file ] && cat /etc/factory-file >/dev/null && echo MARK-other-read' \
	--lower "$T/data.img" --append "union.upper=tmpfs union.verity=$ROOT" || true
expect "a flipped data byte: the boot goes on" "$T/data.log" '^MARK-other-read'
expect "a flipped data byte fails the read of its file with EIO" "$T/data.log" '^MARK-read-failed: .*Input/output error'
expect "the kernel names the corrupted block" "$T/data.log" 'device-mapper: verity: [0-9:]+: data block [0-9]+ is corrupted'
expect_not "a corrupted file is never read" "$T/data.log" '^MARK-read-ok' "the tampered file read back"

# 2a. the same with union.verity.onerror=restart: the first read of the bad
# block restarts the machine (QEMU runs with -no-reboot, so it ends), and
# with =panic the kernel panics naming dm-verity; the reader never gets the
# file, nor an error
for mode in restart panic; do
	boot "$T/$mode.log" none "$READ_PROBE" --lower "$T/data.img" \
		--append "union.upper=tmpfs union.verity=$ROOT union.verity.onerror=$mode" || true
	expect "onerror=$mode: the boot reaches the real init" "$T/$mode.log" '^MARK-started'
	expect "onerror=$mode: the kernel names the corrupted block" "$T/$mode.log" \
		'device-mapper: verity: [0-9:]+: data block [0-9]+ is corrupted'
	expect_not "onerror=$mode: the corrupted file is never read" "$T/$mode.log" \
		'^MARK-read-(ok|failed)|^real-init: cmd exit=' "the reader got an answer"
done
expect "onerror=restart: the kernel restarts the machine" "$T/restart.log" \
	"reboot: Restarting system with command 'dm-verity device corrupted'"
expect_not "onerror=restart: no panic" "$T/restart.log" 'Kernel panic' "the kernel panicked"
expect "onerror=panic: a kernel panic naming dm-verity" "$T/panic.log" \
	'Kernel panic - not syncing: dm-verity device corrupted'

# 2b. the tree on a device of its own, without a superblock (the geometry
# and salt come from the command line), on a USB stick: xHCI enumerates it
# well after the virtio disks, so the boot must wait for it as for a layer
SALT=00112233445566778899aabbccddeeff
ROOT2=$(veritysetup format --no-superblock --salt=$SALT "$T/plain.img" "$T/tree-only.img" |
	sed -n 's/^Root hash:[[:space:]]*//p')
truncate -s 8M "$T/tree-only.img" # whole MiBs: a disk of odd size makes the scanners complain
boot "$T/sep.log" none "$U"' status | sed "s/^/STATUS: /"
	'"$U"' plan | sed "s/^/PLAN: /"
	echo "SUM: $(md5sum </verity-probe | cut -d" " -f1)"' --lower "$T/plain.img" --usb "$T/tree-only.img" \
	--append "union.upper=tmpfs union.verity=$ROOT2:hash=/dev/sda:nosb:salt=$SALT"
expect "a tree on a late USB stick is waited for" "$T/sep.log" 'hash tree of read-only layer 1: /dev/sda is /dev/sda \(.*removable\)'
expect "a tree on its own device verifies the layer" "$T/sep.log" "^STATUS: lower1_verity=verified, root hash $ROOT2, /dev/dm-[0-9]+ over /dev/vda \\(hash tree on /dev/sda at byte 0"
expect "the plan waits for the tree's device" "$T/sep.log" "^PLAN: verity +layer 1: root hash $ROOT2, hash tree on /dev/sda \\(waited for as a layer's device\\)"
expect "and the verified file reads back whole" "$T/sep.log" "^SUM: $SUM"
expect_not "the tree's device is not missed" "$T/sep.log" 'verity refused it' "the layer was refused"

# 2c. a tree's device that never comes: after union.wait the layer is
# refused by name (union.onfail=halt ends the boot at once)
boot "$T/nohash.log" none 'echo MARK-booted' --lower "$T/plain.img" --usb "$T/tree-only.img" \
	--append "union.upper=tmpfs union.wait=2 union.onfail=halt union.verity=$ROOT2:hash=/dev/sdb:nosb:salt=$SALT" || true
expect "a tree's device that never comes refuses the layer" "$T/nohash.log" \
	'unionroot: hash tree of read-only layer 1 /dev/sdb not found, so the layer cannot be verified; powering off'
expect_not "and the layer is never mounted unverified" "$T/nohash.log" 'read-only layer 1: /dev/[a-z0-9-]+ \(squashfs\) on|^MARK-booted' "the layer was mounted"

# 3. one byte flipped in the hash tree's top block: refused at setup; the
# default ends the boot in a reboot (a rescue shell only with union.onfail=shell)
boot "$T/tree.log" none 'echo MARK-booted' --lower "$T/tree.img" \
	--append "union.upper=tmpfs union.verity=$ROOT" || true
expect "a flipped hash tree byte is refused at setup, naming the layer" "$T/tree.log" \
	'unionroot: read-only layer 1 /dev/vda: verity refused it: reading through it failed'
expect "then the boot stops and reboots" "$T/tree.log" 'rebooting in 10 s \(union.onfail=shell would open a rescue shell\)'
expect_not "a tampered tree is never mounted" "$T/tree.log" 'read-only layer 1: /dev/[a-z0-9-]+ \(squashfs\) on|^MARK-booted' "the layer was mounted"

# 4. a wrong root hash on the command line: refused, union.onfail=halt
boot "$T/wrong.log" none 'echo MARK-booted' --append "union.upper=tmpfs union.onfail=halt union.verity=$WRONG" \
	--lower "$T/good.img" || true
expect "a wrong root hash is refused at setup, naming the layer" "$T/wrong.log" \
	'unionroot: read-only layer 1 /dev/vda: verity refused it: reading through it failed: the root hash does not match'
expect "then union.onfail=halt powers off" "$T/wrong.log" 'powering off \(union.onfail=halt\)'
expect_not "the layer is never mounted unverified" "$T/wrong.log" 'read-only layer 1: /dev/[a-z0-9-]+ \(squashfs\) on|^MARK-booted' "the layer was mounted"

# 5. union.verity fails closed: a value that cannot be honoured refuses the
# layer by the path and words of a wrong root hash, never boots it
# unverified. A root hash one digit short (a copy-paste, a command line cut
# at its limit) over the image with a flipped data byte, the default
# union.onfail: a reboot; a field only a newer build knows, union.onfail=halt
boot "$T/short.log" none "$READ_PROBE" --lower "$T/data.img" \
	--append "union.upper=tmpfs union.verity=${ROOT:0:63}" || true
expect "a root hash one digit short is named" "$T/short.log" \
	'unionroot: kernel command line: ignoring union.verity="[0-9a-f]+\.\.\." \(63 bytes\): .*; refusing the read-only layers instead of booting them unverified'
expect "and refuses the layer by a wrong root hash's path" "$T/short.log" \
	'unionroot: read-only layer 1 /dev/vda: verity refused it: union.verity cannot be honoured \(entry 1: .*\); rebooting in 10 s'
expect_not "the tampered image is never mounted unverified" "$T/short.log" \
	'read-only layer 1: /dev/[a-z0-9-]+ \(squashfs\) on|^MARK-started|^MARK-read' "the layer was mounted"
boot "$T/newer.log" none 'echo MARK-booted' --lower "$T/good.img" \
	--append "union.upper=tmpfs union.onfail=halt union.verity=$ROOT:newfield=1" || true
expect "a field of a newer build refuses the layer" "$T/newer.log" \
	'unionroot: read-only layer 1 /dev/vda: verity refused it: union.verity cannot be honoured \(entry 1: unknown field.*; powering off \(union.onfail=halt\)'
expect_not "and the layer is never mounted unverified" "$T/newer.log" \
	'read-only layer 1: /dev/[a-z0-9-]+ \(squashfs\) on|^MARK-booted' "the layer was mounted"
keep_log "$T"/*.log
