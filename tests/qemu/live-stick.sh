#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# User stories of the persistent live sticks people make, each booted from
# USB (xHCI, usb-storage) and keeping its changes on an ext4 partition of
# the stick: the Debian Live Manual's (a hybrid ISO written with dd, its
# partition 1 over the ISO from sector 0, a partition added in the free
# space), a Rufus-style one (the ISO's files on a FAT partition), an ISO
# written with dd to a disk partitioned after it (no partition holds it),
# and a Ventoy-style one (the ISO a file on exFAT, named by a chain SPEC).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-live-stick || exit 0
need_tools qemu-live-stick xorriso sfdisk mkfs.ext4 mkfs.vfat mcopy || exit 0
need_isohybrid qemu-live-stick || exit 0
scratch live-stick
U=/run/unionroot/bin/unionroot

# ---- a hybrid ISO as Debian makes it: MBR partition 1 from sector 0 --------
mkdir -p "$T/iso/live"
cp "$OUTDIR/rootfs.squashfs" "$T/iso/live/filesystem.squashfs"
hybrid_iso "$T/iso" LIVESTICK "$T/live.iso"
if ! sfdisk -d "$T/live.iso" | grep -q 'live.iso1 : start= *0,'; then
	fail "the hybrid ISO's partition 1 starts at sector 0" "$(sfdisk -d "$T/live.iso" | tr '\n' '|')"
	exit 0
fi

# part_ext4 IMG LABEL: an ext4 file system labelled LABEL in IMG's last
# partition (made with sfdisk --append just before), written in place
part_ext4() {
	local img=$1 start size
	read -r start size < <(sfdisk -d "$img" | sed -n '$s/.*start= *\([0-9]*\), size= *\([0-9]*\).*/\1 \2/p')
	rm -f "$T/part.img"
	truncate -s $((size * 512)) "$T/part.img"
	mkfs.ext4 -q -F -L "$2" "$T/part.img"
	dd if="$T/part.img" of="$img" bs=512 seek="$start" conv=notrunc,sparse status=none
	rm -f "$T/part.img"
}

# The Debian Live Manual's stick: dd the ISO, then a partition in the free
# space after it (fdisk: n, p, defaults), ext4 labelled casper-rw
rm -f "$T/dd.img"
dd if="$T/live.iso" of="$T/dd.img" bs=1M status=none
truncate -s 128M "$T/dd.img"
echo ',,L' | sfdisk -q --append "$T/dd.img"
part_ext4 "$T/dd.img" casper-rw

# stick_story NAME IMG CMDLINE FIRST WHOLE: two boots that keep a change on
# the stick's ext4 partition, then a reset back to the factory state, and
# `unionroot plan` in each boot versus what the next boot planned
stick_story() {
	local name=$1 img=$2 cmdline=$3 log=$T/$1 i ok=1
	# unionroot plan of this boot's own command line (/proc/cmdline: the
	# launcher adds union.drivers=all for a USB stick) for the next boot
	local plan="$U plan | sed -n '/^--- plan/,\$p' | sed '1d; s/^/PLAN: /'
		$U plan | sed -n 's/^ *candidates for/CANDIDATES: &/p; s/^peer parameters/PEERS: &/p'"
	local bootplan="sed 's/^/BOOTPLAN: /' /run/unionroot/plan"
	local cmds=("$(change_root on-the-stick); $plan"
		"$SHOW_CHANGES; $bootplan; $U reset --yes >/dev/null && echo MARK-requested; $plan"
		"$SHOW_CHANGES; $bootplan")
	for i in 0 1 2; do
		if ! boot "$log.$i.log" none "${cmds[$i]}" --lower none --usb "$img" \
			--append "$cmdline union.wait=30"; then
			fail "$name: boot $i" "no clean boot (see $log.$i.log)"
			keep_log "$log.$i.log"
			return 1
		fi
		expect_not "$name: boot $i mounts the writable partition, and the shutdown lets it go" "$log.$i.log" \
			'Resource busy|volatile writable branch' \
			"$(grep -aE -m 2 'Resource busy|volatile writable branch' "$log.$i.log" | tr '\n' '|')"
		expect "$name: boot $i keeps its changes on the stick's partition" "$log.$i.log" \
			"^real-init: status: upper_state=persistent on $4 \\(ext4\\)"
		expect "$name: boot $i runs the stick's image" "$log.$i.log" \
			"^real-init: status: lower1_image=$5:/live/filesystem.squashfs"
	done
	expect "$name: a change to the root persists to the next boot" "$log.1.log" '^MARK-persist=on-the-stick'
	expect "$name: a file deleted from the image stays deleted" "$log.1.log" '^MARK-factory-gone'
	expect "$name: unionroot reset is asked for" "$log.1.log" '^MARK-requested'
	expect "$name: after the reset the change is gone" "$log.2.log" '^MARK-persist=$'
	expect "$name: after the reset the image's file is back" "$log.2.log" '^MARK-factory-back'
	# the identities of auto's layers are read from the medium at boot:
	# unionroot plan says "unknown" there, the boot what it found
	expect "$name: the boot compares the layers' identities" "$log.1.log" \
		'^BOOTPLAN: upgrade +no: unchanged since the last boot'
	for i in 1 2; do
		sed -n '/^PLAN: upgrade /d; s/^PLAN: //p' "$log.$((i - 1)).log" >"$log.planned"
		sed -n '/^BOOTPLAN: upgrade /d; s/^BOOTPLAN: //p' "$log.$i.log" >"$log.booted"
		if [ -s "$log.booted" ] && cmp -s "$log.planned" "$log.booted"; then
			pass "$name: unionroot plan printed what boot $i did"
		else
			ok=0
			fail "$name: unionroot plan printed what boot $i did" \
				"$(diff "$log.planned" "$log.booted" | tr '\n' '|')"
		fi
	done
	[ $ok = 1 ] || keep_log "$log.0.log" "$log.1.log" "$log.2.log"
}

