#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# User stories of the firmware layouts OpenWrt ships (board
# qemu-x86_64-flash, block2mtd standing in for the flash chip). NAND: one
# MTD "ubi" whose UBI holds "kernel", "rootfs" (a squashfs, mounted through
# ubiblock) and "rootfs_data" (ubifs, made on first boot); first boot,
# settings kept, a reset cut by a power cut, then a good boot. NOR: the
# squashfs on the MTD partition "rootfs", jffs2 on "rootfs_data", with an
# initramfs (Debian's kernel: one block2mtd device a partition; OpenWrt's
# image, its end-of-image marker on rootfs_data, the first boot's erase cut
# by a power cut) and without one (the board's kernel: mtdparts= splits one
# flash).
BOARD=qemu-x86_64-flash
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-openwrt || exit 0
scratch openwrt
EB=131072 # block2mtd's eraseblock, 128 KiB
# erased FILE SIZE: flash as it leaves the factory, every byte 0xFF
erased() { head -c "$2" /dev/zero | tr '\0' '\377' >"$1"; }
# padded SRC DST: SRC, then 0xFF up to a whole eraseblock (block2mtd wants it)
padded() {
	local n
	cp "$1" "$2"
	n=$(((EB - $(stat -c %s "$1") % EB) % EB))
	head -c "$n" /dev/zero | tr '\0' '\377' >>"$2"
}
if ! command -v ubinize >/dev/null; then
	skip "openwrt layouts" "ubinize missing (mtd-utils)"
	exit 0
fi

# --- NAND: squashfs and ubifs in one UBI ----------------------------------------
N=$T/nand.img
head -c 65536 /dev/urandom >"$T/kernel.bin"
cat >"$T/ubinize.cfg" <<EOF
[kernel]
mode=ubi
image=$T/kernel.bin
vol_id=0
vol_type=dynamic
vol_name=kernel
[rootfs]
mode=ubi
image=$OUTDIR/rootfs.squashfs
vol_id=1
vol_type=dynamic
vol_name=rootfs
EOF
erased "$N" 8M
if ! ubinize -o "$T/ubi.img" -p 128KiB -m 1 "$T/ubinize.cfg" >"$T/ubinize.log" 2>&1; then
	fail "the NAND image is made" "ubinize: $(tail -1 "$T/ubinize.log")"
	exit 0
fi
dd if="$T/ubi.img" of="$N" conv=notrunc status=none
NAND=(--mtd '/dev/vdb,128KiB,ubi' --cache none
	--append 'union.ubi=mtd:ubi union.lower=ubi:rootfs union.upper=ubi:rootfs_data')
if boot "$T/n1.log" "$N" "$(change_root nand-settings)"'
	grep " /run/unionroot/lower/0 " /proc/mounts | sed "s/^/MOUNT: /"
	/run/unionroot/bin/unionroot plan | sed "s/^/PLAN: /"' "${NAND[@]}"; then
	expect "the UBI on the MTD \"ubi\" is attached" "$T/n1.log" 'UBI: attached mtd:ubi \(mtd0\) as ubi0'
	expect "the squashfs in the rootfs volume gets its ubiblock device" "$T/n1.log" 'read-only layer 1: ubi:rootfs is /dev/ubiblock0_1 \(squashfs in UBI volume ubi0_1\)'
	expect "the read-only layer is mounted from ubiblock as squashfs" "$T/n1.log" '^MOUNT: /dev/ubiblock0_1 /run/unionroot/lower/0 squashfs ro'
	expect "status names the ubiblock device" "$T/n1.log" '^real-init: status: lower1=ubi:rootfs /dev/ubiblock0_1 squashfs '
	expect "the first boot makes rootfs_data from the free space" "$T/n1.log" 'UBI: created volume "rootfs_data" on ubi0'
	expect "rootfs_data is the writable branch, as ubifs" "$T/n1.log" '^real-init: status: upper_state=persistent on ubi0_2 \(ubifs\)'
	expect "plan shows the ubiblock device of the rootfs volume" "$T/n1.log" '^PLAN: +the squashfs in UBI volume ubi0_1, through its ubiblock device'
	expect "plan shows the read-only layer as the boot mounted it" "$T/n1.log" '^PLAN: +/dev/ubiblock0_1 \(squashfs\)'
	expect_not "the volume holding squashfs is never mounted as ubifs" "$T/n1.log" 'UBIFS error|ubi:rootfs is ubi0_1' "it was tried as ubifs"
