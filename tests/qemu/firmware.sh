#!/bin/bash
# SPDX-License-Identifier: MIT
# A PC's firmware boots the live ISO tools/mkiso writes, with no -kernel:
# SeaBIOS and OVMF (UEFI), each from a DVD on AHCI and from the ISO written
# raw to a USB stick on xHCI, and OVMF with Secure Boot enforcing through
# Debian's signed shim, GRUB and kernel; and SeaBIOS with another medium's
# GRUB booting the ISO as a file on a stick through its loopback.cfg. The
# test picks the serial-console entry with its hotkey on GRUB's serial
# menu, then checks that the demo root's real init ran on the union
# unionroot built from the ISO's image. One ISO for every boot; the
# network is off (-nic none). FW_ONLY=REGEX runs the boots it matches.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-firmware || exit 0
need_tools qemu-firmware xorriso grub-mkimage mkfs.vfat mcopy mksquashfs || exit 0
for f in /usr/lib/grub/i386-pc/boot_hybrid.img /usr/lib/shim/shimx64.efi.signed \
	/usr/lib/grub/x86_64-efi-signed/gcdx64.efi.signed; do
	if [ ! -f "$f" ]; then
		skip qemu-firmware "$f missing (grub-pc-bin, shim-signed, grub-efi-amd64-signed: tools/install-deps)"
		exit 0
	fi
done
OVMF=/usr/share/OVMF
scratch firmware
ISO=$T/live.iso
if ! "$ROOT_DIR/tools/mkiso" --rootfs "$OUTDIR/rootfs.squashfs" --kernel "$OUTDIR/vmlinuz" \
	--initrd "$OUTDIR/initramfs-live.cpio.gz" --output "$ISO" --timeout 60 >"$T/mkiso.log" 2>&1; then
	fail "tools/mkiso writes the ISO" "$(tail -n 3 "$T/mkiso.log" | tr '\n' ' ')"
	exit 0
fi
pass "tools/mkiso writes the ISO ($(stat -c %s "$ISO") bytes)"
# the demo root is busybox (mdev, modprobe) without the kernel's modules
expect "tools/mkiso says the root lacks the booted kernel's modules" "$T/mkiso.log" \
	'^mkiso: note: the root has no /lib/modules/[0-9][^ ]*-amd64 '
expect_not "tools/mkiso takes busybox's mdev for udev" "$T/mkiso.log" 'no udev' "it missed the root's /sbin/mdev"
xorriso -osirrox on -indev "$ISO" -extract /boot/grub/grub.cfg "$T/iso.cfg" >/dev/null 2>&1
# The ISO written to a 128 MiB stick with a persistence partition behind
# it, as doc/live-media.md says ("Making a live ISO"): sfdisk moves the
# GPT's backup header to the stick's end and appends the partition
cp "$ISO" "$T/stick.img"
truncate -s 128M "$T/stick.img"
echo ',,L' | sfdisk -q --append "$T/stick.img" >/dev/null 2>&1
read -r start sectors < <(sfdisk -d "$T/stick.img" | sed -n 's/^[^ ]*4 : start= *\([0-9]*\), size= *\([0-9]*\).*/\1 \2/p')
if [ -z "$start" ] || ! mkfs.ext4 -q -F -L persistence -E offset=$((start * 512)) "$T/stick.img" $((sectors / 2))k; then
	fail "a persistence partition goes behind the ISO on a stick" "sfdisk or mkfs.ext4 failed"
	exit 0
fi