# 1. the dd'd hybrid ISO: the ISO is found on the whole disk sda and on
#    sda1, which starts where it starts; the boot uses sda1, so that sda2,
#    a partition of the same disk, can be mounted beside it
if stick_story dd-stick "$T/dd.img" 'union.lower=auto union.upper=LABEL=casper-rw union.scan=removable' \
	/dev/sda2 /dev/sda1; then
	expect "the boot says it took the ISO's partition and why" "$T/dd-stick.0.log" \
		"unionroot: read-only layer 1: /dev/sda holds iso9660 on the whole disk and a partition table; using partition /dev/sda1, which starts at the disk's first sector and covers it, so that the disk's other partitions can be mounted"
	expect "unionroot plan lists the partition for auto, not the whole disk" "$T/dd-stick.0.log" \
		'^CANDIDATES: .*: sda1 \(iso9660 LABEL=LIVESTICK, removable\)'
	expect_not "unionroot plan does not list the whole disk for auto" "$T/dd-stick.0.log" \
		'^CANDIDATES: .* sda \(' "the whole disk is a candidate"
fi

# 2. a Rufus-style stick: the ISO's files on a FAT partition, then an ext4
#    partition labelled persistence; booted with live-boot's own parameters,
#    as such a stick's menu has them
rm -f "$T/fat.img"
truncate -s 128M "$T/fat.img"
printf '%s\n' 'start=2048, size=65536, type=c' 'type=L' | sfdisk -q "$T/fat.img"
# (mkfs.vfat warns that the file is larger than the partition: it is)
mkfs.vfat -n LIVEFAT --offset 2048 "$T/fat.img" $((65536 / 2)) >/dev/null 2>&1 # KiB
mmd -i "$T/fat.img@@1M" ::/live
mcopy -i "$T/fat.img@@1M" "$T/iso/live/filesystem.squashfs" ::/live/filesystem.squashfs
part_ext4 "$T/fat.img" persistence
if stick_story fat-stick "$T/fat.img" 'boot=live persistence union.compat=live-boot' /dev/sda2 /dev/sda1; then
	expect "live-boot's boot=live acts as union.lower=auto" "$T/fat-stick.0.log" \
		'unionroot: boot=live \(live-boot\) acts as union.lower=auto \(union.compat=live-boot\)'
	expect "live-boot's persistence acts as the persistence label" "$T/fat-stick.0.log" \
		'unionroot: persistence \(live-boot\) acts as union.upper=LABEL=persistence union.scan=removable \(union.compat=live-boot\)'
	expect "unionroot plan says the same of live-boot's parameters" "$T/fat-stick.0.log" \
		'^PEERS: peer parameters +boot=live \(live-boot\) acts as union.lower=auto'
fi

# 3. an ISO without a hybrid MBR written with dd, then a new partition table
#    with one partition after the ISO: no partition holds the ISO, so it is
#    read through a read-only loop device over the disk, never mounted whole
xorriso -as mkisofs -quiet -V PLAINISO -J -R -o "$T/plain.iso" "$T/iso" 2>/dev/null
rm -f "$T/plain.img"
dd if="$T/plain.iso" of="$T/plain.img" bs=1M status=none
truncate -s 128M "$T/plain.img"
echo 'start=8192, type=L' | sfdisk -q "$T/plain.img"
part_ext4 "$T/plain.img" casper-rw
if stick_story plain-iso "$T/plain.img" 'union.lower=auto union.upper=LABEL=casper-rw union.scan=removable' \
	/dev/sda1 '/dev/loop[0-9]+'; then
	expect "the boot says it reads the ISO through a loop device and why" "$T/plain-iso.0.log" \
		"unionroot: read-only layer 1: /dev/sda holds iso9660 on the whole disk and a partition table, and no partition starts with it; reading it through read-only /dev/loop[0-9]+, so that the disk's other partitions can be mounted"
	expect "unionroot plan says the whole disk is read through a loop device" "$T/plain-iso.0.log" \
		'^CANDIDATES: .*: sda \(iso9660 LABEL=PLAINISO, removable\) on usb_storage through a read-only loop device'