else
	fail "NAND first boot" "no clean boot (see $T/n1.log)"
	keep_log "$T/n1.log"
fi
t0=$(date +%s.%N)
if boot "$T/n2.log" "$N" "$SHOW_CHANGES$(reset_setup 200)" "${NAND[@]}"; then
	expect "settings in rootfs_data survive a reboot" "$T/n2.log" '^MARK-persist=nand-settings'
	expect "a file deleted from the squashfs stays deleted" "$T/n2.log" '^MARK-factory-gone'
	expect "the ubiblock device this boot remade is used" "$T/n2.log" '^real-init: status: lower1=ubi:rootfs /dev/ubiblock0_1 squashfs '
	expect_not "the second boot reuses rootfs_data" "$T/n2.log" 'created volume' "it created a second one"
	expect "the user asks for a factory reset" "$T/n2.log" '^MARK-requested'
else
	fail "NAND second boot" "no clean boot (see $T/n2.log)"
	keep_log "$T/n2.log"
fi
# the power cut lands around the switch, where the reset is applied, timed
# from the last boot like tests/qemu/powercut.sh: QEMU's own start (its wall
# time less the guest's last uptime), then the guest's time to the switch;
# whether it cuts the reset itself or lands just before or after it, the
# next boot must end factory
delay=$(awk -v s="$RANDOM" -v t0="$t0" -v t1="$(date +%s.%N)" \
	-v up="$(sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p' "$T/n2.log" | tail -1)" \
	-v sw="$(sed -n 's/^\[ *\([0-9.]*\)\] unionroot: switching to .*/\1/p' "$T/n2.log")" \
	'BEGIN { srand(s); fw = t1 - t0 - up; if (fw < 0) fw = 0
		printf "%.1f", fw + (sw ? sw : 6) * (0.9 + rand() * 0.2) }')
"$ROOT_DIR/board/$BOARD/run" "$OUTDIR" --data "$N" --cmd 'sleep 30' "${NAND[@]}" \
	--timeout "$delay" --log "$T/n3.log" >/dev/null 2>&1
if grep -q 'unionroot: switching to' "$T/n3.log"; then
	echo "openwrt: the power cut at $delay s came after the switch (the reset was applied)" >&2
else
	echo "openwrt: the power cut at $delay s came before the switch: $(grep -a 'unionroot: ' "$T/n3.log" | tail -1)" >&2
fi
if boot "$T/n4.log" "$N" "$(reset_probe 200)" "${NAND[@]}"; then
	expect "after a power cut during the reset the next boot is the factory state" "$T/n4.log" '^MARK-state=factory'
	expect "and no reset is pending any more" "$T/n4.log" '^MARK-pending=no'
	expect "the squashfs is still mounted through ubiblock" "$T/n4.log" '^real-init: status: lower1=ubi:rootfs /dev/ubiblock0_1 squashfs '
else
	fail "NAND boot after a power cut during a reset (cut at $delay s)" "no clean boot (see $T/n3.log, $T/n4.log)"
	keep_log "$T/n3.log" "$T/n4.log"
fi