# fw_boot NAME FIRMWARE MEDIUM: one boot of the ISO, its console in
# $T/NAME.log. FIRMWARE: bios (SeaBIOS, QEMU's own), uefi (OVMF), secure
# (OVMF with Secure Boot enforcing, Microsoft's keys enrolled). MEDIUM: dvd
# (a DVD drive on the q35 machine's own AHCI controller, ich9-ahci) or usb
# (the ISO written to a stick on xHCI, a persistence partition behind it;
# its writes go to a snapshot) or loopback
# (a GRUB on a DVD boots the ISO as a file on a FAT stick through the
# ISO's loopback.cfg, as multi-ISO sticks do; the stick's own boot sector
# only says it is no system disk: the DVD boots first). GRUB's menu
# shows on the serial port; "s" boots the serial-console entry. Once the
# real init's shell is up, the guest says which firmware it sees and powers
# off. Returns 1 when the boot did not get there; the seconds from QEMU's
# start to the real init are left in $took.
fw_boot() {
	local name=$1 fw=$2 medium=$3 log=$T/$1.log con=$T/$1-con mon=$T/$1-mon qemu t0 i helpers
	local machine=q35
	local -a args=()
	case $fw in
	bios) ;;
	uefi)
		cp "$OVMF/OVMF_VARS_4M.fd" "$T/$name-vars.fd"
		args+=(-drive "if=pflash,format=raw,unit=0,readonly=on,file=$OVMF/OVMF_CODE_4M.fd"
			-drive "if=pflash,format=raw,unit=1,file=$T/$name-vars.fd")
		;;
	secure)
		# the secure build runs its variable store in SMM: the flash
		# must answer to SMM alone, as on a real board
		machine=q35,smm=on
		cp "$OVMF/OVMF_VARS_4M.ms.fd" "$T/$name-vars.fd"
		args+=(-global "driver=cfi.pflash01,property=secure,value=on"
			-drive "if=pflash,format=raw,unit=0,readonly=on,file=$OVMF/OVMF_CODE_4M.secboot.fd"
			-drive "if=pflash,format=raw,unit=1,file=$T/$name-vars.fd")
		;;
	esac
	case $medium in
	dvd) args+=(-drive "file=$ISO,format=raw,if=none,id=dvd,media=cdrom,readonly=on"
		-device "ide-cd,bus=ide.0,drive=dvd") ;;
	loopback) args+=(-drive "file=$T/chain.iso,format=raw,if=none,id=dvd,media=cdrom,readonly=on"
		-device "ide-cd,bus=ide.0,drive=dvd,bootindex=0" -device "qemu-xhci,id=xhci"
		-drive "file=$T/isostick.img,format=raw,if=none,id=stick,snapshot=on"
		-device "usb-storage,bus=xhci.0,drive=stick,removable=on") ;;
	usb) args+=(-device "qemu-xhci,id=xhci" -drive "file=$T/stick.img,format=raw,if=none,id=stick,snapshot=on"
		-device "usb-storage,bus=xhci.0,drive=stick,removable=on") ;;
	esac
	mkfifo "$con.in" "$con.out" "$mon.in" "$mon.out"
	cat "$con.out" >"$log" &
	helpers=$!
	cat "$mon.out" >/dev/null &
	helpers+=" $!"
	t0=$(date +%s.%N)
	timeout -s KILL "${FW_TIMEOUT:-400}" qemu-system-x86_64 -machine "$machine" -accel tcg -cpu max -m 512 \
		-no-reboot -nic none -display none -chardev "pipe,id=con,path=$con" -serial chardev:con \
		-monitor "pipe:$mon" "${args[@]}" </dev/null >"$T/$name-qemu.log" 2>&1 &
	qemu=$!
	# QEMU 7.2 under TCG may sleep past a halted guest's timer until
	# some event reaches its main loop (tools/qemu-run): a monitor
	# command now and then bounds that
	(exec 3>"$mon.in" && while sleep 0.25; do echo 'info status' >&3 || exit 0; done) 2>/dev/null &
	helpers+=" $!"
	took=
	if await_line "$log" 'Live on the serial console' "$qemu" 600; then
		sleep 1
		printf s >"$con.in"
	fi
	if [ -n "${FW_REFUSED:-}" ]; then
		# a boot that must stop in GRUB: its message, then no more waiting
		await_line "$log" "$FW_REFUSED" "$qemu" 600 && sleep 2
		pkill -KILL -P "$qemu" 2>/dev/null # QEMU itself, under timeout
	elif await_line "$log" '^real-init: started' "$qemu" 2000; then
		took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
		if await_line "$log" 'interactive shell' "$qemu" 300; then
			sleep 2
			printf '%s\n' '[ -d /sys/firmware/efi ] && echo MARK-firmware=uefi || echo MARK-firmware=bios; poweroff -f' \
				>"$con.in"
		fi
	fi
	for i in $(seq 300); do
		kill -0 "$qemu" 2>/dev/null || break
		sleep 0.2
	done
	kill -KILL "$qemu" 2>/dev/null
	wait "$qemu" 2>/dev/null
	# shellcheck disable=SC2086 # a list of process ids
	kill $helpers 2>/dev/null
	# shellcheck disable=SC2086
	wait $helpers 2>/dev/null
	sed -i 's/\r$//' "$log"
	[ -z "${FW_REFUSED:-}" ] || return 0
	if [ -z "$took" ]; then
		fail "$name" "never reached the real init (see $BUILD/tests/)"
		keep_log "$log" "$T/$name-qemu.log"
		return 1
	fi
	echo "$name: firmware start to the real init in $took s" >&2
}

