#!/bin/bash
# SPDX-License-Identifier: MIT
# Inside dracut's own initrd: Debian's dracut, in a Debian bookworm with the
# board's kernel package (tests/distro-root), builds two generic initrds
# with unionroot's module (dist/dracut/95unionroot): one without systemd
# (its cmdline and mount hooks run `unionroot mount-root --at /sysroot`) and
# one with systemd in the initrd (unionroot.service before
# initrd-root-fs.target). Each is booted in QEMU, two boots at a time: a
# change that survives the next boot, union.reset=1 and a live ISO on an
# AHCI DVD (without systemd), a missing branch under the default
# union.onfail=tmpfs (with systemd), union.onfail=shell giving dracut's
# emergency shell, and a stock boot of the same initrd with root=, which
# unionroot leaves alone.
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-dracut || exit 0
need_root qemu-dracut || exit 0
if ! command -v debootstrap >/dev/null; then
	skip "qemu-dracut: dracut's initrd" "debootstrap not installed"
	exit 0
fi
need_tools qemu-dracut unsquashfs mkfs.ext4 unshare flock xorriso || exit 0
mkdir -p "$BUILD/tests"
if ! "$ROOT_DIR/tests/distro-root" "$OUTDIR" "$BUILD" dracut >"$BUILD/tests/dracut-root.log" 2>&1; then
	if grep -qiE 'resolve|connect|download|Failed getting release|Temporary failure' \
		"$BUILD/tests/dracut-root.log" "$OUTDIR/distro-dracut.log" 2>/dev/null; then
		skip "qemu-dracut: dracut's initrd" "the Debian mirror cannot be reached (see $BUILD/tests/dracut-root.log)"
	else
		fail "qemu-dracut: a Debian root with dracut is built" "see $BUILD/tests/dracut-root.log"
	fi
	exit 0
fi
scratch dracut

# The two initrds, as a distribution's generic (not host-only) ones, made
# by tests/distro-initrd when the module, the binary or the Debian root
# changed; their listings beside them (.list)
if ! { read -r SHELL_INITRD && read -r SYSTEMD_INITRD; } < <("$ROOT_DIR/tests/distro-initrd" \
	"$OUTDIR" "$BUILD" dracut 2>"$T/initrd.log"); then
	fail "dracut builds the initrds with the unionroot module" "$(tail -n 3 "$T/initrd.log" | tr '\n' '|')"
	exit 0
fi
cat "$T/initrd.log" >&2

# what each initrd carries: the binary and the union's modules' list in
# both, the hooks without systemd, the unit required by
# initrd-root-fs.target with it
if grep -q ' usr/sbin/unionroot$' "$SHELL_INITRD.list" &&
	grep -q ' etc/unionroot/modules$' "$SHELL_INITRD.list" &&
	grep -q ' usr/lib/dracut/hooks/cmdline/90-unionroot-cmdline.sh$' "$SHELL_INITRD.list" &&
	grep -q ' usr/lib/dracut/hooks/mount/99-unionroot-mount.sh$' "$SHELL_INITRD.list" &&
	! grep -q 'unionroot.service' "$SHELL_INITRD.list"; then
	pass "dracut --omit systemd: the initrd carries unionroot, its module list and both hooks"
else
	fail "dracut --omit systemd: the initrd carries unionroot and its hooks" "see $SHELL_INITRD.list"
fi
if grep -q ' usr/sbin/unionroot$' "$SYSTEMD_INITRD.list" &&
	grep -q ' usr/lib/systemd/system/unionroot.service$' "$SYSTEMD_INITRD.list" &&
	grep -q ' usr/lib/systemd/system/initrd-root-fs.target.requires/unionroot.service -> ../unionroot.service$' \
		"$SYSTEMD_INITRD.list" &&
	! grep -q 'hooks/mount/99-unionroot-mount.sh' "$SYSTEMD_INITRD.list"; then
	pass "dracut with systemd: the initrd carries unionroot.service, required by initrd-root-fs.target"