# --- NOR with an initramfs: OpenWrt's image, one block2mtd device a partition --
# The firmware as OpenWrt's image builder makes it for NOR (append-kernel |
# pad-to 128k | append-rootfs | pad-rootfs): the kernel padded with zeros to
# an eraseblock, the squashfs, then padjffs2's padding, 0xFF to each of 4,
# 8, 16, 64, 128 and 256 KiB with the end-of-image marker de ad c0 de after
# each, so the first eraseblock after the squashfs, where OpenWrt's mtdsplit
# starts rootfs_data, begins with the marker. Flashing wrote only the image:
# behind it the partition still holds an earlier firmware's jffs2 (settings
# "stale"), which a jffs2 mounted over the marker would bring back. Debian's
# kernel has no CONFIG_MTD_CMDLINE_PARTS, so the partitions are block2mtd
# devices named like a vendor's mtdparts= would name them, cut from the
# flash at the same offsets.
# padjffs2 FILE KIB...: OpenWrt's tools/padjffs2 on FILE
padjffs2() {
	local f=$1 len out mask=0 m i k
	shift
	for k; do mask=$((mask | k * 1024)); done
	len=$(stat -c %s "$f")
	out=$len
	while [ "$mask" != 0 ]; do
		for ((i = 10; i < 32; i++)); do m=$((1 << i)); ((mask & m)) && break; done
		len=$(((len + m - 1) & ~(m - 1)))
		for ((i = 10; i < 32; i++)); do m=$((1 << i)); ((len & (m - 1))) || mask=$((mask & ~m)); done
		head -c $((len - out)) /dev/zero | tr '\0' '\377' >>"$f"
		printf '\336\255\300\336' >>"$f"
		out=$((len + 4))
	done
}
# hexat FILE OFFSET: the 4 bytes there, as "de ad c0 de"
hexat() { od -A n -t x1 -j "$2" -N 4 "$1" | tr -s ' ' | sed 's/^ //; s/ $//'; }
W=$T/openwrt-nor.bin
head -c 65536 /dev/urandom >"$W" # the kernel, a stand-in
head -c $((EB - 65536)) /dev/zero >>"$W"
cat "$OUTDIR/rootfs.squashfs" >>"$W"
SQEND=$(stat -c %s "$W")
padjffs2 "$W" 4 8 16 64 128 256
DSTART=$(((SQEND + EB - 1) / EB * EB)) # mtdsplit: the first eraseblock after the squashfs
mkdir -p "$T/old/upper/root"
echo stale >"$T/old/upper/root/persist"
mkfs.jffs2 -l -e 128KiB -p -r "$T/old" -o "$T/old.jffs2"
R=$T/nor-rootfs.img
D=$T/nor-data.img
head -c "$DSTART" "$W" | tail -c +$((EB + 1)) >"$R"
erased "$D" 4M
tail -c +$((DSTART + 1)) "$W" | dd of="$D" conv=notrunc status=none
dd if="$T/old.jffs2" of="$D" bs="$EB" seek=$(($(stat -c %s "$W") / EB - DSTART / EB + 1)) conv=notrunc status=none
NOR=(--mtd '/dev/vdb,128KiB,rootfs' --mtd '/dev/vdc,128KiB,rootfs_data' --disk "$D"
	--append 'union.lower=mtd:rootfs union.upper=mtd:rootfs_data')
if [ "$(hexat "$D" 0)" = "de ad c0 de" ] && [ "$(hexat "$W" "$DSTART")" = "de ad c0 de" ]; then
	pass "OpenWrt's image puts the end-of-image marker at the head of rootfs_data"
else
	fail "OpenWrt's image puts the end-of-image marker at the head of rootfs_data" "$(hexat "$D" 0) at 0x$(printf %x "$DSTART")"
fi
# a power cut while the first boot erases rootfs_data: the test initramfs
# stops dead once every block but the marker's is erased
boot "$T/r0.log" "$R" 'echo MARK-survived-the-cut' "${NOR[@]}" --initrd "$OUTDIR/initramfs-test.cpio.gz" \
	--append union.test.crashafter=flasherase || true
expect "the first boot on OpenWrt's NOR image stops dead in its erase" "$T/r0.log" \
	'test crash point: stopping dead after step "flasherase"'
expect_not "the cut boot goes no further" "$T/r0.log" '^MARK-survived-the-cut' "it went on"
if [ "$(hexat "$D" 0)" = "de ad c0 de" ] && [ "$(tail -c +$((EB + 1)) "$D" | tr -d '\377' | wc -c)" = 0 ]; then
	pass "the cut leaves the marker in place, the blocks behind it erased"
else
	fail "the cut leaves the marker in place, the blocks behind it erased" \
		"head $(hexat "$D" 0), $(tail -c +$((EB + 1)) "$D" | tr -d '\377' | wc -c) bytes not erased behind it"
