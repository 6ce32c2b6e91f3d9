#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# User stories of finding the media: a live CD found by `auto`, the same CD
# with a persistence disk, a GPT disk by PARTLABEL=/PARTUUID=, a live ISO on a
# USB stick (nested image paths), union.toram with the CD ejected afterwards,
# two stacked squashfs layers, and a symlink that tries to leave the medium.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-media || exit 0
need_tools qemu-media xorriso mksquashfs sfdisk mkfs.vfat mcopy || exit 0
scratch media
ROOTFS=$OUTDIR/rootfs.squashfs

# ---- media, made from the demo root ----------------------------------------
# the top layer: replaces /etc/hostname, hides /etc/factory-file (an overlay
# whiteout, a 0/0 character device), adds /etc/top-only
mkdir -p "$T/top/etc"
echo stacked-top >"$T/top/etc/hostname"
echo top >"$T/top/etc/top-only"
mknod "$T/top/etc/factory-file" c 0 0
mksquashfs "$T/top" "$T/top.squashfs" -quiet -all-root -no-xattrs >/dev/null

mkdir -p "$T/iso/live"
cp "$ROOTFS" "$T/iso/live/filesystem.squashfs"
cp "$T/top.squashfs" "$T/iso/live/top.squashfs"
ln -s /init "$T/iso/live/escape.squashfs" # points out of the medium
xorriso -as mkisofs -quiet -V LIVECD -J -R -o "$T/live.iso" "$T/iso" 2>/dev/null

# a USB stick: MBR, one FAT partition holding the ISO under /isos
truncate -s 64M "$T/usb.img"
echo 'start=2048, type=c' | sfdisk -q "$T/usb.img"
mkfs.vfat -n USBSTICK --offset 2048 "$T/usb.img" $((63 * 1024)) >/dev/null # KiB
mmd -i "$T/usb.img@@1M" ::/isos
mcopy -i "$T/usb.img@@1M" "$T/live.iso" ::/isos/live.iso

# a GPT disk: the squashfs in partition "rootfs", an ext4 writable branch in
# partition "data" with a fixed PARTUUID
PARTUUID=3b9c1f0e-5a2d-4c7e-9f11-2a6b8d0c4e55
truncate -s 96M "$T/gpt.img"
sfdisk -q "$T/gpt.img" <<-EOF
	label: gpt
	start=2048, size=32768, name=rootfs
	start=34816, size=61440, name=data, uuid=$PARTUUID
EOF
dd if="$ROOTFS" of="$T/gpt.img" bs=1M seek=1 conv=notrunc status=none
truncate -s 30M "$T/gpt-data.img"
mkfs.ext4 -q -F -L gptdata "$T/gpt-data.img"
dd if="$T/gpt-data.img" of="$T/gpt.img" bs=1M seek=17 conv=notrunc status=none

new_data "$T/persist.img" persist
RUN_NO_DISKS=(--lower none)

# 1. a live CD found by `auto` (only removable media scanned), tmpfs upper;
#    `unionroot plan` in the booted system names the CD for auto
if boot "$T/1.log" none '
	[ -e /etc/factory-file ] && echo MARK-root-from-cd
	sed "s/^/MARK-backing=/" /sys/block/loop*/loop/backing_file 2>/dev/null
	/run/unionroot/bin/unionroot plan union.lower=auto union.upper=tmpfs | sed "s/^/PLAN: /"' \
	"${RUN_NO_DISKS[@]}" --cdrom "$T/live.iso" \
	--append 'union.lower=auto union.scan=removable union.upper=tmpfs'; then
	expect "auto finds the live CD and boots its squashfs" "$T/1.log" \
		'^real-init: status: lower1_image=/dev/sr0:/live/filesystem.squashfs'
	expect "the root comes from a loop device over the CD's file" "$T/1.log" \
		'^MARK-backing=/run/unionroot/media/[0-9]+/live/filesystem.squashfs'
	expect "the boot says which device auto chose" "$T/1.log" \
		'unionroot: read-only layer 1: auto is /dev/sr0 \(iso9660, label LIVECD, removable\)'
	expect "unionroot plan lists the CD as a candidate for auto" "$T/1.log" \
		'^PLAN: .*sr0 \(iso9660 LABEL=LIVECD, removable\)'
else
	fail "live CD with auto" "no clean boot (see $T/1.log)"
	keep_log "$T/1.log"
fi

