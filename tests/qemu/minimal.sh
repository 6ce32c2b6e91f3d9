#!/bin/bash
# SPDX-License-Identifier: MIT
# The smallest build (make COPYUP=0 VERITY=0 FLASH=0) as PID 1, asked for
# what it leaves out: a writable branch on raw flash takes union.onfail (a
# volatile branch, the real init runs), a layer to verify is refused as a
# failed verity setup is, a read-only layer on raw flash stops the boot;
# each says so in one line. Three boots, two of them a 10 s countdown.
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-minimal || exit 0
scratch minimal
if ! make --no-print-directory -s BUILD="$BUILD" "$BUILD/minimal/unionroot" >"$T/make.log" 2>&1 ||
	! "$ROOT_DIR/tools/mkinitramfs" "$BOARD" "$BUILD" --bin minimal/unionroot >>"$T/make.log" 2>&1; then
	fail "minimal: the smallest build's initramfs" "$(tail -3 "$T/make.log")"
	exit 0
fi
INITRD=$OUTDIR/initramfs-minimal.cpio.gz
DATA=$T/data.img
new_data "$DATA"
LEFT='which this build leaves out'

# 1. ubi: as the writable branch: union.onfail's tmpfs, the real init runs
if boot "$T/flash.log" "$DATA" 'cat /run/unionroot/plan; echo "upper: $(grep ^upper_state= /run/unionroot/status)"' \
	--initrd "$INITRD" --append 'union.upper=ubi:data union.ubi=mtd:ubi'; then
	pass "minimal: a writable branch on raw flash boots"
else
	fail "minimal: a writable branch on raw flash boots" "no clean boot (see $T/flash.log)"
	keep_log "$T/flash.log"
fi
expect "minimal: raw flash's one line names the build" "$T/flash.log" \
	"unionroot: writable branch ubi:data needs raw flash \(mtd:, ubi:\), $LEFT \(FLASH=0\); booting with a volatile writable branch in RAM \(union.onfail=tmpfs\)"
expect "minimal: the branch is the volatile fallback" "$T/flash.log" \
	'^upper: upper_state=volatile: writable branch ubi:data needs raw flash'
expect "minimal: the boot's plan says raw flash is not in the build" "$T/flash.log" \
	'^raw flash +not in this build \(FLASH=0\)'
expect_not "minimal: the boot never waits for raw flash" "$T/flash.log" 'waiting for writable branch' \
	"it waited for a medium it cannot find"

# 2. union.verity: refused before any mount; a reboot
H=$(printf '%064d' 1)
boot "$T/verity.log" "$DATA" 'true' --initrd "$INITRD" --append "union.verity=$H" || true
expect "minimal: a layer to verify is refused, and the line says why" "$T/verity.log" \
	"unionroot: read-only layer 1: union.verity= asks for dm-verity, $LEFT \(VERITY=0\); rebooting in 10 s \(union.onfail=shell would open a rescue shell\)"
expect_not "minimal: an unverified layer is never run" "$T/verity.log" '^real-init: started' \
	"the real init ran on a layer union.verity= asked to verify"

# 3. mtd: as the read-only layer: never found, the boot stops
boot "$T/lower.log" "$DATA" 'true' --initrd "$INITRD" --append 'union.lower=mtd:rootfs' || true
expect "minimal: a read-only layer on raw flash stops the boot, and says why" "$T/lower.log" \
	"unionroot: read-only layer 1 mtd:rootfs needs raw flash \(mtd:, ubi:\), $LEFT \(FLASH=0\); no rescue shell"
expect_not "minimal: nothing runs without the read-only layer" "$T/lower.log" '^real-init: started' \
	"the real init ran"
