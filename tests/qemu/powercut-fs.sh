#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# Power cuts beyond powercut.sh's ext4 and jffs2 series: random cuts during a
# reset on f2fs and on ubifs; a cut right after `unionroot reset` returned
# (the next boot resets); cuts during union.format='s first-boot formatting
# (the next boot formats anew or finds the finished file system, never
# refuses the branch for good) and during the copy-up backend's first copy
# (the next boot finishes it: the root equals the image). Disks are
# cache=none, so no write of the guest waits in the host's page cache.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
HERE=$(dirname "$0")
scratch powercut-fs
CUTS=${POWERCUT_CUTS:-1}
# which stories run (POWERCUT_SERIES picks powercut.sh's series; "none")
STORIES=${POWERCUT_STORIES:-after-reset copyup format}
story() { case " $STORIES " in *" $1 "*) need_qemu "qemu-powercut-$1" ;; *) return 1 ;; esac; }

# f2fs and ubifs: powercut.sh's series, one cut each in make check (POWERCUT_CUTS=N for more)
POWERCUT_SERIES=${POWERCUT_SERIES:-f2fs ubifs} POWERCUT_CUTS=$CUTS \
	POWERCUT_FILES=${POWERCUT_FILES:-500} bash "$HERE/powercut.sh"

# --- a cut right after `unionroot reset` returned ----------------------------
# sysrq b: the kernel stops the machine at once, nothing synced or unmounted
BOARD=qemu-x86_64
OUTDIR=$BUILD/$BOARD
# after_reset_check CUT LOG DELAY: the next boot has reset, and nothing is pending
after_reset_check() {
	expect "a cut right after unionroot reset returned: the next boot resets" "$2" '^MARK-state=factory'
	expect "and the reset is done, not pending" "$2" '^MARK-pending=no'
	grep -q '^MARK-state=factory' "$2" && grep -q '^MARK-pending=no' "$2"
}
if story after-reset; then
	D=$T/after.img
	new_data "$D"
	reset_cut_story "a cut right after unionroot reset returned" 200 1 sysrq after_reset_check "$D" --cache none
fi

# --- cuts during the copy-up backend's first copy ------------------------------
if story copyup; then
	P=$T/pristine.img
	new_data "$P"
	cp "$P" "$T/c0.img"
	if boot "$T/c0.log" "$T/c0.img" 'echo MARK-ref' --cache none --append union.mode=copyup; then
		# the backend is chosen, then the branch mounted and the image copied
		max=$(span "$T/c0.log" 'union backend: copy-up' 'copy-up: first boot')
		bad=0
		for i in $(seq "$CUTS"); do
			cp "$P" "$T/c.img"
			cut_at "$T/cut-c$i.log" 'union backend: copy-up' "$max" --data "$T/c.img" --cache none --append union.mode=copyup
			if ! boot "$T/c$i.log" "$T/c.img" '
				echo "MARK-factory=$(cat /etc/factory-file)"
				echo "MARK-diff=$(/run/unionroot/bin/unionroot diff | wc -l)"' --cache none --append union.mode=copyup ||
				! grep -q '^MARK-factory=factory$' "$T/c$i.log" || ! grep -q '^MARK-diff=0$' "$T/c$i.log"; then
				fail "copy-up: cut $i at $delay s during the first copy: the next boot finishes it" "see $BUILD/tests/"
				keep_log "$T/cut-c$i.log" "$T/c$i.log"
				bad=1
			fi
			echo "copy-up: cut $i $delay s after the backend was chosen (the first copy took up to $max s)" >&2
		done
		[ $bad = 1 ] || pass "copy-up: $CUTS cuts during the first copy: each next boot has the whole image and no difference to it"
	else
		fail "copy-up: the first copy of a reference boot" "see $BUILD/tests/"
		keep_log "$T/c0.log"
	fi
fi