# 2. the same CD plus a persistence disk found by LABEL=: changes persist
if boot "$T/2a.log" "$T/persist.img" 'echo kept >/root/on-persist; echo MARK-written' \
	--lower none --cdrom "$T/live.iso" \
	--append 'union.lower=LABEL=LIVECD:/live/filesystem.squashfs union.upper=LABEL=persist' &&
	boot "$T/2b.log" "$T/persist.img" 'echo "MARK-persist=$(cat /root/on-persist)"' \
		--lower none --cdrom "$T/live.iso" --append 'union.lower=auto union.upper=LABEL=persist'; then
	expect "a CD image named by LABEL= and a path boots" "$T/2a.log" \
		'^real-init: status: lower1=LABEL=LIVECD:/live/filesystem.squashfs /dev/loop[0-9]+ squashfs'
	expect "the persistence disk is found by LABEL=" "$T/2a.log" \
		'^real-init: status: upper_state=persistent on /dev/vda \(ext4\)'
	expect "a live CD session keeps its changes on the persistence disk" "$T/2b.log" '^MARK-persist=kept'
else
	fail "live CD with persistence" "no clean boot (see $T/2a.log, $T/2b.log)"
	keep_log "$T/2a.log"
	keep_log "$T/2b.log"
fi

# 3. a GPT disk: lower by PARTLABEL=, writable branch by PARTUUID=
if boot "$T/3.log" none 'echo MARK-gpt' --lower none --disk "$T/gpt.img" \
	--append "union.lower=PARTLABEL=rootfs union.upper=PARTUUID=${PARTUUID^^}"; then
	expect "PARTLABEL= finds the squashfs partition" "$T/3.log" \
		'^real-init: status: lower1=PARTLABEL=rootfs /dev/vda1 squashfs'
	expect "PARTUUID= (any case) finds the writable partition" "$T/3.log" \
		'^real-init: status: upper_state=persistent on /dev/vda2 \(ext4\)'
else
	fail "GPT disk" "no clean boot (see $T/3.log)"
	keep_log "$T/3.log"
fi

# 4. a USB stick, late by nature (xhci, then usb-storage, then SCSI), holding
#    the live ISO as a file: two nested image paths
if boot "$T/4.log" none 'echo MARK-usb' --lower none --usb "$T/usb.img" \
	--append 'union.lower=LABEL=USBSTICK:/isos/live.iso:/live/filesystem.squashfs union.upper=tmpfs union.wait=30'; then
	expect "a USB stick is found within the deadline" "$T/4.log" \
		'unionroot: read-only layer 1: LABEL=USBSTICK:/isos/live.iso:/live/filesystem.squashfs is /dev/sda1 \(vfat, label USBSTICK, removable\)'
	expect "the squashfs inside the ISO file on the stick boots" "$T/4.log" \
		'^real-init: status: lower1_image=/dev/sda1:/isos/live.iso:/live/filesystem.squashfs'
	expect "the ISO file on vfat is read with direct I/O" "$T/4.log" \
		'image /isos/live.iso on /dev/sda1 is /dev/loop[0-9]+ \(iso9660, read-only, direct I/O\)'
else
	fail "USB stick" "no clean boot (see $T/4.log)"
	keep_log "$T/4.log"
fi

# 5. union.toram: the image is copied to RAM, the CD is ejected while the
#    system runs, every file still reads
mkfifo "$T/mon.in" "$T/mon.out"
cat "$T/mon.out" >"$T/mon.txt" &
drain=$!
boot "$T/5.log" none '
	sed "s/^/MARK-backing=/" /sys/block/loop*/loop/backing_file 2>/dev/null
	grep -q " /run/unionroot/media/" /proc/mounts && echo MARK-media-mounted || echo MARK-media-released
	echo MARK-eject-now
	i=0
	while dd if=/dev/sr0 of=/dev/null bs=2048 count=1 2>/dev/null && [ $i -lt 60 ]; do sleep 1; i=$((i + 1)); done
	dd if=/dev/sr0 of=/dev/null bs=2048 count=1 2>/dev/null || echo MARK-cd-gone
	echo 3 >/proc/sys/vm/drop_caches
	if find / -xdev -type f -exec cat {} + >/dev/null; then echo MARK-read-all-after-eject; fi' \
	"${RUN_NO_DISKS[@]}" --cdrom "$T/live.iso" --monitor "$T/mon" \
	--append 'union.lower=auto union.upper=tmpfs union.toram' &
