#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# User stories of an encrypted persistence: a USB stick that is a LUKS2
# container labelled persistence, holding an ext4, on the PC board (whose
# initramfs carries no cryptsetup: the image's runs). Opened with a key file
# on another medium, with the right passphrase typed on the serial console,
# refused after three wrong ones (union.onfail, the container closed); a
# reset inside it, and a power cut in the middle of one.
# In the guest of tests/hostvm.sh (this machine's kernel has no
# device-mapper): the ext4 inside the container on vda, through dm-crypt;
# $1 its key (the guest's /tmp is its own).
if [ "${HOSTVM:-}" = 1 ]; then
	printf %s "$1" | cryptsetup open --key-file - /dev/vda unionroot-test-luks &&
		mkfs.ext4 -q -F /dev/mapper/unionroot-test-luks &&
		cryptsetup close unionroot-test-luks
	exit
fi
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/hostvm.sh
source "$TESTS_DIR/hostvm.sh"
need_qemu qemu-luks || exit 0
need_root qemu-luks || exit 0
need_tools qemu-luks cryptsetup mkfs.ext4 mkfs.vfat mcopy unsquashfs mksquashfs ldd || exit 0
scratch luks
U=/run/unionroot/bin/unionroot
TEST_INITRD=$OUTDIR/initramfs-test.cpio.gz
"$TESTS_DIR/tools-image" "$OUTDIR/rootfs.squashfs" "$T/tools.squashfs"

# The container: LUKS2 with a cheap key derivation (a test guest has 512 MiB;
# cryptsetup's default argon2id would ask for more), the ext4 made inside it
# through dm-crypt in a guest of the build's kernel.
truncate -s 64M "$T/stick.img"
printf secret >"$T/key"
if ! cryptsetup luksFormat -q --type luks2 --label persistence --pbkdf pbkdf2 \
	--pbkdf-force-iterations 1000 --key-file "$T/key" "$T/stick.img" >"$T/format.log" 2>&1; then
	fail "cryptsetup luksFormat makes the container" "$(tail -1 "$T/format.log")"
	exit 0
fi
if ! HOSTVM_DISK=$T/stick.img host_vm "virtio_blk dm-crypt xts" "$0" "$(cat "$T/key")" >"$T/hostvm.log" 2>&1; then
	fail "an ext4 is made inside the container" "$(tail -3 "$T/hostvm.log" | tr '\n' ' ')"
	exit 0
fi
stick "$T/keys.img" KEYS 16 "$T/key:/keys/stick.key"

IMAGE=(--lower "$T/tools.squashfs" --usb "$T/stick.img")
KEYED='union.upper=LABEL=persistence:key=LABEL=KEYS:/keys/stick.key union.scan=removable union.wait=30'
ASKED='union.upper=LABEL=persistence union.scan=removable union.wait=30'
PROMPT='passphrase for LUKS container'
PLAN_LINE='sed -n "s/^unlock /MARK-plan: &/p" /run/unionroot/plan'
DM='echo "MARK-dm=$(ls /sys/block | grep -c "^dm-")"'

# 1. a key file on another medium
if boot "$T/1.log" "$T/keys.img" "$(change_root in-the-container); $PLAN_LINE" "${IMAGE[@]}" \
	--append "$KEYED"; then
	expect "key file: the container is opened with the image's cryptsetup" "$T/1.log" \
		'unionroot: /sbin/cryptsetup: none in this initramfs; running read-only layer 1.s own'
	expect "key file: the opened container is the writable branch" "$T/1.log" \
		'^real-init: status: upper_state=persistent on /dev/dm-0 \(ext4\)'
	expect "key file: the plan names the container and the key" "$T/1.log" \
		'^MARK-plan: unlock +LUKS container /dev/sda, with the key file LABEL=KEYS:/keys/stick.key'
else
	fail "a LUKS branch opened with a key file" "no clean boot (see $T/1.log)"
	keep_log "$T/1.log"
fi