# fw_story NAME FIRMWARE MEDIUM ROOT-DEVICE: a boot, and what it shows
fw_story() {
	local name=$1 fw=$2 medium=$3 dev=$4 log=$T/$1.log want=bios
	[[ $name =~ ${FW_ONLY:-.} ]] || return 0
	[ "$fw" = bios ] || want=uefi
	fw_boot "$name" "$fw" "$medium" || return 1
	expect "$name: GRUB's menu shows on the serial port" "$log" "Factory reset of the persistence"
	expect "$name: the chosen entry's command line" "$log" \
		'Command line: .*union.lower=auto[^ ]* union.upper=tmpfs console=tty0 console=ttyS0,115200'
	expect "$name: unionroot found the image on the medium" "$log" \
		"^real-init: status: lower1_image=$dev:/live/filesystem.squashfs"
	[ "$medium" != loopback ] ||
		expect "$name: the kernel was told the ISO file GRUB booted" "$log" \
			'Command line: .*union.lower=auto:/isos/live.iso:/live/filesystem.squashfs'

	expect "$name: the writable branch is the tmpfs the entry asked for" "$log" '^real-init: status: upper=tmpfs'
	expect "$name: the root is the union" "$log" '^real-init: root: [^ ]+ / overlay '
	expect "$name: the guest was started by $want firmware" "$log" "^MARK-firmware=$want"
	expect_not "$name: no panic, no oops" "$log" 'Kernel panic|Oops|BUG:' "$(grep -aE -m1 'Kernel panic|Oops|BUG:' "$log")"
}

fw_story seabios-ahci-dvd bios dvd /dev/sr0
# a stick of make iso's ISO: no partition starts at its first sector,
# so the image is read through a loop over the stick (init/reach.c)
fw_story seabios-xhci-usb bios usb '/dev/loop[0-9]+'
# A GRUB of another medium boots the ISO file the way multi-ISO sticks do:
# it tells loopback.cfg where the file is in iso_path
mkdir -p "$T/chain/boot/grub"
cat >"$T/chain/boot/grub/grub.cfg" <<'EOF'
serial --unit=0 --speed=115200
terminal_input serial console
terminal_output serial console
search --no-floppy --file --set=stick /isos/live.iso
set iso_path=/isos/live.iso
export iso_path
loopback loop ($stick)$iso_path
set root=(loop)
configfile /boot/grub/loopback.cfg
EOF
if [[ loopback =~ ${FW_ONLY:-.} ]]; then
	if grub-mkrescue -o "$T/chain.iso" --directory=/usr/lib/grub/i386-pc "$T/chain" >"$T/chain.log" 2>&1; then
		stick "$T/isostick.img" ISOSTICK 40 "$ISO:/isos/live.iso"
		fw_story seabios-loopback-usb bios loopback '/dev/sd[a-z]:/isos/live.iso'
	else
		fail "seabios-loopback-usb" "grub-mkrescue: $(tail -n 2 "$T/chain.log" | tr '\n' ' ')"
	fi