# format_window: the state a cut leaves when it lands after mkfs wrote its
# tables but before its superblock (random cuts rarely hit it): a medium
# neither blank nor formatted. With the boot's mark in the last MiB it is
# formatted anew; without the mark it is data, and never formatted.
format_window() {
	local mark='unionroot: union.format in progress' w=$T/w.img
	rm -f "$w" && truncate -s 256M "$w"
	mkfs.ext4 -q -F "$w" 261120k && dd if=/dev/zero of="$w" bs=1024 seek=1 count=1 conv=notrunc status=none
	cp --sparse=always "$w" "$T/w-nomark.img"
	printf '%s\n' "$mark" | dd of="$w" bs=1M seek=255 conv=notrunc status=none
	boot "$T/w1.log" "$F" 'echo w >/root/kept' --disk "$w" --append "$FMT"
	boot "$T/w2.log" "$F" 'echo "MARK-$(cat /root/kept)"' --disk "$w" --append "$FMT"
	expect "format: a medium marked by a cut format is formatted anew" "$T/w1.log" \
		'writable branch /dev/vdc: an earlier union.format was cut short'
	expect "format: ... and then persists" "$T/w2.log" '^MARK-w$'
	if dd if="$w" bs=1M skip=255 count=1 status=none | grep -qa "$mark"; then
		fail "format: the mark is cleared once the file system is made" "still in the last MiB of $w"
	else
		pass "format: the mark is cleared once the file system is made"
	fi
	expect "format: the file system leaves the mark's MiB out" \
		<(dumpe2fs -h "$w" 2>/dev/null | awk '/^Block count:/ { c = $3 } /^Block size:/ { b = $3 } END { print c * b }') \
		'^267386880$'
	boot "$T/w3.log" "$F" 'echo MARK-up' --disk "$T/w-nomark.img" --append "$FMT"
	expect "format: an unmarked medium with data is never formatted" "$T/w3.log" \
		'writable branch /dev/vdc holds no file system unionroot knows but is not blank'
	expect_not "format: ... not even as a cut format" "$T/w3.log" 'was cut short'
}

# --- cuts during union.format= (the flash board's initramfs carries mkfs) ----
BOARD=qemu-x86_64-flash
OUTDIR=$BUILD/$BOARD
if story format; then
	F=$T/flash.img
	head -c 8M /dev/zero | tr '\0' '\377' >"$F"
	FMT='union.upper=/dev/vdc union.format=ext4'
	rm -f "$T/b0.img" && truncate -s 256M "$T/b0.img"
	if boot "$T/f0.log" "$F" 'echo MARK-ref' --disk "$T/b0.img" --append "$FMT"; then
		max=$(span "$T/f0.log" 'is blank; formatting it' 'formatted as ext4')
		bad=0
		for i in $(seq "$CUTS"); do
			rm -f "$T/b.img" && truncate -s 256M "$T/b.img"
			cut_at "$T/cut-f$i.log" 'is blank; formatting it' "$max" --data "$F" --disk "$T/b.img" --append "$FMT"
			if ! boot "$T/f$i.log" "$F" 'echo x >/root/kept' --disk "$T/b.img" --append "$FMT" ||
				! boot "$T/g$i.log" "$F" 'echo "MARK-$(cat /root/kept)"' --disk "$T/b.img" --append "$FMT" ||
				! grep -q '^MARK-x$' "$T/g$i.log"; then
				fail "format: cut $i at $delay s during union.format=ext4: a later boot has a persistent branch" \
					"$(grep -ho 'writable branch /dev/vdc[^;]*' "$T/f$i.log" | head -1)"
				keep_log "$T/cut-f$i.log" "$T/f$i.log" "$T/g$i.log"
				bad=1
			fi
			echo "format: cut $i $delay s into mkfs (it took up to $max s); the next boot: $(grep -aEho 'writable branch /dev/vdc( is blank|: /sbin/e2fsck|: formatted| holds)[^;(]*' "$T/f$i.log" | head -1)" >&2
		done
		[ $bad = 1 ] || pass "format: $CUTS cuts during union.format=ext4: the next boot formats anew or keeps the finished file system, and persists"
		format_window
	else
		fail "format: a reference boot that formats" "see $BUILD/tests/"
		keep_log "$T/f0.log"
	fi
fi
