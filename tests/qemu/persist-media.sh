#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# User stories of persistence files beyond tests/qemu/persist-file.sh: a file
# whose file system cannot be used (garbage, or errors fsck cannot repair)
# leaves no loop device and no writable stick behind the fallback, beside
# the live image or alone on its stick; the first boot makes a missing file
# (union.persist.size) on an exFAT stick, the next reuses it; a half-made file
# a cut left on a vfat stick is made afresh.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-persist-media || exit 0
need_tools qemu-persist-media mkfs.exfat mkfs.vfat mcopy mdir mkfs.ext4 debugfs || exit 0
scratch persist-media
ROOTFS=$OUTDIR/rootfs.squashfs
U=/run/unionroot/bin/unionroot
# what a fallback leaves: the stick's mounts and the loops' backing files
LEFTOVERS='grep "^/dev/sda " /proc/mounts | sed "s/^/MARK-mount: /"
	cat /sys/block/loop*/loop/backing_file 2>/dev/null | sed "s/^/MARK-loop: /"
	echo MARK-looked'

mkfs.ext4 -q -F "$T/persistence.img" 32M

# ---- 1. one stick, the live image beside a file of garbage ------------------
head -c 32M /dev/urandom >"$T/garbage.img"
stick "$T/live.img" LIVE 96 "$ROOTFS:/filesystem.squashfs" "$T/garbage.img:/persistence.img"
if boot "$T/1.log" none "echo hi >/root/x && echo MARK-volatile-root-writable; $LEFTOVERS" --lower none \
	--usb "$T/live.img" --append 'union.lower=LABEL=LIVE:/filesystem.squashfs union.upper=LABEL=LIVE:/persistence.img union.wait=30'; then
	expect "a persistence file holding no file system takes union.onfail" "$T/1.log" \
		'unionroot: writable branch /dev/loop[0-9]+ holds no known file system; booting with a volatile writable branch in RAM'
	expect "the live image on the same stick still boots" "$T/1.log" '^MARK-volatile-root-writable'
	expect "the stick stays mounted for the live image, back to read-only" "$T/1.log" \
		'^MARK-mount: /dev/sda /run/unionroot/media/[0-9]+ vfat ro,'
	expect_not "the failed file's loop is detached" "$T/1.log" '^MARK-loop: .*persistence.img' \
		"a loop device still reads the unusable file"
	expect_not "the stick is not left read-write behind the fallback" "$T/1.log" '^MARK-mount: /dev/sda .* rw,' \
		"the stick is still mounted read-write"
else
	fail "an unusable persistence file beside the live image" "no clean boot (see $T/1.log)"
	keep_log "$T/1.log"
fi

# the flash board carries mkfs.ext4 and e2fsck
BOARD=qemu-x86_64-flash
OUTDIR=$BUILD/$BOARD
need_qemu qemu-persist-media-flash || exit 0