# 2. the passphrase, typed on the serial console
if boot "$T/2.log" none "$SHOW_CHANGES; $U reset --yes >/dev/null && echo MARK-requested" "${IMAGE[@]}" \
	--keys-at "$PROMPT" --keys secret --append "$ASKED"; then
	expect "passphrase: it is asked for on the serial console" "$T/2.log" \
		"unionroot: $PROMPT /dev/sda \\(try 1 of 3\\)"
	expect "passphrase: the right one opens it" "$T/2.log" \
		'^real-init: status: upper_state=persistent on /dev/dm-0 \(ext4\)'
	expect "passphrase: the change of the key file's boot is in it" "$T/2.log" '^MARK-persist=in-the-container'
	expect "passphrase: a reset is asked for inside the container" "$T/2.log" '^MARK-requested'
	expect_not "passphrase: it is never echoed" "$T/2.log" "$PROMPT.*secret" "the passphrase shows"
else
	fail "a LUKS branch opened with a passphrase" "no clean boot (see $T/2.log)"
	keep_log "$T/2.log"
fi

# 3. the reset, applied inside the container
if boot "$T/3.log" "$T/keys.img" "$SHOW_CHANGES; $(change_root before-the-cut)" "${IMAGE[@]}" \
	--append "$KEYED"; then
	expect "reset inside the container: the change is gone" "$T/3.log" '^MARK-persist=$'
	expect "reset inside the container: the image's file is back" "$T/3.log" '^MARK-factory-back'
else
	fail "a reset inside a LUKS branch" "no clean boot (see $T/3.log)"
	keep_log "$T/3.log"
fi

# 4. three wrong passphrases: union.onfail, and the container closed
if boot "$T/4.log" none "$DM; echo x >/root/x && echo MARK-volatile-writable" "${IMAGE[@]}" \
	--keys-at "$PROMPT" --keys wrong --append "$ASKED"; then
	expect "three wrong passphrases: each is said" "$T/4.log" \
		"unionroot: $PROMPT /dev/sda \\(try 3 of 3\\)"
	expect "three wrong passphrases: union.onfail's volatile branch" "$T/4.log" \
		'^real-init: status: upper_state=volatile: writable branch: opening LUKS container /dev/sda failed: no passphrase in 3 tries opened it'
	expect "three wrong passphrases: no device-mapper device is left" "$T/4.log" '^MARK-dm=0$'
	expect "three wrong passphrases: the volatile root takes writes" "$T/4.log" '^MARK-volatile-writable'
else
	fail "three wrong passphrases" "no clean boot (see $T/4.log)"
	keep_log "$T/4.log"
fi

# 5. a power cut in the middle of a reset inside the container: the next
#    boot finishes it
if boot "$T/5a.log" "$T/keys.img" "$(change_root before-the-cut)" "${IMAGE[@]}" --append "$KEYED"; then
	boot "$T/5b.log" "$T/keys.img" 'sleep 5; echo MARK-survived-the-cut' "${IMAGE[@]}" \
		--initrd "$TEST_INITRD" --append "$KEYED union.reset=1 union.test.crashafter=aside" || true
	expect "a cut reset inside the container stops dead after aside" "$T/5b.log" \
		'test crash point: stopping dead after step "aside"'
	expect_not "the cut boot goes no further" "$T/5b.log" '^MARK-survived-the-cut' "it went on"
	if boot "$T/5c.log" "$T/keys.img" "$SHOW_CHANGES" "${IMAGE[@]}" --append "$KEYED"; then
		expect "after the cut, the reset is finished: the change is gone" "$T/5c.log" '^MARK-persist=$'
		expect "after the cut, the image's file is back" "$T/5c.log" '^MARK-factory-back'
		expect "after the cut, the container is the branch" "$T/5c.log" \
			'^real-init: status: upper_state=persistent on /dev/dm-0 \(ext4\)'
	else
		fail "the boot after a cut reset inside a LUKS branch" "no clean boot (see $T/5c.log)"
	fi
else
	fail "the boot before a cut reset" "no clean boot (see $T/5a.log)"
fi
keep_log "$T/1.log" "$T/2.log" "$T/4.log" "$T/5b.log" "$T/5c.log"
