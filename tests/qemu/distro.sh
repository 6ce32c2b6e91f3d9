#!/bin/bash
# SPDX-License-Identifier: MIT
# Inside a distribution's own initramfs: Debian's initramfs-tools builds
# the initramfs (update-initramfs, in a Debian bookworm with the board's
# kernel package) with unionroot's hook, and boot=unionroot's mountroot()
# runs `unionroot mount-root --at /root`; initramfs-tools' udev, its
# local-top scripts and its switch (run-init) do the rest. The stories:
# persistence over two boots, `unionroot reset` and union.reset=1, a live
# ISO on an AHCI DVD, a verified layer and a tampered one, a missing and a
# damaged branch going to union.onfail, the status and plan in the shape
# of the PID-1 mode's, and a stock boot of the same initramfs untouched.
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# In the guest of tests/hostvm.sh (this machine's kernel has no
# device-mapper): the ext4 inside the LUKS container on vda, as a user
# makes it once before listing the container in crypttab; $1 its passphrase.
if [ "${HOSTVM:-}" = 1 ]; then
	printf %s "$1" | cryptsetup open --key-file - /dev/vda data &&
		mkfs.ext4 -q -F -L data /dev/mapper/data && cryptsetup close data
	exit
fi
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/hostvm.sh
source "$TESTS_DIR/hostvm.sh"
need_qemu qemu-distro || exit 0
if ! command -v debootstrap >/dev/null; then
	skip "qemu-distro: Debian's initramfs-tools" "debootstrap not installed"
	exit 0
fi
need_tools qemu-distro mksquashfs unsquashfs xorriso veritysetup debugfs || exit 0
if ! "$ROOT_DIR/tests/distro-root" "$OUTDIR" "$BUILD" initramfs-tools >"$BUILD/tests/distro-root.log" 2>&1; then
	if grep -qiE 'resolve|connect|download|Failed getting release|Temporary failure' "$BUILD/tests/distro-root.log" "$OUTDIR"/distro-initramfs-tools.log 2>/dev/null; then
		skip "qemu-distro: Debian's initramfs-tools" "the Debian mirror cannot be reached (see $BUILD/tests/distro-root.log)"
	else
		fail "qemu-distro: a Debian root with initramfs-tools is built" "see $BUILD/tests/distro-root.log"
	fi
	exit 0
fi
scratch distro

# Debian's update-initramfs with the installed hook and script (rebuilt
# when the binary or the glue changed)
if ! INITRD=$("$ROOT_DIR/tests/distro-initrd" "$OUTDIR" "$BUILD" initramfs-tools 2>"$T/initrd.log"); then
	fail "update-initramfs builds the initramfs with the hook" "$(tail -n 3 "$T/initrd.log" | tr '\n' '|')"
	exit 0
fi
listing=$("$ROOT_DIR/tools/initramfs-cat" "$INITRD" | cpio -t 2>/dev/null)
if grep -qx usr/sbin/unionroot <<<"$listing" && grep -qx scripts/unionroot <<<"$listing" &&
	grep -q '/overlay\.ko' <<<"$listing"; then
	pass "Debian's update-initramfs carries unionroot, boot=unionroot's script and overlayfs"
else
	fail "Debian's update-initramfs carries unionroot" "the binary, scripts/unionroot or overlay.ko is missing from $INITRD"
fi

ITOOLS=(--initrd "$INITRD" --timeout 150)
HOSTED='boot=unionroot union.lower=/dev/vda'
# the keys every status has (not the optional ones: messages, the tools that
# ran, the hand-off's cost, which is the host's in mount-root)
status_keys() {
	sed -n 's/^real-init: status: \([a-z0-9_]*\)=.*/\1/p' "$1" |
		grep -vxE 'mode|message|tools|fsck_ms|handoff_ms' | tr '\n' ' '
}

# 1. persistence over two boots, the status and plan, `unionroot reset`
new_data "$T/data.img"
if boot "$T/1.log" "$T/data.img" "$(change_root mount-root)"'
	/run/unionroot/bin/unionroot plan >/tmp/plan; echo "MARK-plan-rc=$?"
	sed -n "/^--- plan/,\$p" /tmp/plan | tail -n +2 >/tmp/plan.cmd
	if cmp -s /tmp/plan.cmd /run/unionroot/plan; then echo MARK-plan-same; else diff /tmp/plan.cmd /run/unionroot/plan; fi
	grep "leave it for the host to switch" /run/unionroot/plan | sed "s/^/MARK-last: /"' \
	"${ITOOLS[@]}" --append "$HOSTED union.upper=LABEL=data"; then
	expect "initramfs-tools' mountroot() runs mount-root" "$T/1.log" 'unionroot: the union is at /root on overlay root, for the host to switch; mount-root took [0-9]+ ms'
	expect "the status says mount-root" "$T/1.log" '^real-init: status: mode=mount-root /root$'
	expect "the root is the overlay over the branch" "$T/1.log" '^real-init: status: upper_state=persistent on /dev/vdb \(ext4\)'
	expect "the branch is checked with the e2fsck the hook carried" "$T/1.log" 'writable branch /dev/vdb: /sbin/e2fsck: clean'
	expect "the runtime copy runs from /run (noexec there)" "$T/1.log" '^MARK-plan-rc=0'
	expect "unionroot plan in the real root is the boot's own" "$T/1.log" '^MARK-plan-same'
	expect "the plan's last step leaves the union to the host" "$T/1.log" '^MARK-last: .*leave it for the host to switch: /root'
	expect_not "initramfs-tools switched without complaint" "$T/1.log" 'run-init:|No init found|Target filesystem doesn'