booting=$!
# a FIFO open blocks without a reader: only while QEMU runs, and bounded
await_line "$T/5.log" '^MARK-eject-now' "$booting" && timeout 10 bash -c 'echo "eject -f cd0" >"$1"' _ "$T/mon.in"
if wait "$booting"; then
	expect "union.toram loops over the copy in RAM" "$T/5.log" '^MARK-backing=/run/unionroot/toram/0/image'
	expect "union.toram lets the CD go" "$T/5.log" '^MARK-media-released'
	expect "the CD is ejected while the system runs" "$T/5.log" '^MARK-cd-gone'
	expect "the system reads every file after the CD is ejected" "$T/5.log" '^MARK-read-all-after-eject'
	expect "status says the image runs from RAM" "$T/5.log" '^real-init: status: lower1_image=/dev/sr0:/live/filesystem.squashfs \(copied to RAM\)'
	# the launcher's wake-up of QEMU's main loop (tools/qemu-run):
	# a boot of some seconds answers its 'info status' many times
	wakes=$(grep -ac 'VM status: running' "$T/mon.txt")
	if [ "$wakes" -ge 8 ]; then
		pass "the launcher wakes QEMU's main loop through the monitor ($wakes times)"
	else
		fail "the launcher wakes QEMU's main loop through the monitor" "$wakes answers to 'info status' in $T/mon.txt"
	fi
else
	fail "union.toram" "no clean boot (see $T/5.log)"
	keep_log "$T/5.log"
fi
kill "$drain" 2>/dev/null

# 6. two stacked squashfs layers: the top one replaces and hides files
if boot "$T/6.log" none '
	echo "MARK-hostname=$(cat /etc/hostname)"
	[ -e /etc/factory-file ] && echo MARK-hidden-file-visible || echo MARK-hidden-file-gone
	echo "MARK-top=$(cat /etc/top-only) MARK-bottom=$(sed -n "s/^ID=//p" /etc/os-release)"' \
	"${RUN_NO_DISKS[@]}" --cdrom "$T/live.iso" \
	--append 'union.lower=LABEL=LIVECD:/live/top.squashfs,LABEL=LIVECD:/live/filesystem.squashfs union.upper=tmpfs'; then
	expect "the top layer's file wins over the bottom's" "$T/6.log" '^MARK-hostname=stacked-top'
	expect "a whiteout in the top layer hides a file of the bottom one" "$T/6.log" '^MARK-hidden-file-gone'
	expect "both layers are visible" "$T/6.log" '^MARK-top=top MARK-bottom=unionroot-demo'
else
	fail "stacked layers" "no clean boot (see $T/6.log)"
	keep_log "$T/6.log"
fi

# refused_image NUM PATH REASON WHAT: a live CD boot whose image PATH cannot
# be used ends in REASON and the countdown, no panic, no real init
refused_image() {
	local log=$T/$1.log
	"$ROOT_DIR/board/$BOARD/run" "$OUTDIR" --lower none --data none --cdrom "$T/live.iso" \
		--append "union.lower=LABEL=LIVECD:$2 union.upper=tmpfs" \
		--cmd 'echo MARK-should-not-run' --timeout 90 --log "$log" >/dev/null 2>&1
	sed -i 's/\r$//' "$log"
	expect "$4 is refused with the medium and the reason" "$log" "image $2 on /dev/sr0: $3"
	expect "$4: the defined fallback, a visible countdown to reboot" "$log" \
		'no rescue shell in the initramfs, rebooting in 10 s'
	expect_not "$4: no panic, no real init" "$log" 'Kernel panic|^MARK-should-not-run' "a panic, or the real init ran"
}

# 7. an image path that is a symlink out of the medium is refused
refused_image 7 /live/escape.squashfs 'the path leaves the medium' "a symlink out of the medium"
# 8. the medium is there, the image file on it is not
refused_image 8 /live/nothere.squashfs 'no such file on the medium' "an image file missing from its medium"

# 9. auto, and the first medium holds a FIFO at the image path (an open of it
#    would wait forever), the second the real image: the boot comes from the
#    second, with a line naming the first
mkdir -p "$T/fifo/live" "$T/real/live"
mkfifo "$T/fifo/live/filesystem.squashfs"
cp "$ROOTFS" "$T/real/live/filesystem.squashfs"
truncate -s 8M "$T/fifo.img"
mkfs.ext4 -q -F -L FIFO -d "$T/fifo" "$T/fifo.img"
truncate -s 16M "$T/real.img"
mkfs.ext4 -q -F -L REAL -d "$T/real" "$T/real.img"
if boot "$T/9.log" none 'echo MARK-up' --lower none --disk "$T/fifo.img" --disk "$T/real.img" \
	--append 'union.lower=auto union.upper=tmpfs'; then
	expect "auto passes over a FIFO at the image path and boots the second medium's image" "$T/9.log" \
		'^real-init: status: lower1_image=/dev/vdb:/live/filesystem.squashfs'
	expect "the FIFO on the first medium is named with the reason" "$T/9.log" \
		'unionroot: read-only layer 1: image /live/filesystem.squashfs on /dev/vda: not a regular file'
	expect "and what happens to that medium" "$T/9.log" 'unionroot: read-only layer 1: skipping /dev/vda for auto'
else
	fail "auto with a FIFO at the image path" "no clean boot: a hang? (see $T/9.log)"
	keep_log "$T/9.log"
fi
