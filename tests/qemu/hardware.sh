#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# A PC's storage hardware: the root image or the live ISO booted from an IDE
# CD-ROM, a SATA DVD (AHCI), NVMe, an SD card, and USB sticks on xHCI and
# EHCI, the writable branch on a second kind of hardware in the same boot.
# Each boot loads the drivers its hardware's modaliases ask for, and no
# other: status names the driver each medium needed, no module fails, and
# the drivers of absent hardware stay out of /proc/modules. The virtio boot
# (union.drivers=boot) leaves the IDE controller's driver to the real init;
# the others pass union.drivers=all (see tools/qemu-run). On a CPU
# without PCLMUL the SCSI disk driver's crct10dif-pclmul softdep is left out
# instead of failing with ENODEV.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-hardware || exit 0
if ! command -v xorriso >/dev/null; then
	skip qemu-hardware "xorriso not installed"
	exit 0
fi
scratch hardware
ROOTFS=$OUTDIR/rootfs.squashfs
mkdir -p "$T/iso/live"
cp "$ROOTFS" "$T/iso/live/filesystem.squashfs"
xorriso -as mkisofs -quiet -V LIVECD -J -R -o "$T/live.iso" "$T/iso" 2>/dev/null
# an SD card's size is a power of 2: the squashfs, zero-padded
cp "$ROOTFS" "$T/sd.img"
size=1048576
while [ "$size" -lt "$(stat -c %s "$T/sd.img")" ]; do size=$((size * 2)); done
truncate -s "$size" "$T/sd.img"
# what the guest shows: the modules loaded, one a line, and the plan's
# list of the devices present
MODS='sed "s/ .*//; s/^/MOD: /" /proc/modules
	/run/unionroot/bin/unionroot plan | sed "s/^/PLAN: /"
	for i in $(seq 100); do
		grep -qs modules.pack /sys/block/loop*/loop/backing_file || break
		sleep 0.1
	done
	echo "PACK-LOOPS: $(cat /sys/block/loop*/loop/backing_file 2>/dev/null | grep -c modules.pack)"
	dmesg | grep -o "loop[0-9]*: detected capacity change from 0 to [0-9]*" | sed "s/^/LOOP: /"'
# The board's module pack (PACK=): what a virtual machine's disks need is
# outside it (PACK_OUTSIDE=), the other hardware's drivers are in it. A
# loop of the pack's size (512-byte sectors) shows it was attached: a live
# image's loop alone would load loop too.
PACK_SECTORS=$("$ROOT_DIR"/tools/initramfs-cat "$OUTDIR/initramfs.cpio.gz" | cpio -itv --quiet 2>/dev/null |
	awk '/\/modules\.pack$/ { n = $5 / 512 } END { print n + 0 }')
PACKED=0
[ "$PACK_SECTORS" = 0 ] || PACKED=1

# hw_boot NAME LOWER-DRIVER UPPER-DRIVER ABSENT [run options]: one boot, its
# drivers in status, no failed module, none of ABSENT (a regex of module
# names) loaded.
hw_boot() {
	local name=$1 lower=$2 upper=$3 absent=$4 log=$T/$1.log
	shift 4
	if ! boot "$log" none "$MODS" --lower none "$@"; then
		fail "$name" "no clean boot (see $log)"
		keep_log "$log"
		return
	fi
	expect "$name: the read-only layer needed $lower" "$log" "^real-init: status: lower1_driver=$lower$"
	[ "$upper" = - ] ||
		expect "$name: the writable branch needed $upper" "$log" "^real-init: status: upper_driver=$upper$"
	expect "$name: the drivers were chosen by modalias" "$log" "^MOD: $lower$"
	# the run script passes union.drivers=all: the command disk's virtio
	# is no medium's, and the test root has no udev to load its driver
	expect "$name: union.drivers=all leaves no driver" "$log" '^real-init: status: drivers_left=none$'
	expect "$name: the plan says all drivers load" "$log" '^PLAN: drivers +all the hardware present asks for \(union.drivers=all\)$'
	expect "$name: unionroot plan names the driver" "$log" "^PLAN: devices .*\\) on $lower(,|$)"
	expect_not "$name: no module failed to load" "$log" 'loading module .* failed' \
		"$(grep -a 'loading module' "$log" | head -n1)"
	expect_not "$name: no driver for absent hardware" "$log" "^MOD: ($absent)$" \
		"$(grep -aE "^MOD: ($absent)$" "$log" | tr '\n' ' ')"
	[ "$PACKED" = 1 ] || return 0
	expect "$name: its driver came from the module pack, on a loop" "$log" \
		"^LOOP: loop[0-9]+: detected capacity change from 0 to $PACK_SECTORS\$"
	expect "$name: the pack's loop lets go of it after the switch" "$log" '^PACK-LOOPS: 0$'
}