fi
if boot "$T/r1.log" "$R" 'echo "MARK-before=$(cat /root/persist 2>/dev/null)"; '"$(change_root openwrt-settings)" "${NOR[@]}" &&
	boot "$T/r2.log" "$R" "$SHOW_CHANGES" "${NOR[@]}"; then
	expect "the squashfs on mtd:rootfs is the read-only layer" "$T/r1.log" '^real-init: status: lower1=mtd:rootfs /dev/mtdblock0 squashfs '
	expect "the boot after the cut names OpenWrt's marker on rootfs_data" "$T/r1.log" \
		"mtd:rootfs_data is /dev/mtdblock1 \\(mtd1\\) with OpenWrt's end-of-image marker \\(de ad c0 de\\) at 0x0: blank from there on"
	expect "and erases the whole partition" "$T/r1.log" \
		"writable branch /dev/mtdblock1: erased 32 eraseblocks from OpenWrt's end-of-image marker at 0x0 on; it mounts as jffs2"
	expect "rootfs_data is then the persistent jffs2 branch" "$T/r1.log" '^real-init: status: upper_state=persistent on /dev/mtdblock1 \(jffs2\)'
	expect "NOR with an initramfs runs on an overlay root" "$T/r1.log" '^real-init: root: overlay / overlay rw'
	expect "settings on the NOR's jffs2 survive a reboot" "$T/r2.log" '^MARK-persist=openwrt-settings'
	expect "a deletion on the NOR's jffs2 stays deleted" "$T/r2.log" '^MARK-factory-gone'
	expect "the second boot finds jffs2, not the marker" "$T/r2.log" 'mtd:rootfs_data is /dev/mtdblock1 \(mtd1, jffs2\)'
	expect "the first boot finds no settings on rootfs_data" "$T/r1.log" '^MARK-before=$'
	expect_not "the earlier firmware's settings behind the marker never come back" "$T/r1.log" \
		'^MARK-before=stale' "the jffs2 behind the marker was mounted"
else
	fail "OpenWrt's NOR image boots with an initramfs" "no clean boot (see $T/r0.log, $T/r1.log, $T/r2.log)"
	keep_log "$T/r0.log" "$T/r1.log" "$T/r2.log"
fi

# --- NOR after a sysupgrade that kept the configuration --------------------------
# OpenWrt's sysupgrade -c: the configuration as a tar.gz of the paths it
# keeps (tar czf -T of absolute paths: the members have no leading /), then
# mtd -j writes the new image and, where its first end-of-image marker
# would be, a jffs2 holding sysupgrade.tgz, the marker in the next
# eraseblock. Behind it rootfs_data still holds the branch the earlier
# boots used (settings "openwrt-settings"). The first boot erases from the
# marker on, finds the archive at the jffs2's top and no control state, and
# (union.upgrade=keep) moves it into upper/: the root's /sysupgrade.tgz,
# which OpenWrt's preinit unpacks. Here the preinit runs with
# dist/openwrt's shim installed in the guest, under its busybox sh.
DIST=$ROOT_DIR/dist/openwrt/files
# the shim's other side, on the host: a root unionroot did not build
if out=$(UNIONROOT_LIB=$DIST/lib/unionroot UNIONROOT_RUN=$T/no-unionroot busybox sh -c \
	'do_mount_root() { echo fstools-mount-root; }; . "$1"; do_mount_root' sh \
	"$DIST/lib/preinit/80_mount_root_unionroot" 2>&1) && [ "$out" = fstools-mount-root ]; then
	pass "without unionroot's status the preinit shim leaves OpenWrt's mount_root step alone"
else
	fail "without unionroot's status the preinit shim leaves OpenWrt's mount_root step alone" "$out"
fi
out=$(UNIONROOT_LIB=$DIST/lib/unionroot UNIONROOT_RUN=$T/no-unionroot busybox sh \
	"$DIST/usr/libexec/unionroot-factoryreset" -y 2>&1)
case $out in
*"unionroot did not build this root and /sbin/factoryreset is missing"*)
	pass "without unionroot's status the reset shim hands over to fstools' command" ;;
*) fail "without unionroot's status the reset shim hands over to fstools' command" "$out" ;;
esac
mkdir -p "$T/conf/etc/config" "$T/conf/etc/dropbear" "$T/upgrade"
printf "config interface 'lan'\n\toption ipaddr '192.168.7.1'\n" >"$T/conf/etc/config/network"
echo ssh-ed25519-kept-key >"$T/conf/etc/dropbear/authorized_keys"
# an older firmware's passwd: its own user, and not the image's root
printf 'saved:x:1000:1000:saved:/home/saved:/bin/sh\n' >"$T/conf/etc/passwd"
printf '/etc/config/network\n/etc/dropbear/authorized_keys\n/etc/passwd\n' | sed 's|^/||' >"$T/conffiles"
tar -C "$T/conf" -czf "$T/upgrade/sysupgrade.tgz" -T "$T/conffiles"
mkfs.jffs2 -l -e 128KiB -p -r "$T/upgrade" -o "$T/upgrade.jffs2"
JBLOCKS=$(($(stat -c %s "$T/upgrade.jffs2") / EB))
dd if="$T/upgrade.jffs2" of="$D" conv=notrunc status=none
{ printf '\336\255\300\336'; head -c $((EB - 4)) /dev/zero | tr '\0' '\377'; } |
	dd of="$D" bs="$EB" seek="$JBLOCKS" conv=notrunc status=none