fi
# The persistence entry's parameters on that stick: its partition is the
# writable branch (the kernel from QEMU: the entry talks on the screen)
if [[ persistence =~ ${FW_ONLY:-.} ]]; then
	persist=$(sed -n "/^menuentry 'Live with persistence/,/}/s/^\tlinux \/live\/vmlinuz //p" "$T/iso.cfg")
	if boot "$T/persist.log" none 'echo hello >/root/note; echo MARK-wrote' --lower none --usb "$T/stick.img" \
		--append "$persist"; then
		expect "the persistence entry: the image comes from the stick" "$T/persist.log" \
			'^real-init: status: lower1_image=/dev/(sd[a-z][0-9]*|loop[0-9]+):/live/filesystem.squashfs'
		# the image is read through the stick's partition 1 or a loop, never
		# the whole disk, which would claim it from its partition 4 (EBUSY)
		expect_not "the persistence entry: the stick's partition is never refused" "$T/persist.log" \
			'failed: Resource busy' "the whole stick was mounted, and its partition refused"
		expect "the persistence entry: the partition behind the ISO is the writable branch" "$T/persist.log" \
			'^real-init: status: upper_state=persistent'
	else
		fail "the persistence entry" "no clean boot (see $BUILD/tests/)"
		keep_log "$T/persist.log"
	fi
fi
if [ ! -f "$OVMF/OVMF_CODE_4M.fd" ]; then
	skip "UEFI boots" "$OVMF/OVMF_CODE_4M.fd missing (ovmf: tools/install-deps)"
	exit 0
fi
fw_story ovmf-ahci-dvd uefi dvd /dev/sr0
fw_story ovmf-xhci-usb uefi usb '/dev/loop[0-9]+'
if [ ! -f "$OVMF/OVMF_CODE_4M.secboot.fd" ] || [ ! -f "$OVMF/OVMF_VARS_4M.ms.fd" ]; then
	skip "Secure Boot" "OVMF's secure build or its variables with Microsoft's keys missing (ovmf)"
	exit 0
fi
if [[ ovmf-secure-boot-dvd =~ ${FW_ONLY:-.} ]] && fw_story ovmf-secure-boot-dvd secure dvd /dev/sr0; then
	expect "ovmf-secure-boot-dvd: Secure Boot was enforced (the kernel says so)" "$T/ovmf-secure-boot-dvd.log" \
		'secureboot: Secure boot enabled'
	expect "ovmf-secure-boot-dvd: the kernel locked itself down for it" "$T/ovmf-secure-boot-dvd.log" \
		'Kernel is locked down from EFI Secure Boot'
fi

# The same ISO with one byte of the kernel changed: its signature no longer
# holds, and Secure Boot must stop it in GRUB (shim's check), not boot it.
if [[ ovmf-secure-boot-refused =~ ${FW_ONLY:-.} ]]; then
	cp "$OUTDIR/vmlinuz" "$T/tampered-vmlinuz"
	at=$(($(stat -c %s "$T/tampered-vmlinuz") / 2))
	byte=$(od -An -tu1 -j "$at" -N1 "$T/tampered-vmlinuz" | tr -d ' ')
	printf '%b' "\\0$(printf '%o' $(((byte + 1) % 256)))" |
		dd of="$T/tampered-vmlinuz" bs=1 seek="$at" conv=notrunc status=none
	if cmp -s "$OUTDIR/vmlinuz" "$T/tampered-vmlinuz" ||
		! "$ROOT_DIR/tools/mkiso" --rootfs "$OUTDIR/rootfs.squashfs" --kernel "$T/tampered-vmlinuz" \
			--initrd "$OUTDIR/initramfs-live.cpio.gz" --output "$T/tampered.iso" --timeout 60 \
			>"$T/mkiso-tampered.log" 2>&1; then
		fail "ovmf-secure-boot-refused: an ISO with a changed kernel" "no changed byte, or mkiso failed"
	else
		SIGNED_ISO=$ISO ISO=$T/tampered.iso
		FW_REFUSED='bad shim signature|Linux version' fw_boot ovmf-secure-boot-refused secure dvd
		ISO=$SIGNED_ISO
		log=$T/ovmf-secure-boot-refused.log
		expect "ovmf-secure-boot-refused: GRUB's menu shows" "$log" 'Live on the serial console'
		expect "ovmf-secure-boot-refused: shim refuses the changed kernel" "$log" 'bad shim signature'
		expect_not "ovmf-secure-boot-refused: the changed kernel never starts" "$log" 'Linux version|unionroot:' \
			"Secure Boot let a kernel with a broken signature boot"
		! grep -aqE 'Linux version|unionroot:' "$log" || keep_log "$log"
	fi
fi