# ---- 2. an exFAT stick: the first boot makes the file, the next reuses it --
# (no host tool writes files into exFAT without the host kernel's module:
# the boot makes the file itself). A half-made file of a cut is no branch.
rm -f "$T/exfat.img"
truncate -s 96M "$T/exfat.img"
mkfs.exfat -L STICK "$T/exfat.img" >/dev/null
EX=(--usb "$T/exfat.img" --append 'union.upper=LABEL=STICK:/persistence.img union.persist.size=48M union.wait=30')
if boot "$T/2a.log" none "$(change_root kept-on-exfat)
	$U plan | sed 's/^/PLAN: /'
	grep '^/dev/sda ' /proc/mounts | sed 's/^/MARK-sda: /'" "${EX[@]}" &&
	boot "$T/2b.log" none "$SHOW_CHANGES
		ls -ln /run/unionroot/media/*/ | sed 's/^/MARK-ls: /'" "${EX[@]}"; then
	expect "an exFAT stick is recognised by its superblock" "$T/2a.log" \
		'unionroot: writable branch: LABEL=STICK:/persistence.img is /dev/sda \(exfat, label STICK'
	expect "a missing persistence file is made at the first boot, its size as asked" "$T/2a.log" \
		'unionroot: writable branch: persistence file /persistence.img on /dev/sda is missing; making it, 48M as ext4'
	expect "the made file is formatted and goes on a read-write loop" "$T/2a.log" \
		'unionroot: writable branch: image /persistence.img on /dev/sda is /dev/loop[0-9]+ \(ext4, read-write'
	expect "unionroot plan shows the decision" "$T/2a.log" \
		'^PLAN: persistence +/persistence.img: made at boot when missing, 48M as ext4 \(union.persist.size\)'
	expect "the exFAT stick is mounted read-write, nodev, nosuid, noexec, utf8" "$T/2a.log" \
		'^MARK-sda: /dev/sda /run/unionroot/media/[0-9]+ exfat rw,nosuid,nodev,noexec,noatime,.*iocharset=utf8'
	expect "changes persist in the made file on the exFAT stick" "$T/2b.log" '^MARK-persist=kept-on-exfat'
	expect "a file deleted from the image stays deleted" "$T/2b.log" '^MARK-factory-gone'
	expect "the next boot reuses the file" "$T/2b.log" \
		'unionroot: writable branch: image /persistence.img on /dev/sda is /dev/loop[0-9]+ \(ext4, read-write'
	expect_not "the next boot does not make a second one" "$T/2b.log" 'is missing; making it' "the file was made a second time"
	expect "the file has the size asked for, under its name" "$T/2b.log" '^MARK-ls: .* 50331648 .* persistence.img$'
	expect_not "no temporary file is left on the stick" "$T/2b.log" '^MARK-ls: .*unionroot-new' \
		"the temporary file is still there"
else
	fail "a persistence file made at the first boot on an exFAT stick" "no clean boot (see $T/2a.log, $T/2b.log)"
	keep_log "$T/2a.log" "$T/2b.log"
fi

# ---- 3. a vfat stick with a half-made file of a cut: it is made afresh -----
head -c 1M /dev/urandom >"$T/half.img"
stick "$T/stick.img" STICK 96 "$T/half.img:/persistence.img.unionroot-new"
if boot "$T/3.log" none "$(change_root kept-on-vfat)" --usb "$T/stick.img" \
	--append 'union.upper=LABEL=STICK:/persistence.img union.persist.size=32M union.wait=30'; then
	expect "on a vfat stick the missing file is made" "$T/3.log" \
		'unionroot: writable branch: persistence file /persistence.img on /dev/sda made in [0-9]+ ms'
	mdir -i "$T/stick.img" -b :: >"$T/3.dir" 2>&1
	expect "the made file is on the stick under its name" "$T/3.dir" '^::/persistence.img$'
	expect_not "the half-made file of the cut is gone" "$T/3.dir" 'unionroot-new' \
		"the temporary file is still there"
else
	fail "a persistence file made on a vfat stick" "no clean boot (see $T/3.log)"
	keep_log "$T/3.log"
fi

# ---- 4. a file whose ext4 fsck cannot repair --------------------------------
cp "$T/persistence.img" "$T/broken.img"
# the root inode gone and the errors flag set: e2fsck -p gives up (exit 4)
printf 'clri <2>\nssv state 2\n' | debugfs -w -f - "$T/broken.img" >/dev/null 2>&1
stick "$T/stick.img" STICK 64 "$T/broken.img:/persistence.img"
if boot "$T/4.log" none "echo hi >/root/x && echo MARK-volatile-root-writable; $LEFTOVERS" \
	--usb "$T/stick.img" --append 'union.upper=LABEL=STICK:/persistence.img union.wait=30'; then
	expect "errors fsck cannot repair in the file take union.onfail" "$T/4.log" \
		'unionroot: writable branch /dev/loop[0-9]+ \(ext4\): /sbin/e2fsck found errors it cannot repair.*; booting with a volatile writable branch in RAM'
	expect "the volatile root takes writes" "$T/4.log" '^MARK-volatile-root-writable'
	expect "the guest looked for leftovers" "$T/4.log" '^MARK-looked'
	expect_not "the failed file's loop is detached" "$T/4.log" '^MARK-loop: .*persistence\.img' \
		"a loop device still reads the file"
	expect_not "the stick is unmounted" "$T/4.log" '^MARK-mount: ' "the stick is still mounted"
else
	fail "a persistence file fsck cannot repair" "no clean boot (see $T/4.log)"
	keep_log "$T/4.log"
fi
