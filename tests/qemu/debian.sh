#!/bin/bash
# SPDX-License-Identifier: MIT
# A real distribution root: a minimal Debian bookworm (debootstrap) as the
# read-only layer, systemd as the real init, on the same union.
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
scratch debian
truncate -s 256M "$T/data.img"
mkfs.ext4 -q -F -L data "$T/data.img"

if BOOT_TIMEOUT=300 boot "$T/1.log" "$T/data.img" '
	echo "MARK-pid1=$(cat /proc/1/comm)"
	echo debian-persist >/root/persist' --rootfs debian &&
	BOOT_TIMEOUT=300 boot "$T/2.log" "$T/data.img" 'echo "MARK-persist=$(cat /root/persist)"' --rootfs debian; then
	expect "systemd runs as the real init on the union" "$T/1.log" '^MARK-pid1=systemd'
	expect "the Debian root is an overlay" "$T/1.log" '^real-init: root: overlay / overlay rw'
	expect "a change on the Debian root survives a reboot" "$T/2.log" '^MARK-persist=debian-persist'
else
	keep_log "$T"/*.log
	fail "a Debian root with systemd boots on the union" "no clean boot (logs in $BUILD/tests/)"
fi

# unionroot reset --reboot hands over to the system's own reboot, which stops
# systemd's services cleanly (QEMU runs with -no-reboot: the restart ends it);
# the next boot is the factory root. The command disk's script is stopped
# with the services, so this boot says no "cmd exit".
"$ROOT_DIR/board/$BOARD/run" "$OUTDIR" --data "$T/data.img" --rootfs debian --timeout 300 \
	--log "$T/3.log" --cmd 'unionroot reset --yes --reboot; echo "MARK-reset-rc=$?"; sleep 120' >/dev/null 2>&1
rc=$?
sed -i 's/\r$//' "$T/3.log"
if [ $rc = 0 ] && BOOT_TIMEOUT=300 boot "$T/4.log" "$T/data.img" '
	[ -e /root/persist ] && echo MARK-persist=kept || echo MARK-persist=gone
	echo "MARK-factory=$(cat /etc/factory-file)"' --rootfs debian; then
	expect "reset --reboot schedules the reset" "$T/3.log" 'factory reset scheduled for the next boot'
	expect "reset --reboot restarts through systemd" "$T/3.log" 'systemd-shutdown\[1\]: Rebooting'
	expect "reset --reboot restarts the machine" "$T/3.log" 'reboot: Restarting system'
	expect_not "reset --reboot does not power off" "$T/3.log" 'reboot: Power down'
	expect "the boot after reset --reboot drops the user's files" "$T/4.log" '^MARK-persist=gone'
	expect "the boot after reset --reboot has the factory files" "$T/4.log" '^MARK-factory=factory'
else
	keep_log "$T"/3.log "$T"/4.log
	fail "unionroot reset --reboot on Debian" "run exited $rc, or no clean boot after it (logs in $BUILD/tests/)"
fi
