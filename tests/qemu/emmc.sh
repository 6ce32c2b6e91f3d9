#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# doc/firmware.md's eMMC/SD layout, booted: a GPT SD card on sdhci-pci with
# the partitions kernel (unused), rootfs (the board's squashfs with its
# dm-verity tree appended, by the document's "Verified firmware" commands)
# and rootfs_data (blank). The command line is the document's eMMC
# board.conf lines and its union.verity line (the root hash filled in), read
# from doc/firmware.md so the two cannot drift. One card through the stories: the first
# boot formats rootfs_data as f2fs and persists, the next keeps the user's
# files, a reset gives the factory tree, and a power cut during a reset
# leaves old or factory, never a mix. The eMMC board carries the f2fs
# tools; its board.conf must be the document's.
BOARD=qemu-x86_64-emmc
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-emmc || exit 0
need_tools qemu-emmc unsquashfs mksquashfs veritysetup sfdisk || exit 0
scratch emmc
DOC=$ROOT_DIR/doc/firmware.md
U=/run/unionroot/bin/unionroot
CUTS=${EMMC_CUTS:-1}
FILES=${EMMC_FILES:-200}

# doc_block START FENCE: the first block opened by the line FENCE after
# the line starting with START
doc_block() {
	awk -v start="$1" -v fence="$2" '
		!found && index($0, start) == 1 { found = 1; next }
		found && !inside && $0 == fence { inside = 1; next }
		inside && $0 == "```" { exit }
		inside { print }' "$DOC"
}
# the board.conf lines, comments cut, as one command line; the tools it names
CMDLINE=$(doc_block '**eMMC or SD**' '```' | sed -n 's/[[:space:]]*#.*//; /^union\./p' | tr '\n' ' ')
WANT_TOOLS=$(doc_block '**eMMC or SD**' '```' | sed -n 's/.*TOOLS="\([^"]*\)".*/\1/p')
# the bootloader's line, its root hash filled in below
VERITY=$(doc_block '**eMMC or SD**' '```' | sed -n 's/^#[[:space:]]*\(union\.verity=ROOTHASH\)\([[:space:]].*\)*$/\1/p')
case $CMDLINE in
*union.lower=PARTLABEL=rootfs*union.upper=PARTLABEL=rootfs_data*) ;;
*)
	fail "doc/firmware.md's eMMC board.conf is found" "command line '$CMDLINE'"
	exit 0
	;;
esac
if [ -z "$VERITY" ]; then
	fail "doc/firmware.md's eMMC block names union.verity=ROOTHASH" "no '# union.verity=ROOTHASH' line"
	exit 0
fi
# the board's defaults are the document's lines (comments cut)
BOARD_LINES=$(sed -n 's/[[:space:]]*#.*//; /^union\./p' "$ROOT_DIR/board/$BOARD/board.conf" | tr '\n' ' ')
if [ "$BOARD_LINES" = "$CMDLINE" ]; then
	pass "board/$BOARD/board.conf is doc/firmware.md's eMMC board.conf"
else
	fail "board/$BOARD/board.conf is doc/firmware.md's eMMC board.conf" "'$BOARD_LINES' versus '$CMDLINE'"
fi
# shellcheck disable=SC2016 # expanded by the inner bash
HAVE_TOOLS=$(bash -c 'TOOLS= && . "$1" && echo " $TOOLS "' _ "$ROOT_DIR/board/$BOARD/build.conf")
for t in $WANT_TOOLS; do
	case $HAVE_TOOLS in
	*" $t "*) pass "the board carries doc/firmware.md's eMMC tool $t" ;;
	*) fail "the board carries doc/firmware.md's eMMC tool $t" "TOOLS=\"$HAVE_TOOLS\" in board/$BOARD/build.conf" ;;
	esac
done

# the firmware, made by the document's commands in a directory holding root/
mkdir -p "$T/fw"
unsquashfs -q -d "$T/fw/root" "$OUTDIR/rootfs.squashfs" >/dev/null
doc_block '## Verified firmware' '```sh' >"$T/fw.sh"
ROOT=$(cd "$T/fw" && bash -e "$T/fw.sh" 2>&1 | sed -n 's/^Root hash:[[:space:]]*//p')
FW=$T/fw/firmware.img
if [ "${#ROOT}" != 64 ] || [ ! -f "$FW" ]; then
	fail "doc/firmware.md's verity commands make the firmware" "root hash '$ROOT' (see $T/fw.sh)"
	exit 0