else
	fail "dracut with systemd: the initrd carries unionroot.service" "see $SYSTEMD_INITRD.list"
fi

# A stock root for the boots without union.lower=: the test root, unpacked
# onto an ext4 of its own (one copy per lane: QEMU locks a disk it writes)
unsquashfs -q -d "$T/stockroot" "$OUTDIR/rootfs.squashfs" >/dev/null
rm -f "$T/stock-shell.img"
mkfs.ext4 -q -F -L stock -d "$T/stockroot" "$T/stock-shell.img" 64M >/dev/null
cp --sparse=always "$T/stock-shell.img" "$T/stock-systemd.img"
# A live ISO as live-build lays it out, for union.lower=auto on a DVD
mkdir -p "$T/iso/live"
cp "$OUTDIR/rootfs.squashfs" "$T/iso/live/filesystem.squashfs"
xorriso -as mkisofs -quiet -V LIVE -J -R -o "$T/live.iso" "$T/iso" 2>/dev/null
rm -rf "$T/iso"

# in_order NAME LOG PATTERN...: PASS when each PATTERN's first line in LOG
# comes after the previous one's
in_order() {
	local name=$1 log=$2 prev=0 n p
	shift 2
	for p; do
		n=$(grep -anE -m1 -- "$p" "$log" | cut -d: -f1)
		if [ -z "$n" ] || [ "$n" -le "$prev" ]; then
			fail "$name" "/$p/ ${n:+comes before the line above it}${n:-is missing} in $log"
			return
		fi
		prev=$n
	done
	pass "$name"
}
# timed NAME boot args...: boot, saying how long it took
timed() {
	local name=$1 t0 rc=0
	shift
	t0=$(date +%s)
	boot "$@" || rc=1
	echo "dracut: boot $name: $(($(date +%s) - t0)) s wall, the real init at" \
		"$(sed -n 's/^real-init: started uptime=//p' "$1") s of the guest's uptime" >&2
	return $rc
}
# emergency LOG AT initrd args...: a boot that ends in dracut's emergency
# shell; when a line matching the basic regex AT shows, the keys say a mark
# (its number worked out, so that the typed line does not match) and power
# off. 0 when the guest powered off.
emergency() {
	local log=$1 at=$2 initrd=$3 rc=0 t0
	shift 3
	t0=$(date +%s)
	"$ROOT_DIR/board/$BOARD/run" "$OUTDIR" --initrd "$initrd" --data none --cmd true \
		--keys-at "$at" --keys 'echo "MARK-in-the-emergency-shell=$((6 * 7))"; echo o >/proc/sysrq-trigger' \
		--timeout "${BOOT_TIMEOUT}" --log "$log" "$@" >/dev/null 2>&1 || rc=$?
	[ -f "$log" ] && sed -i 's/\r$//' "$log"
	echo "dracut: boot $(basename "$log" .log) (emergency shell): $(($(date +%s) - t0)) s wall" >&2
	return $rc
}
BOOT_TIMEOUT=240
UNION='union.lower=/dev/vda union.upper=LABEL=data'
STATUS_OK='/run/unionroot/bin/unionroot status >/dev/null && echo MARK-status-ok'
STOCK='[ -e /run/unionroot/status ] && echo MARK-unionroot=ran || echo MARK-unionroot=none'
NOT_DRACUT_ROOT="dracut: FATAL|Could not boot|Can't mount root|No or empty root=|Don't know how to handle"
# systemd logs to the kernel's log, which the console shows, line by line
SYSTEMD_LOG='systemd.log_target=kmsg systemd.show_status=0'