new_data "$T/virtio-data.img"
if boot "$T/virtio.log" "$T/virtio-data.img" "$MODS" --append union.debug; then
	expect "virtio: the demo's disks needed virtio_blk" "$T/virtio.log" \
		'^real-init: status: lower1_driver=virtio_blk$'
	expect "virtio: union.debug says which modalias chose virtio_blk" "$T/virtio.log" \
		'unionroot: module virtio_blk for /devices/pci0000:00/[^ ]*: its alias virtio:d00000002v\* matches virtio:d00000002v'
	expect_not "virtio: no module failed to load" "$T/virtio.log" 'loading module .* failed' \
		"$(grep -a 'loading module' "$T/virtio.log" | head -n1)"
	expect_not "virtio: no NVMe, AHCI, SD or USB driver" "$T/virtio.log" \
		'^MOD: (nvme|ahci|sdhci_pci|xhci_pci|ehci_pci|usb_storage|uas)$' \
		"$(grep -aE '^MOD: (nvme|ahci|sdhci_pci|xhci_pci|ehci_pci|usb_storage|uas)$' "$T/virtio.log" | tr '\n' ' ')"
	# union.drivers=boot (the default): the media are on virtio, so QEMU's
	# IDE controller, with only an empty CD drive on it, keeps no driver
	expect "virtio: the media's driver chain loaded" "$T/virtio.log" '^MOD: virtio_pci$'
	expect_not "virtio: the IDE controller's driver is left to the real init" "$T/virtio.log" \
		'^MOD: (ata_piix|libata|sr_mod)$' "$(grep -aE '^MOD: (ata_piix|libata|sr_mod)$' "$T/virtio.log" | tr '\n' ' ')"
	expect "virtio: status names the driver left" "$T/virtio.log" '^real-init: status: drivers_left=ata_piix$'
	expect "virtio: unionroot plan names the driver left" "$T/virtio.log" '^PLAN: drivers left +ata_piix \(this boot\)$'
	expect "virtio: the plan says which drivers load" "$T/virtio.log" '^PLAN: drivers +until every medium is found'
	[ "$PACKED" = 0 ] || expect_not "virtio: its modules are outside the pack, which stays unmounted" \
		"$T/virtio.log" '^MOD: loop$|module pack' "$(grep -aE '^MOD: loop$|module pack' "$T/virtio.log" | head -n1)"
	sed -n 's/^real-init: status: pid1_ms=[0-9]* modules=\([0-9]*\) .*/virtio: t_modules=\1 ms/p' "$T/virtio.log"
else
	fail "virtio boot" "no clean boot (see $T/virtio.log)"
	keep_log "$T/virtio.log"
fi

new_data "$T/nvme.img" persist
hw_boot ide-cd+nvme ata_piix nvme 'ahci|sdhci_pci|xhci_pci|ehci_pci|usb_storage' \
	--attach "ide-cd:$T/live.iso" --attach "nvme:$T/nvme.img" \
	--append 'union.lower=auto union.upper=LABEL=persist'