else
	fail "qemu-distro: boot 1" "no boot (see $T/1.log)"
	keep_log "$T/1.log"
fi
if boot "$T/2.log" "$T/data.img" 'cat /root/persist | sed "s/^/MARK-persist=/"
	/run/unionroot/bin/unionroot reset --yes >/dev/null && echo MARK-requested' \
	"${ITOOLS[@]}" --append "$HOSTED union.upper=LABEL=data"; then
	expect "a change survives the reboot" "$T/2.log" '^MARK-persist=mount-root'
	expect "unionroot reset is accepted" "$T/2.log" '^MARK-requested'
else
	fail "qemu-distro: boot 2" "no boot (see $T/2.log)"
fi
if boot "$T/3.log" "$T/data.img" "$(reset_probe 0)
	$(change_root second)" "${ITOOLS[@]}" --append "$HOSTED union.upper=LABEL=data" &&
	boot "$T/4.log" "$T/data.img" "$(reset_probe 0)" "${ITOOLS[@]}" --append "$HOSTED union.upper=LABEL=data union.reset=1"; then
	expect "unionroot reset gives the factory state at the next boot" "$T/3.log" '^MARK-state=factory'
	expect "union.reset=1 gives the factory state" "$T/4.log" '^MARK-state=factory'
	expect "union.reset=1 is said in the status" "$T/4.log" '^real-init: status: reset=applied'
else
	fail "qemu-distro: the resets" "no boot (see $T/3.log, $T/4.log)"
fi

# 2. the status in the shape of PID 1's own (the board's initramfs)
new_data "$T/pid1.img"
if boot "$T/pid1.log" "$T/pid1.img" 'true' --append "union.upper=LABEL=data"; then
	a=$(status_keys "$T/pid1.log") b=$(status_keys "$T/1.log")
	if [ -n "$a" ] && [ "$a" = "$b" ]; then
		pass "the status has the keys of the PID-1 mode's, in its order"
	else
		fail "the status has the keys of the PID-1 mode's" "PID 1: $a; mount-root: $b"
	fi
	expect "PID 1's own status says so" "$T/pid1.log" '^real-init: status: mode=initramfs$'
fi

# 3. a live ISO on an AHCI DVD, found by union.lower=auto
mkdir -p "$T/iso/live"
cp "$OUTDIR/rootfs.squashfs" "$T/iso/live/filesystem.squashfs"
xorriso -as mkisofs -quiet -V LIVE -J -R -o "$T/live.iso" "$T/iso" 2>/dev/null
rm -rf "$T/iso"
if boot "$T/iso.log" none 'true' "${ITOOLS[@]}" --lower none --attach "sata-cd:$T/live.iso" \
	--append "boot=unionroot union.lower=auto union.upper=tmpfs"; then
	expect "a live ISO on an AHCI DVD: union.lower=auto finds its image" "$T/iso.log" '^real-init: status: lower1_image=/dev/sr0:/live/filesystem.squashfs'
	expect "the live root is an overlay over RAM" "$T/iso.log" '^real-init: status: upper=tmpfs'
else
	fail "qemu-distro: live ISO on AHCI" "no boot (see $T/iso.log)"
	keep_log "$T/iso.log"
fi

# 4. a verified layer, and a tampered one refused (the boot reboots,
# never the host's shell: a root shell is what swapping the image is after)
# shellcheck source=tests/verity-images.sh
source "$ROOT_DIR/tests/verity-images.sh"
if verity_images "$OUTDIR/rootfs.squashfs"; then
	if boot "$T/v.log" none 'md5sum /verity-probe | sed "s/^/MARK-sum=/"' "${ITOOLS[@]}" --lower "$T/good.img" \
		--append "$HOSTED union.upper=tmpfs union.verity=$ROOT"; then
		expect "a verified layer under initramfs-tools" "$T/v.log" '^real-init: status: lower1_verity=verified'
		expect "its data reads right" "$T/v.log" "^MARK-sum=$SUM"
	else
		fail "qemu-distro: verified layer" "no boot (see $T/v.log)"
	fi
	# (its console shows dm-verity's "corrupted" lines, which boot() reports)
	boot "$T/vbad.log" none 'true' "${ITOOLS[@]}" --lower "$T/good.img" \
		--append "$HOSTED union.upper=tmpfs union.verity=$WRONG" 2>/dev/null || true
	expect "a wrong root hash is refused" "$T/vbad.log" 'verity refused it'
	expect_not "the refused layer never boots, nor gives a shell" "$T/vbad.log" '^real-init: started|\(initramfs\)'
fi