fi
# a 64 MiB card (an SD card's size is a power of 2; QEMU's card erases
# about 4 MiB/s, and mkfs.f2fs discards all of rootfs_data, of which f2fs
# needs some 40 MiB at least): GPT, 4 MiB kernel, rootfs in whole MiB,
# rootfs_data the rest, left all zeros
rootfs_mib=$((($(stat -c %s "$FW") + 1048575) / 1048576))
truncate -s 64M "$T/sd.img"
sfdisk -q "$T/sd.img" <<EOF
label: gpt
start=2048, size=8192, name=kernel
start=10240, size=${rootfs_mib}MiB, name=rootfs
name=rootfs_data
EOF
dd if="$FW" of="$T/sd.img" bs=512 seek=10240 conv=notrunc status=none
CMDLINE+=${VERITY/ROOTHASH/$ROOT}
SD=(--data none --lower none --attach "sd:$T/sd.img" --append "$CMDLINE")
echo "emmc: command line: $CMDLINE" >&2

# 1. the first boot: the SD drivers by modalias, the verified rootfs, and
# rootfs_data formatted f2fs and persistent
ABSENT='nvme|ahci|xhci_pci|ehci_pci|usb_storage'
if boot "$T/b1.log" none "$U"' status | sed "s/^/STATUS: /"
	'"$U"' plan | sed "s/^/PLAN: /"
	sed "s/ .*//; s/^/MOD: /" /proc/modules
	sed "s/^/MOUNT: /" /proc/mounts
	'"$(change_root first)" "${SD[@]}"; then
	expect "first boot: PARTLABEL=rootfs is the SD card's second partition" "$T/b1.log" \
		'unionroot: read-only layer 1: PARTLABEL=rootfs is /dev/mmcblk0p2 \(squashfs\)'
	expect "first boot: the blank rootfs_data is formatted as f2fs" "$T/b1.log" \
		'writable branch /dev/mmcblk0p3 is blank; formatting it as f2fs'
	expect "first boot: the writable branch is persistent on rootfs_data" "$T/b1.log" \
		'^real-init: status: upper_state=persistent on /dev/mmcblk0p3 \(f2fs\)$'
	expect "first boot: rootfs is verified with the document's root hash" "$T/b1.log" \
		"^STATUS: lower1_verity=verified, root hash $ROOT, /dev/dm-[0-9]+ over /dev/mmcblk0p2 "
	expect "first boot: the layer is mounted from the verity device" "$T/b1.log" '^MOUNT: /dev/dm-[0-9]+ [^ ]+ squashfs ro'
	expect_not "first boot: never from the raw partition" "$T/b1.log" '^MOUNT: /dev/mmcblk0p2 ' "rootfs is mounted unverified"
	expect "first boot: the SD host controller's driver was loaded by modalias" "$T/b1.log" '^MOD: sdhci_pci$'
	expect "first boot: ... and the MMC block driver" "$T/b1.log" '^MOD: mmc_block$'
	expect "first boot: status names the writable branch's driver" "$T/b1.log" '^STATUS: upper_driver=sdhci_pci$'
	expect "first boot: ... and the verified layer's, the driver below dm-verity" "$T/b1.log" '^STATUS: lower1_driver=sdhci_pci$'
	expect "first boot: the plan names the partitions' driver" "$T/b1.log" '^PLAN: devices .*mmcblk0p2 \(squashfs\) on sdhci_pci'
	expect_not "first boot: no module failed to load" "$T/b1.log" 'loading module .* failed' \
		"$(grep -a 'loading module' "$T/b1.log" | head -n1)"
	expect_not "first boot: no driver for absent hardware" "$T/b1.log" "^MOD: ($ABSENT)$" \
		"$(grep -aE "^MOD: ($ABSENT)$" "$T/b1.log" | tr '\n' ' ')"
	sed -n 's/^real-init: status: pid1_ms=\([0-9]*\) .*/emmc: first boot: PID 1 took \1 ms/p' "$T/b1.log" >&2
else
	fail "first boot from the eMMC layout" "no clean boot (see $BUILD/tests/)"
	keep_log "$T/b1.log"
	exit 0
fi

