#!/bin/bash
# SPDX-License-Identifier: MIT
# A real distribution root: a minimal Debian bookworm (debootstrap) as the
# read-only layer, systemd as the real init, on the same union, the
# writable branch a persistence file on a FAT stick: systemd returns to
# /run/initramfs/shutdown at poweroff, which leaves both clean.
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-debian || exit 0
if ! command -v debootstrap >/dev/null; then
	skip "a Debian root with systemd boots on the union" "debootstrap not installed"
	exit 0
fi
if ! "$ROOT_DIR/board/$BOARD/images" "$OUTDIR" debian >"$BUILD/tests/debian-images.log" 2>&1; then
	if grep -qiE 'resolve|connect|download|Failed getting release' "$BUILD/tests/debian-images.log"; then
		skip "a Debian root with systemd boots on the union" "the Debian mirror cannot be reached (see $BUILD/tests/debian-images.log)"
	else
		fail "a Debian root is built" "see $BUILD/tests/debian-images.log"
	fi
	exit 0
fi
need_tools qemu-debian mkfs.vfat mcopy fsck.vfat || exit 0
scratch debian
# the report of issue 28: the writable branch a persistence file on a FAT
# stick, which systemd alone could not unmount at poweroff (the root's loop
# holds the file), so every boot replayed the file's ext4 journal and the
# stick stayed dirty; /run/initramfs/shutdown now unmounts them
mkfs.ext4 -q -F "$T/persistence.img" 64M
stick "$T/stick.img" STICK 96 "$T/persistence.img:/persistence.img"
ON_STICK=(--usb "$T/stick.img" --append 'union.upper=LABEL=STICK:/persistence.img union.wait=30' --rootfs debian)

if BOOT_TIMEOUT=300 boot "$T/1.log" none '
	echo "MARK-pid1=$(cat /proc/1/comm)"
	echo debian-persist >/root/persist' "${ON_STICK[@]}" &&
	fat_state "$T/stick.img" >"$T/1.fat" &&
	BOOT_TIMEOUT=300 boot "$T/2.log" none 'echo "MARK-persist=$(cat /root/persist)"' "${ON_STICK[@]}"; then
	expect "systemd runs as the real init on the union" "$T/1.log" '^MARK-pid1=systemd'
	expect "the Debian root is an overlay" "$T/1.log" '^real-init: root: overlay / overlay rw'
	expect "a change on the Debian root survives a reboot" "$T/2.log" '^MARK-persist=debian-persist'
	expect "systemd returns to /run/initramfs at poweroff" "$T/1.log" 'systemd-shutdown\[1\]: Returning to initrd'
	expect "the shutdown program takes the union apart" "$T/1.log" '^unionroot: shutdown: unmounting the union before poweroff'
	expect "the shutdown program unmounts the branch, its loop and the stick" "$T/1.log" \
		'^unionroot: shutdown: the union and its media are unmounted'
	expect_not "systemd leaves the stick's mount to the shutdown program" "$T/1.log" 'Failed unmounting' \
		"systemd failed to unmount a mount"
	expect_not "systemd does not give up on the loop device" "$T/1.log" 'Failed to finalize' \
		"systemd-shutdown gave up without /run/initramfs"
	expect "the FAT stick is clean after poweroff" "$T/1.fat" '^clean$'
	expect_not "the next boot replays no journal in the persistence file" "$T/2.log" \
		'EXT4-fs \(loop[0-9]+\): recovery complete' "the file's ext4 journal was replayed"
	expect_not "the next boot finds the stick unmounted cleanly" "$T/2.log" \
		'FAT-fs \(sda\): Volume was not properly unmounted' "the stick's dirty flag was set"
else
	keep_log "$T"/*.log
	fail "a Debian root with systemd boots on the union" "no clean boot (logs in $BUILD/tests/)"
fi

# unionroot reset --reboot hands over to the system's own reboot, which stops
# systemd's services cleanly (QEMU runs with -no-reboot: the restart ends it);
# the next boot is the factory root. The command disk's script is stopped
# with the services, so this boot says no "cmd exit".
"$ROOT_DIR/board/$BOARD/run" "$OUTDIR" --data none "${ON_STICK[@]}" --timeout 300 \
	--log "$T/3.log" --cmd 'unionroot reset --yes --reboot; echo "MARK-reset-rc=$?"; sleep 120' >/dev/null 2>&1
rc=$?
sed -i 's/\r$//' "$T/3.log"
if [ $rc = 0 ] && BOOT_TIMEOUT=300 boot "$T/4.log" none '
	[ -e /root/persist ] && echo MARK-persist=kept || echo MARK-persist=gone
	echo "MARK-factory=$(cat /etc/factory-file)"' "${ON_STICK[@]}"; then
	expect "reset --reboot schedules the reset" "$T/3.log" 'factory reset scheduled for the next boot'
	expect "reset --reboot restarts through systemd and the shutdown program" "$T/3.log" \
		'^unionroot: shutdown: unmounting the union before reboot'
	expect "reset --reboot restarts the machine" "$T/3.log" 'reboot: Restarting system'
	expect_not "reset --reboot does not power off" "$T/3.log" 'reboot: Power down'
	expect "the boot after reset --reboot drops the user's files" "$T/4.log" '^MARK-persist=gone'
	expect "the boot after reset --reboot has the factory files" "$T/4.log" '^MARK-factory=factory'
else
	keep_log "$T"/3.log "$T"/4.log
	fail "unionroot reset --reboot on Debian" "run exited $rc, or no clean boot after it (logs in $BUILD/tests/)"
fi