# ---- dracut without systemd: the cmdline and mount hooks ----------------------
shell_lane() {
	local I=(--initrd "$SHELL_INITRD")
	new_data "$T/shell-data.img"
	if timed shell-1 "$T/s1.log" "$T/shell-data.img" "$(change_root dracut-shell); $STATUS_OK" "${I[@]}" \
		--append "$UNION"; then
		expect "dracut (no systemd): the mount hook runs mount-root at /sysroot" "$T/s1.log" \
			'unionroot: the union is at /sysroot on overlay root, for the host to switch'
		in_order "dracut (no systemd): dracut mounts the union, then switches to it" "$T/s1.log" \
			'unionroot: the union is at /sysroot' 'dracut: Mounted root filesystem overlay' \
			'dracut: Switching root' '^real-init: started'
		expect "dracut (no systemd): the status says mount-root at /sysroot" "$T/s1.log" \
			'^real-init: status: mode=mount-root /sysroot$'
		expect "dracut (no systemd): the union is an overlay" "$T/s1.log" '^real-init: status: backend=overlay$'
		expect "dracut (no systemd): the branch is the ext4 disk" "$T/s1.log" \
			'^real-init: status: upper_state=persistent on /dev/vdb \(ext4\)'
		expect "dracut (no systemd): the runtime copy answers in the real root" "$T/s1.log" '^MARK-status-ok'
		expect_not "dracut (no systemd): dracut's root= handling stays out of the way" "$T/s1.log" \
			"$NOT_DRACUT_ROOT" "dracut looked for a root= of its own"
		expect_not "dracut (no systemd): unionroot reads the initrd's module index" "$T/s1.log" \
			'modules.dep is malformed' "unionroot's loader refused dracut's modules.dep/modules.softdep"
	else
		fail "dracut (no systemd): boot 1" "no clean boot (see $BUILD/tests/)"
		keep_log "$T/s1.log"
	fi
	# a boot loader's root= beside union.lower= (update-grub writes one)
	if timed shell-2 "$T/s2.log" "$T/shell-data.img" "$SHOW_CHANGES" "${I[@]}" --disk "$T/stock-shell.img" \
		--append "$UNION root=/dev/vdc"; then
		expect "dracut (no systemd): a change survives the reboot" "$T/s2.log" '^MARK-persist=dracut-shell$'
		expect "dracut (no systemd): a file deleted from the image stays deleted" "$T/s2.log" '^MARK-factory-gone'
		expect "dracut (no systemd): with root= beside union.lower= the root is still the union" "$T/s2.log" \
			'^real-init: status: mode=mount-root /sysroot$'
		expect_not "dracut (no systemd): root='s device is not mounted beside it" "$T/s2.log" \
			'EXT4-fs \(vdc\)' "the kernel mounted root='s /dev/vdc"
	else
		fail "dracut (no systemd): boot 2" "no clean boot (see $BUILD/tests/)"
		keep_log "$T/s2.log"
	fi
	if timed shell-reset "$T/s3.log" "$T/shell-data.img" "$SHOW_CHANGES" "${I[@]}" --append "$UNION union.reset=1"; then
		expect "dracut (no systemd): union.reset=1 drops the change" "$T/s3.log" '^MARK-persist=$'
		expect "dracut (no systemd): union.reset=1 brings the image's file back" "$T/s3.log" '^MARK-factory-back'
	else
		fail "dracut (no systemd): union.reset=1" "no clean boot (see $BUILD/tests/)"
		keep_log "$T/s3.log"
	fi
	if emergency "$T/s4.log" 'unionroot:/# ' "$SHELL_INITRD" \
		--append 'union.lower=/dev/vda union.upper=LABEL=nosuch union.wait=3 union.onfail=shell'; then
		in_order "dracut (no systemd): union.onfail=shell is dracut's emergency shell, after unionroot's line" \
			"$T/s4.log" 'unionroot: writable device LABEL=nosuch not found; mount-root gives up' \
			'unionroot could not mount the union root at /sysroot' 'MARK-in-the-emergency-shell=42'
		expect_not "dracut (no systemd): no switch without the union" "$T/s4.log" \
			'dracut: Switching root|^real-init' "it switched"
	else
		fail "dracut (no systemd): union.onfail=shell" "no poweroff from dracut's shell (see $BUILD/tests/)"
		keep_log "$T/s4.log"
	fi
	if timed shell-stock "$T/s5.log" none "$STOCK" "${I[@]}" --disk "$T/stock-shell.img" --append 'root=/dev/vdb'; then
		expect "dracut (no systemd): without union.lower= root= is dracut's" "$T/s5.log" \
			'^real-init: root: /dev/vdb / ext4'
		expect "dracut (no systemd): without union.lower= unionroot never runs" "$T/s5.log" '^MARK-unionroot=none$'
		expect_not "dracut (no systemd): without union.lower= unionroot says nothing" "$T/s5.log" \
			'unionroot: ' "unionroot ran"
	else
		fail "dracut (no systemd): a stock boot" "no clean boot (see $BUILD/tests/)"
		keep_log "$T/s5.log"
	fi
	if timed shell-iso "$T/s6.log" none 'true' "${I[@]}" --lower none --attach "sata-cd:$T/live.iso" \
		--append 'union.lower=auto union.upper=tmpfs'; then
		expect "dracut (no systemd): a live ISO on an AHCI DVD: union.lower=auto finds its image" "$T/s6.log" \
			'^real-init: status: lower1_image=/dev/sr0:/live/filesystem.squashfs'
		expect "dracut (no systemd): the live root is an overlay over RAM" "$T/s6.log" '^real-init: status: upper=tmpfs'
	else
		fail "dracut (no systemd): a live ISO on an AHCI DVD" "no clean boot (see $BUILD/tests/)"
		keep_log "$T/s6.log"
	fi
}