new_data "$T/sdcard.img" persist
hw_boot sata-dvd+sd ahci sdhci_pci 'nvme|xhci_pci|ehci_pci|usb_storage' \
	--attach "sata-cd:$T/live.iso" --attach "sd:$T/sdcard.img" \
	--append 'union.lower=auto union.upper=LABEL=persist'

cp "$ROOTFS" "$T/nvme-root.img"
new_data "$T/stick.img" persist
hw_boot nvme+usb-ehci nvme usb_storage 'ahci|sdhci_pci|xhci_pci' \
	--attach "nvme:$T/nvme-root.img" --attach "usb-ehci:$T/stick.img" \
	--append 'union.lower=/dev/nvme0n1 union.upper=LABEL=persist union.scan=removable'

# QEMU's qemu64 CPU has no PCLMUL (feature 0081) and no SSE4.2
printf '. %q\nQEMU_MACHINE="-machine pc -cpu qemu64"\n' "$ROOT_DIR/board/$BOARD/build.conf" >"$T/qemu64.conf"
new_data "$T/sata.img" persist
BOARD_CONF=$T/qemu64.conf hw_boot sd+sata sdhci_pci ahci 'nvme|xhci_pci|ehci_pci|usb_storage' \
	--attach "sd:$T/sd.img" --attach "sata-disk:$T/sata.img" \
	--append 'union.lower=/dev/mmcblk0 union.upper=LABEL=persist union.debug'
expect "sd+sata: the SATA disk's driver brings crc-t10dif" "$T/sd+sata.log" '^MOD: crc_t10dif$'
expect "sd+sata: crct10dif-pclmul is left out on a CPU without PCLMUL" "$T/sd+sata.log" \
	'unionroot: module crct10dif-pclmul: this CPU lacks its feature; not loaded'

# the ISO written raw to a stick, as users do with dd
cp "$T/live.iso" "$T/usb-live.img"
hw_boot usb-xhci usb_storage - 'nvme|ahci|sdhci_pci|ehci_pci' \
	--attach "usb-xhci:$T/usb-live.img" --append 'union.lower=auto union.upper=tmpfs'

# A module pack that does not mount (zeros where its squashfs was): one line
# says so, the virtio root, whose modules are outside it, still boots, and
# the writable branch on a SATA disk, whose driver is in it, is not found:
# union.onfail, a volatile root.
if [ "$PACKED" = 1 ]; then
	mkdir "$T/broken"
	"$ROOT_DIR"/tools/initramfs-cat "$OUTDIR/initramfs.cpio.gz" | cpio -id --quiet -D "$T/broken"
	pack=$(find "$T/broken/lib/modules" -name modules.pack)
	size=$(stat -c %s "$pack")
	head -c "$size" /dev/zero >"$pack"
	(cd "$T/broken" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) | lz4 -q -l >"$T/broken.cpio"
	new_data "$T/broken-sata.img" persist
	if boot "$T/broken.log" none 'echo MARK-booted' --initrd "$T/broken.cpio" \
		--attach "sata-disk:$T/broken-sata.img" --append 'union.upper=LABEL=persist union.wait=3'; then
		expect "broken pack: one line names it" "$T/broken.log" \
			'unionroot: mounting the module pack /lib/modules/[^ ]*/modules\.pack failed: .*; only the modules outside it load'
		expect "broken pack: the root on virtio boots" "$T/broken.log" '^real-init: status: lower1_driver=virtio_blk$'
		expect "broken pack: the branch behind the packed driver takes union.onfail" "$T/broken.log" \
			'^real-init: status: upper_state=volatile'
	else
		fail "broken pack" "no clean boot (see $T/broken.log)"
		keep_log "$T/broken.log"
	fi
else
	skip "broken pack" "board $BOARD has no module pack (PACK=)"
fi