# 5. a missing branch takes union.onfail=tmpfs; a damaged one with
# union.onfail=shell ends mount-root with 1, and initramfs-tools panics
if boot "$T/miss.log" "$T/data.img" 'true' "${ITOOLS[@]}" --append "$HOSTED union.upper=LABEL=nosuch union.wait=3"; then
	expect "a missing branch: a volatile root" "$T/miss.log" '^real-init: status: upper_state=volatile'
	expect "and why" "$T/miss.log" 'unionroot: .*LABEL=nosuch.*not found'
else
	fail "qemu-distro: missing branch" "no boot (see $T/miss.log)"
fi
if ! damaged_ext4 "$T/bad.img"; then
	fail "qemu-distro" "the damaged image is clean to e2fsck -n on the host: the test is void"
	exit 0
fi
boot "$T/bad.log" "$T/bad.img" 'true' "${ITOOLS[@]}" --append "$HOSTED union.upper=LABEL=data union.onfail=shell" || true
expect "a damaged branch is refused" "$T/bad.log" 'writable branch /dev/vdb \(ext4\): /sbin/e2fsck found errors it cannot repair'
expect "union.onfail=shell: mount-root exits 1" "$T/bad.log" 'mount-root gives up \(exit 1\), the host.s initramfs takes over'
expect "initramfs-tools' panic follows" "$T/bad.log" 'unionroot could not mount the union root'
expect_not "nothing boots on the damaged branch" "$T/bad.log" '^real-init: started'

# 6. the same initramfs without boot=unionroot: a stock root= boot
unsquashfs -q -d "$T/rootdir" "$OUTDIR/rootfs.squashfs" >/dev/null
truncate -s 64M "$T/stock.img"
mkfs.ext4 -q -F -d "$T/rootdir" "$T/stock.img"
rm -rf "$T/rootdir"
if boot "$T/stock.log" "$T/stock.img" 'test -e /run/unionroot/status && echo MARK-unionroot-ran; echo MARK-stock' \
	"${ITOOLS[@]}" --lower none --append "root=/dev/vda rw"; then
	expect "a stock root= boot of the same initramfs reaches its init" "$T/stock.log" '^MARK-stock'
	expect_not "unionroot stays out of it" "$T/stock.log" '^MARK-unionroot-ran|unionroot:'
else
	fail "qemu-distro: stock boot" "no boot (see $T/stock.log)"
	keep_log "$T/stock.log"
fi

# 7. LUKS, the host's job: cryptsetup-initramfs opens a crypttab device
# ("initramfs" option) in local-top, its passphrase typed at its own
# prompt, before mountroot() runs mount-root, which takes the opened device
# (its ext4 made once, as a user does) as the branch
LUKS_UUID=0f3c7e2a-5b1d-4e8f-9a6b-1c2d3e4f5a6b
PASSPHRASE=union-luks-test
rm -f "$T/luks.img"
truncate -s 64M "$T/luks.img"
printf %s "$PASSPHRASE" | cryptsetup luksFormat --type luks2 --batch-mode --uuid "$LUKS_UUID" \
	--pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-file=- "$T/luks.img"
if ! HOSTVM_DISK=$T/luks.img host_vm "virtio_blk dm-crypt xts" "$0" "$PASSPHRASE" >"$T/hostvm.log" 2>&1; then
	fail "an ext4 is made inside the container" "$(tail -3 "$T/hostvm.log" | tr '\n' ' ')"
	exit 0
fi
if ! LUKS_INITRD=$("$ROOT_DIR/tests/distro-initrd" "$OUTDIR" "$BUILD" initramfs-tools \
	"data UUID=$LUKS_UUID none luks,initramfs" 2>"$T/luks-initrd.log"); then
	fail "mkinitramfs with a crypttab device" "$(tail -n 3 "$T/luks-initrd.log" | tr '\n' '|')"
	exit 0
fi
LUKS=(--initrd "$LUKS_INITRD" --timeout 150 --keys "$PASSPHRASE" --keys-at 'Please unlock disk data'
	--append "$HOSTED union.upper=/dev/mapper/data")
if boot "$T/luks1.log" "$T/luks.img" "$(change_root luks)" "${LUKS[@]}" &&
	boot "$T/luks2.log" "$T/luks.img" 'cat /root/persist | sed "s/^/MARK-persist=/"' "${LUKS[@]}"; then
	expect "cryptsetup-initramfs opens the crypttab device before mount-root" "$T/luks1.log" 'cryptsetup: data: set up successfully'
	expect "unionroot takes the opened device as its branch" "$T/luks1.log" '^real-init: status: upper=/dev/mapper/data /dev/dm-0 ext4'
	expect "the LUKS branch is persistent" "$T/luks1.log" '^real-init: status: upper_state=persistent on /dev/dm-0 \(ext4\)'
	expect "a change on it survives the reboot" "$T/luks2.log" '^MARK-persist=luks'
else
	fail "qemu-distro: LUKS branch opened by cryptsetup-initramfs" "no boot (see $T/luks1.log, $T/luks2.log)"
	keep_log "$T/luks1.log"
fi