# ---- systemd in the initrd: unionroot.service ---------------------------------
systemd_lane() {
	local I=(--initrd "$SYSTEMD_INITRD")
	new_data "$T/systemd-data.img"
	if timed systemd-1 "$T/y1.log" "$T/systemd-data.img" "$(change_root dracut-systemd); $STATUS_OK" "${I[@]}" \
		--append "$UNION $SYSTEMD_LOG"; then
		expect "dracut with systemd: unionroot.service runs mount-root at /sysroot" "$T/y1.log" \
			'unionroot: the union is at /sysroot on overlay root, for the host to switch'
		in_order "dracut with systemd: the union is mounted after coldplug, before initrd-root-fs.target, then the switch" \
			"$T/y1.log" 'systemd\[1\]: Finished systemd-udev-trigger.service' \
			'systemd\[1\]: Starting unionroot.service' 'systemd\[1\]: Finished unionroot.service' \
			'systemd\[1\]: Reached target initrd-root-fs.target' 'systemd\[1\]: Starting initrd-switch-root.service' \
			'^real-init: started'
		expect "dracut with systemd: the status says mount-root at /sysroot" "$T/y1.log" \
			'^real-init: status: mode=mount-root /sysroot$'
		expect "dracut with systemd: the union is an overlay" "$T/y1.log" '^real-init: status: backend=overlay$'
		expect "dracut with systemd: the branch is the ext4 disk" "$T/y1.log" \
			'^real-init: status: upper_state=persistent on /dev/vdb \(ext4\)'
		expect "dracut with systemd: the runtime copy answers in the real root" "$T/y1.log" '^MARK-status-ok'
		expect_not "dracut with systemd: no sysroot.mount of systemd's own" "$T/y1.log" \
			'sysroot.mount|Failed to start|Dependency failed|emergency' "systemd mounted or failed something"
	else
		fail "dracut with systemd: boot 1" "no clean boot (see $BUILD/tests/)"
		keep_log "$T/y1.log"
	fi
	# a boot loader's root= beside union.lower=: systemd-fstab-generator's
	# sysroot.mount would mount it at /sysroot too
	if timed systemd-2 "$T/y2.log" "$T/systemd-data.img" "$SHOW_CHANGES" "${I[@]}" --disk "$T/stock-systemd.img" \
		--append "$UNION root=/dev/vdc $SYSTEMD_LOG"; then
		expect "dracut with systemd: a change survives the reboot" "$T/y2.log" '^MARK-persist=dracut-systemd$'
		expect "dracut with systemd: a file deleted from the image stays deleted" "$T/y2.log" '^MARK-factory-gone'
		expect "dracut with systemd: root= beside union.lower= skips sysroot.mount" "$T/y2.log" \
			'sysroot.mount.*skipped because of an unmet condition check \(ConditionKernelCommandLine=!union.lower\)'
		expect_not "dracut with systemd: root='s device is not mounted at /sysroot" "$T/y2.log" \
			'Mounted sysroot.mount|EXT4-fs \(vdc\)' "systemd mounted root='s /dev/vdc"
	else
		fail "dracut with systemd: boot 2" "no clean boot (see $BUILD/tests/)"
		keep_log "$T/y2.log"
	fi
	if timed systemd-nosuch "$T/y3.log" none 'echo x >/root/x && echo MARK-volatile-writable' "${I[@]}" \
		--append "union.lower=/dev/vda union.upper=LABEL=nosuch union.wait=3 $SYSTEMD_LOG"; then
		expect "dracut with systemd: a missing branch gives union.onfail's volatile root" "$T/y3.log" \
			'^real-init: status: upper_state=volatile'
		expect "dracut with systemd: the volatile root takes writes" "$T/y3.log" '^MARK-volatile-writable'
		expect "dracut with systemd: the unit still finishes" "$T/y3.log" 'systemd\[1\]: Finished unionroot.service'
	else
		fail "dracut with systemd: a missing branch" "no clean boot (see $BUILD/tests/)"
		keep_log "$T/y3.log"
	fi
	# sulogin takes the first line (root is locked: any answer), the
	# shell's prompt the second
	if emergency "$T/y4.log" 'Press Enter for maintenance\|:/root# ' "$SYSTEMD_INITRD" \
		--append "union.lower=/dev/vda union.upper=LABEL=nosuch union.wait=3 union.onfail=shell $SYSTEMD_LOG"; then
		in_order "dracut with systemd: union.onfail=shell fails the unit, initrd-root-fs.target, then the emergency shell" \
			"$T/y4.log" 'unionroot: writable device LABEL=nosuch not found; mount-root gives up' \
			'systemd\[1\]: Failed to start unionroot.service' \
			'systemd\[1\]: Dependency failed for initrd-root-fs.target' \
			'systemd\[1\]: Reached target emergency.target' 'MARK-in-the-emergency-shell=42'
		expect_not "dracut with systemd: no switch without the union" "$T/y4.log" \
			'Starting initrd-switch-root|^real-init' "it switched"
	else
		fail "dracut with systemd: union.onfail=shell" "no poweroff from dracut's shell (see $BUILD/tests/)"
		keep_log "$T/y4.log"
	fi
	if timed systemd-stock "$T/y5.log" none "$STOCK" "${I[@]}" --disk "$T/stock-systemd.img" \
		--append "root=/dev/vdb $SYSTEMD_LOG"; then
		expect "dracut with systemd: without union.lower= the unit is skipped" "$T/y5.log" \
			'unionroot.service.*skipped because of an unmet condition check \(ConditionKernelCommandLine=union.lower\)'
		expect "dracut with systemd: without union.lower= root= is systemd's sysroot.mount" "$T/y5.log" \
			'^real-init: root: /dev/vdb / ext4'
		expect "dracut with systemd: without union.lower= unionroot never runs" "$T/y5.log" '^MARK-unionroot=none$'
	else
		fail "dracut with systemd: a stock boot" "no clean boot (see $BUILD/tests/)"
		keep_log "$T/y5.log"
	fi
}

# two boots at a time, one lane each; their lines in order afterwards
shell_lane >"$T/shell.out" 2>"$T/shell.err" &
systemd_lane >"$T/systemd.out" 2>"$T/systemd.err"
wait
cat "$T/shell.out" "$T/systemd.out"
cat "$T/shell.err" "$T/systemd.err" >&2
if grep -q '^FAIL' "$T/shell.out" "$T/systemd.out"; then
	keep_log "$T"/*.log
fi
