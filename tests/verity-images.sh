#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2034 # SUM, WRONG and the rest are for the scripts that source this
# The dm-verity test images, made once per script by Debian's veritysetup
# from a board's root: tests/qemu/verity.sh and verity-aarch64.sh source it
# after tests/lib.sh and scratch.

# flip_at FILE OFFSET: one byte of FILE changed in place
flip_at() {
	python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); b = f.read(1)
f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 1]))' "$1" "$2"
}

# verity_images ROOTFS: from the squashfs ROOTFS plus /verity-probe (random
# bytes, which squashfs stores as they are, so they can be found and
# flipped), in $T: plain.img (no tree), good.img (its tree appended, root
# hash $ROOT, $SIZE bytes of data), data.img (one byte of the probe flipped),
# tree.img (one byte of the tree's top block flipped); $SUM is the probe's
# md5, $WRONG a root hash that is not the image's. Returns 1 after a FAIL
# line when veritysetup or the probe's place fails.
verity_images() {
	unsquashfs -q -d "$T/root" "$1" >/dev/null
	head -c 262144 /dev/urandom >"$T/root/verity-probe"
	SUM=$(md5sum <"$T/root/verity-probe" | cut -d' ' -f1)
	mksquashfs "$T/root" "$T/plain.img" -noappend -quiet -all-root >/dev/null
	cp "$T/plain.img" "$T/good.img"
	SIZE=$(stat -c %s "$T/good.img")
	ROOT=$(veritysetup format --hash-offset="$SIZE" --data-blocks=$((SIZE / 4096)) \
		"$T/good.img" "$T/good.img" | sed -n 's/^Root hash:[[:space:]]*//p')
	if [ "${#ROOT}" != 64 ] || [ $((SIZE % 4096)) != 0 ]; then
		fail "a verity image is made" "veritysetup gave root hash '$ROOT' over $SIZE bytes"
		return 1
	fi
	WRONG=$(printf '%s' "$ROOT" | tr '0-9a-f' '1-9a-f0')
	# where the probe's bytes sit in the image: a 64-byte run from its middle
	local at
	at=$(python3 -c '
import sys
img = open(sys.argv[1], "rb").read(); p = open(sys.argv[2], "rb").read()
print(img.find(p[131072:131136]))' "$T/good.img" "$T/root/verity-probe")
	if ! [ "$at" -gt 0 ] 2>/dev/null; then
		fail "the probe file is found in the image" "offset '$at'"
		return 1
	fi
	cp "$T/good.img" "$T/data.img"
	flip_at "$T/data.img" "$at"
	cp "$T/good.img" "$T/tree.img"
	flip_at "$T/tree.img" $((SIZE + 4096 + 5))
}