# the guest: dist/openwrt's files at their places, OpenWrt's preinit in
# outline (every /lib/preinit file sourced, then the preinit_main hooks;
# 80_mount_root's step stands in, calling fstools' mount_root, which this
# root lacks), then the reset commands
shim_file() { printf 'mkdir -p %s\ncat >%s <<'"'"'SHIM_EOF'"'"'\n%s\nSHIM_EOF\n' "${2%/*}" "$2" "$(cat "$1")"; }
{
	echo 'echo "MARK-archive=$(ls /sysupgrade.tgz 2>/dev/null)"'
	echo 'echo "MARK-leftover=$(cat /root/persist 2>/dev/null)"'
	shim_file "$DIST/lib/unionroot/openwrt.sh" /lib/unionroot/openwrt.sh
	shim_file "$DIST/lib/preinit/80_mount_root_unionroot" /lib/preinit/80_mount_root_unionroot
	shim_file "$DIST/usr/libexec/unionroot-factoryreset" /usr/libexec/unionroot-factoryreset
	cat <<'EOF'
chmod 755 /usr/libexec/unionroot-factoryreset
for c in firstboot jffs2reset factoryreset; do ln -sf ../libexec/unionroot-factoryreset /usr/sbin/$c; done
cat >/lib/preinit/80_mount_root <<'STEP_EOF'
do_mount_root() { mount_root; echo "MARK-fstools-step-ran"; }
boot_hook_add preinit_main do_mount_root
STEP_EOF
(
	boot_hook_add() { eval "hooks_$1=\"\$hooks_$1 $2\""; }
	boot_run_hook() { eval "for f in \$hooks_$1; do \$f; done"; }
	for f in /lib/preinit/*; do . "$f"; done
	boot_run_hook preinit_main
) 2>&1 | sed 's/^/PREINIT: /'
echo "MARK-network=$(grep -c "option ipaddr '192.168.7.1'" /etc/config/network 2>/dev/null)"
echo "MARK-key=$(cat /etc/dropbear/authorized_keys 2>/dev/null)"
echo "MARK-users=$(cut -d: -f1 /etc/passwd | tr '\n' ' ')"
echo "MARK-archive-after=$(ls /sysupgrade.tgz 2>/dev/null)"
ls /run/unionroot/rw/upper/etc/config/network >/dev/null && echo MARK-in-branch
# union.upgrade=keeplist's side: the archive held in .unionroot/, the keep list's paths unpacked
mkdir -p /tmp/k/etc/config /etc/unionroot
echo kept >/tmp/k/etc/config/wireless
echo dropped >/tmp/k/etc/config/firewall
tar -C /tmp/k -czf /run/unionroot/rw/.unionroot/sysupgrade.tgz etc/config/wireless etc/config/firewall
printf '# kept across upgrades\n/etc/config/wireless\n' >/etc/unionroot/keep
(. /lib/unionroot/openwrt.sh; unionroot_restore_config) 2>&1 | sed 's/^/KEEPLIST: /'
echo "MARK-wireless=$(cat /etc/config/wireless 2>/dev/null) firewall=$(cat /etc/config/firewall 2>/dev/null) held=$(ls /run/unionroot/rw/.unionroot/sysupgrade.tgz 2>/dev/null)"
jffs2reset -y 2>&1 | sed 's/^/RESET: /'
/run/unionroot/bin/unionroot status | grep -i 'reset' | sed 's/^/STATUS: /'
EOF
} >"$T/upgrade.cmd"
if boot "$T/u1.log" "$R" "$(cat "$T/upgrade.cmd")" "${NOR[@]}"; then
	expect "after the upgrade rootfs_data holds the sysupgrade jffs2, then the marker" "$T/u1.log" \
		"mtd:rootfs_data is /dev/mtdblock1 \\(mtd1\\) with OpenWrt's end-of-image marker \\(de ad c0 de\\) at 0x$(printf %x $((JBLOCKS * EB))): blank from there on"
	expect "the boot places sysupgrade.tgz by union.upgrade=keep" "$T/u1.log" \
		"writable branch /dev/mtdblock1: OpenWrt's sysupgrade.tgz restored: the firmware was upgraded and union.upgrade=keep"
	expect "the root shows /sysupgrade.tgz for preinit" "$T/u1.log" '^MARK-archive=/sysupgrade.tgz$'
	expect_not "the branch behind the marker never comes back" "$T/u1.log" '^MARK-leftover=openwrt-settings' \
		"the earlier branch's settings were mounted"
	expect "the preinit shim skips fstools' mount_root" "$T/u1.log" '^PREINIT: - unionroot built the root; mount_root skipped -'
	expect_not "fstools' mount_root step never runs" "$T/u1.log" 'MARK-fstools-step-ran|PREINIT: .*mount_root: not found' \
		"OpenWrt's step ran"
	expect "the kept network configuration is in the root" "$T/u1.log" '^MARK-network=1$'
	expect "the kept key is in the root" "$T/u1.log" '^MARK-key=ssh-ed25519-kept-key$'
	expect "the saved users join the image's, which the saved passwd lacked" "$T/u1.log" '^MARK-users=saved root $'
	expect "the archive is gone once unpacked" "$T/u1.log" '^MARK-archive-after=$'
	expect "what was unpacked lives in the writable branch" "$T/u1.log" '^MARK-in-branch$'
	expect "keeplist: only the keep list's paths are unpacked from the held archive" "$T/u1.log" \
		'^MARK-wireless=kept firewall= held=$'
	expect "jffs2reset on unionroot's root asks unionroot for the reset" "$T/u1.log" '^STATUS: reset_pending[^a-z]*yes$'
else
	fail "NOR boots after a sysupgrade that kept the configuration" "no clean boot (see $T/u1.log)"
	keep_log "$T/u1.log"
fi

# --- NOR without an initramfs: mtdparts= splits one flash -----------------------
NR=$OUTDIR/rootfs-noinitrd.squashfs
if [ ! -f "$NR" ]; then
	skip "NOR without an initramfs" "$NR missing (make images BOARD=$BOARD)"
	exit 0
fi
need_kernel_builtin "NOR without an initramfs" || exit 0
F=$T/nor.img
head -c "$EB" /dev/urandom >"$F" # the kernel partition, a stand-in
padded "$NR" "$T/nor-root.part"
cat "$T/nor-root.part" >>"$F"
erased "$T/nor-data.part" 4M
cat "$T/nor-data.part" >>"$F"
PARTS="mtdparts=flash:128k(kernel),$(($(stat -c %s "$T/nor-root.part") / 1024))k(rootfs),-(rootfs_data)"
NOI=(--kernel "$BZ" --initrd none --mtd '/dev/vdb,128KiB,flash'
	--append "$PARTS root=/dev/mtdblock1 rootfstype=squashfs rootwait")
if boot "$T/p1.log" "$F" 'echo nor-pivoted >/root/persist' "${NOI[@]}" &&
	boot "$T/p2.log" "$F" 'echo "MARK-persist=$(cat /root/persist)"' "${NOI[@]}"; then
	expect "the kernel splits the flash by mtdparts=" "$T/p1.log" '3 cmdlinepart partitions found on MTD device flash'
	expect "the kernel mounts the squashfs on the rootfs partition as /" "$T/p1.log" 'VFS: Mounted root \(squashfs filesystem\) readonly'
	expect "unionroot takes the running root as the read-only layer" "$T/p1.log" '^real-init: status: lower1=/ /dev/mtdblock1 squashfs '
	expect "rootfs_data on the next partition is the writable jffs2" "$T/p1.log" '^real-init: status: upper_state=persistent on /dev/mtdblock2 \(jffs2\)'
	expect "without an initramfs, NOR settings persist" "$T/p2.log" '^MARK-persist=nor-pivoted'
else
	fail "NOR boots without an initramfs" "no clean boot (see $T/p1.log, $T/p2.log)"
	keep_log "$T/p1.log" "$T/p2.log"
fi