fi

# 4. a Ventoy-style stick: the ISO as a file on an exFAT partition, named by
#    a chain SPEC, the changes on an ext4 partition beside it. No host tool
#    writes into exFAT without the host kernel's module, so a first boot
#    copies the ISO there: auto finds an image on the ext4 partition
#    (looking at the exFAT one first loads its module), and the guest's own
#    mount puts the ISO onto the exFAT partition. The ext4 partition is
#    made afresh, empty, before the story.
if need_tools qemu-live-stick-ventoy mkfs.exfat; then
	rm -f "$T/ventoy.img"
	truncate -s 128M "$T/ventoy.img"
	printf '%s\n' 'start=2048, size=65536, type=7' 'type=L' | sfdisk -q "$T/ventoy.img"
	truncate -s 32M "$T/exfat.img"
	mkfs.exfat -L Ventoy "$T/exfat.img" >/dev/null
	dd if="$T/exfat.img" of="$T/ventoy.img" bs=1M seek=1 conv=notrunc status=none
	mkdir -p "$T/carry/live"
	cp "$T/live.iso" "$T/carry/live.iso"
	cp "$T/iso/live/filesystem.squashfs" "$T/carry/live/"
	read -r start size < <(sfdisk -d "$T/ventoy.img" | sed -n '$s/.*start= *\([0-9]*\), size= *\([0-9]*\).*/\1 \2/p')
	truncate -s $((size * 512)) "$T/carry.img"
	mkfs.ext4 -q -F -d "$T/carry" "$T/carry.img"
	dd if="$T/carry.img" of="$T/ventoy.img" bs=512 seek="$start" conv=notrunc status=none
	if boot "$T/ventoy-setup.log" none 'mkdir -p /tmp/v && mount -t exfat /dev/sda1 /tmp/v &&
		mkdir -p /tmp/v/iso && cp /run/unionroot/media/*/live.iso /tmp/v/iso/live.iso &&
		umount /tmp/v && echo MARK-copied' --lower none --usb "$T/ventoy.img" \
		--append 'union.lower=auto union.upper=tmpfs union.scan=removable union.wait=30' &&
		grep -q '^MARK-copied' "$T/ventoy-setup.log"; then
		part_ext4 "$T/ventoy.img" persistence
		stick_story ventoy "$T/ventoy.img" \
			'union.lower=LABEL=Ventoy:/iso/live.iso:/live/filesystem.squashfs union.upper=LABEL=persistence union.scan=removable' \
			/dev/sda2 /dev/sda1:/iso/live.iso
	else
		fail "ventoy: the ISO copied onto the exFAT partition" "no clean setup boot (see $T/ventoy-setup.log)"
		keep_log "$T/ventoy-setup.log"
	fi
fi

# 5. the live profile (board/qemu-x86_64/live.conf, the initramfs make iso
#    packs): no union.* parameter at all. The Rufus-style stick's partition
#    labelled persistence is found and used; the bare ISO written with dd
#    has none, so the boot goes volatile after the profile's 5 s and says so.
LIVE_INITRD=$OUTDIR/initramfs-live.cpio.gz
if [ ! -f "$LIVE_INITRD" ]; then
	fail "the live profile's initramfs is built" "$LIVE_INITRD missing (make initramfs)"
elif boot "$T/profile.0.log" none "sed 's/^/BOOTPLAN: /' /run/unionroot/plan" \
	--lower none --usb "$T/fat.img" --initrd "$LIVE_INITRD" &&
	boot "$T/profile.1.log" none 'touch /root/x && echo MARK-writable' \
		--lower none --usb "$T/live.iso" --initrd "$LIVE_INITRD"; then
	expect "live profile: the stick's image is found without a parameter" "$T/profile.0.log" \
		'^real-init: status: lower1_image=/dev/sda1:/live/filesystem.squashfs'
	expect "live profile: the partition labelled persistence keeps the changes" "$T/profile.0.log" \
		'^real-init: status: upper_state=persistent on /dev/sda2 \(ext4\)'
	expect "live profile: the plan names the persistence label with its 5 s" "$T/profile.0.log" \
		'^BOOTPLAN: writable +LABEL=persistence@5 on /dev/sda2'
	expect "live profile: the dd'd ISO alone boots from the stick" "$T/profile.1.log" \
		'^real-init: status: lower1_image=/dev/sda1:/live/filesystem.squashfs'
	expect "live profile: without a persistence partition the boot says it goes volatile" "$T/profile.1.log" \
		'unionroot: .*LABEL=persistence@5.* not found'
	expect "live profile: without a persistence partition the root is writable in RAM" "$T/profile.1.log" \
		'^MARK-writable'
else
	fail "live profile: boots without parameters" "no clean boot (see $T/profile.0.log, $T/profile.1.log)"
	keep_log "$T/profile.0.log" "$T/profile.1.log"
fi
