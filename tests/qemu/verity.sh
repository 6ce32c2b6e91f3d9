#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# Verified read-only layers (union.verity): an image made by Debian's
# veritysetup with its hash tree appended boots verified from inside a
# medium (through its loop device); a byte flipped in a data block fails the
# read of that file with EIO and nothing else; a byte flipped in the hash
# tree and a wrong root hash are refused at setup, the boot ends as the
# README says, and the layer is never mounted unverified.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-verity || exit 0
need_root qemu-verity || exit 0
need_tools qemu-verity veritysetup unsquashfs mksquashfs mkfs.ext4 || exit 0
scratch verity
U=/run/unionroot/bin/unionroot

# one image: the board's root plus a file of random bytes, which squashfs
# stores as they are, so its bytes can be found and flipped in a copy
unsquashfs -q -d "$T/root" "$OUTDIR/rootfs.squashfs" >/dev/null
head -c 262144 /dev/urandom >"$T/root/verity-probe"
SUM=$(md5sum <"$T/root/verity-probe" | cut -d' ' -f1)
mksquashfs "$T/root" "$T/plain.img" -noappend -quiet -all-root >/dev/null
cp "$T/plain.img" "$T/good.img"
SIZE=$(stat -c %s "$T/good.img")
ROOT=$(veritysetup format --hash-offset="$SIZE" --data-blocks=$((SIZE / 4096)) \
	"$T/good.img" "$T/good.img" | sed -n 's/^Root hash:[[:space:]]*//p')
if [ "${#ROOT}" != 64 ] || [ $((SIZE % 4096)) != 0 ]; then
	fail "a verity image is made" "veritysetup gave root hash '$ROOT' over $SIZE bytes"
	exit 0
fi
# flip_at FILE OFFSET: one byte of FILE changed in place
flip_at() {
	python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); b = f.read(1)
f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 1]))' "$1" "$2"
}
# where the probe's bytes sit in the image: a 64-byte run from its middle
PROBE_AT=$(python3 -c '
import sys
img = open(sys.argv[1], "rb").read(); p = open(sys.argv[2], "rb").read()
print(img.find(p[131072:131136]))' "$T/good.img" "$T/root/verity-probe")

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
if [ "$PROBE_AT" -gt 0 ] 2>/dev/null; then
	# 2. one byte flipped in a data block: the boot goes on, that read fails
	cp "$T/good.img" "$T/data.img"
	flip_at "$T/data.img" "$PROBE_AT"
	# the kernel's line names the bad block "corrupted": boot() fails on
	# that word, so this story judges by its own markers
	boot "$T/data.log" none 'if cat /verity-probe >/dev/null 2>/tmp/err; then echo MARK-read-ok
		else echo "MARK-read-failed: $(cat /tmp/err)"; fi
		[ -e /etc/factory-file ] && cat /etc/factory-file >/dev/null && echo MARK-other-read' \
		--lower "$T/data.img" --append "union.upper=tmpfs union.verity=$ROOT" || true
	expect "a flipped data byte: the boot goes on" "$T/data.log" '^MARK-other-read'
	expect "a flipped data byte fails the read of its file with EIO" "$T/data.log" '^MARK-read-failed: .*Input/output error'
	expect "the kernel names the corrupted block" "$T/data.log" 'device-mapper: verity: [0-9:]+: data block [0-9]+ is corrupted'
	expect_not "a corrupted file is never read" "$T/data.log" '^MARK-read-ok' "the tampered file read back"
else
	fail "the probe file is found in the image" "offset '$PROBE_AT'"
fi

# 2b. the tree on a device of its own, without a superblock: the geometry
# and salt come from the command line
SALT=00112233445566778899aabbccddeeff
ROOT2=$(veritysetup format --no-superblock --salt=$SALT "$T/plain.img" "$T/tree-only.img" |
	sed -n 's/^Root hash:[[:space:]]*//p')
boot "$T/sep.log" none "$U"' status | sed "s/^/STATUS: /"
	echo "SUM: $(md5sum </verity-probe | cut -d" " -f1)"' --lower "$T/plain.img" --disk "$T/tree-only.img" \
	--append "union.upper=tmpfs union.verity=$ROOT2:hash=/dev/vdb:nosb:salt=$SALT"
expect "a tree on its own device verifies the layer" "$T/sep.log" "^STATUS: lower1_verity=verified, root hash $ROOT2, /dev/dm-[0-9]+ over /dev/vda \\(hash tree on /dev/vdb at byte 0"
expect "and the verified file reads back whole" "$T/sep.log" "^SUM: $SUM"

# 3. one byte flipped in the hash tree's top block: refused at setup; the
# default ends the boot (no rescue shell in this initramfs: a reboot)
cp "$T/good.img" "$T/tree.img"
flip_at "$T/tree.img" $((SIZE + 4096 + 5))
boot "$T/tree.log" none 'echo MARK-booted' --lower "$T/tree.img" \
	--append "union.upper=tmpfs union.verity=$ROOT" || true
expect "a flipped hash tree byte is refused at setup, naming the layer" "$T/tree.log" \
	'unionroot: read-only layer 1 /dev/vda: verity refused it: reading through it failed'
expect "then the boot stops and reboots" "$T/tree.log" 'no rescue shell in the initramfs, rebooting'
expect_not "a tampered tree is never mounted" "$T/tree.log" 'read-only layer 1: /dev/[a-z0-9-]+ \(squashfs\) on|^MARK-booted' "the layer was mounted"

# 4. a wrong root hash on the command line: refused, union.onfail=halt
WRONG=$(printf '%s' "$ROOT" | tr '0-9a-f' '1-9a-f0')
boot "$T/wrong.log" none 'echo MARK-booted' --append "union.upper=tmpfs union.onfail=halt union.verity=$WRONG" \
	--lower "$T/good.img" || true
expect "a wrong root hash is refused at setup, naming the layer" "$T/wrong.log" \
	'unionroot: read-only layer 1 /dev/vda: verity refused it: reading through it failed: the root hash does not match'
expect "then union.onfail=halt powers off" "$T/wrong.log" 'powering off \(union.onfail=halt\)'
expect_not "the layer is never mounted unverified" "$T/wrong.log" 'read-only layer 1: /dev/[a-z0-9-]+ \(squashfs\) on|^MARK-booted' "the layer was mounted"
keep_log "$T"/*.log