# 2. the files survive; the branch is checked, not formatted a second time; then
# the user's tree and a reset request for the next boot
if boot "$T/b2.log" none "$SHOW_CHANGES
	$(reset_setup "$FILES")" "${SD[@]}"; then
	expect "the next boot keeps the written file" "$T/b2.log" '^MARK-persist=first$'
	expect "... and the deleted one stays deleted" "$T/b2.log" '^MARK-factory-gone$'
	expect "the next boot checks the f2fs branch" "$T/b2.log" 'writable branch /dev/mmcblk0p3: /sbin/fsck.f2fs: clean'
	expect_not "... and never formats it a second time" "$T/b2.log" 'formatting it' "the second boot formatted rootfs_data"
	expect "unionroot reset --yes is recorded" "$T/b2.log" '^MARK-requested'
else
	fail "second boot from the eMMC layout" "no clean boot (see $BUILD/tests/)"
	keep_log "$T/b2.log"
	exit 0
fi

# 3. the reset: the factory tree; then the tree and the request a second time
if boot "$T/b3.log" none "$(reset_probe "$FILES")
	$(reset_setup "$FILES")" "${SD[@]}"; then
	expect "after unionroot reset --yes the next boot has the factory tree" "$T/b3.log" '^MARK-state=factory$'
	expect "... and the reset is done, not pending" "$T/b3.log" '^MARK-pending=no$'
else
	fail "a boot that resets the eMMC layout" "no clean boot (see $BUILD/tests/)"
	keep_log "$T/b3.log"
	exit 0
fi

# 4. power cuts at a random moment between the check of rootfs_data and the
# switch, as long as the clean reset boot took for it: the branch is
# mounted and the old tree set aside in between
emmc_cut_check() { # CUT LOG DELAY
	local state
	state=$(sed -n 's/^MARK-state=//p' "$2")
	expect "power cut $1 during a reset: the next boot is old or factory, never mixed" "$2" \
		'^MARK-state=(old|factory)$' "state '$state'"
	expect "power cut $1: the next boot finishes the reset" "$2" '^MARK-state=factory$'
	expect "power cut $1: ... and nothing is left pending" "$2" '^MARK-pending=no$'
	grep -q '^MARK-state=factory$' "$2" && grep -q '^MARK-pending=no$' "$2"
}
RESET_CUT_FROM=$T/b3.log reset_cut_story "" "$FILES" "$CUTS" 'after:/sbin/fsck.f2fs: clean' emmc_cut_check none "${SD[@]}"
# 5. a phone's card: 17 partitions before rootfs (rootfs p18, rootfs_data
# p19). A table past 16 entries kept every partition's PARTLABEL from the
# boot once, and the card rebooted forever ("PARTLABEL=rootfs not found").
# The small ones are 64 KiB and the kernel's 2 MiB, so that rootfs_data
# keeps the 54 MiB and more mkfs.f2fs needs (it refuses 52 MiB).
{
	echo 'label: gpt'
	for n in $(seq 16); do echo "start=$((2048 + (n - 1) * 128)), size=128, name=misc$n"; done
	echo "start=4096, size=4096, name=kernel"
	echo "start=8192, size=${rootfs_mib}MiB, name=rootfs"
	echo 'name=rootfs_data'
} >"$T/many.sfdisk"
truncate -s 64M "$T/many.img"
sfdisk -q "$T/many.img" <"$T/many.sfdisk"
dd if="$FW" of="$T/many.img" bs=512 seek=8192 conv=notrunc status=none
if boot "$T/many.log" none 'echo MARK-booted' --data none --lower none --attach "sd:$T/many.img" \
	--append "$CMDLINE"; then
	expect "a card of 19 partitions: PARTLABEL=rootfs is its 18th" "$T/many.log" \
		'unionroot: read-only layer 1: PARTLABEL=rootfs is /dev/mmcblk0p18 \(squashfs\)'
	expect "a card of 19 partitions: rootfs_data, the 19th, is the writable branch" "$T/many.log" \
		'^real-init: status: upper_state=persistent on /dev/mmcblk0p19 \(f2fs\)$'
else
	fail "a card of 19 partitions boots" "no clean boot (see $BUILD/tests/)"
	keep_log "$T/many.log" "$T/many.sfdisk"
fi

sed -n 's/.*unionroot: writable branch \/dev\/mmcblk0p3: formatted as f2fs in \([0-9]*\) ms/emmc: mkfs.f2fs took \1 ms/p' "$T/b1.log" >&2
keep_log "$T"/*.log
