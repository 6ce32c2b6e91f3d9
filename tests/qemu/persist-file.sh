#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# User stories of a persistence file on a stick (union.upper=SPEC:/file), as
# live-boot, casper and Ventoy users keep one: an ext4 image file on a vfat
# USB stick keeps changes, resets, and survives power cuts; at poweroff the
# root's last act (/run/initramfs/shutdown) leaves the file's ext4 and the
# stick clean, a cut is recovered at the next boot; one stick holding
# both the live image and the persistence file; a live CD with the file on
# another stick; the file missing; on the flash board (which carries
# e2fsck and mkfs.ext4) the file checked, and a blank file formatted.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-persist-file || exit 0
need_tools qemu-persist-file xorriso mkfs.vfat mcopy mkfs.ext4 fsck.vfat || exit 0
scratch persist-file
ROOTFS=$OUTDIR/rootfs.squashfs
U=/run/unionroot/bin/unionroot
CUTS=${PERSIST_CUTS:-2}
FILES=${PERSIST_FILES:-1000}

mkfs.ext4 -q -F "$T/persistence.img" 32M

# ---- 1. a persistence file on a vfat stick ---------------------------------
stick "$T/stick.img" STICK 64 "$T/persistence.img:/persistence.img"
ON_STICK=(--usb "$T/stick.img" --append 'union.upper=LABEL=STICK:/persistence.img union.wait=30')
if boot "$T/1a.log" none "$(change_root kept-on-stick)" "${ON_STICK[@]}" &&
	fat_state "$T/stick.img" >"$T/1a.fat" &&
	boot "$T/1b.log" none "$SHOW_CHANGES
		$U status | sed 's/^/STATUS: /'
		$U reset --yes >/dev/null && echo MARK-reset-requested" "${ON_STICK[@]}" &&
	boot "$T/1c.log" none "$SHOW_CHANGES" "${ON_STICK[@]}"; then
	expect "the persistence file goes on a read-write loop with direct I/O" "$T/1a.log" \
		'unionroot: writable branch: image /persistence.img on /dev/sda is /dev/loop[0-9]+ \(ext4, read-write, direct I/O\)'
	expect "the stick's root is mounted nodev,nosuid (removable media)" "$T/1a.log" \
		'^real-init: status: root_flags=nodev,nosuid'
	expect "changes of one boot are in the file on the stick at the next" "$T/1b.log" '^MARK-persist=kept-on-stick'
	expect "a file deleted from the image stays deleted" "$T/1b.log" '^MARK-factory-gone'
	expect "unionroot status names the loop and the file on the stick" "$T/1b.log" \
		'^STATUS: upper=LABEL=STICK:/persistence.img /dev/loop[0-9]+ ext4 /run/unionroot/rw'
	expect "unionroot status shows the branch as the file on the stick" "$T/1b.log" \
		'^STATUS: upper_image=/dev/sda:/persistence.img \(direct I/O\)'
	expect "the boot counter lives in the file" "$T/1b.log" '^STATUS: boot_counter=[0-9]+'
	expect "unionroot reset on the file" "$T/1b.log" '^MARK-reset-requested'
	expect "after the reset the next boot is factory: the change is gone" "$T/1c.log" '^MARK-persist=$'
	expect "after the reset the next boot is factory: the image's file is back" "$T/1c.log" '^MARK-factory-back'
	expect "the reset was applied inside the file" "$T/1c.log" '^real-init: status: reset=applied'
	# the demo root's last act is the documented hook, /run/initramfs/shutdown
	expect "the root's poweroff hands over to the shutdown program" "$T/1a.log" \
		'^unionroot: shutdown: unmounting the union before poweroff'
	expect "the shutdown program unmounts the branch, its loop and the stick" "$T/1a.log" \
		'^unionroot: shutdown: the union and its media are unmounted'
	expect "the FAT stick is clean after poweroff" "$T/1a.fat" '^clean$'
	expect_not "after a poweroff the file's journal needs no replay" "$T/1b.log" \
		'EXT4-fs \(loop[0-9]+\): recovery complete' "the file's ext4 journal was replayed"
	expect_not "after a poweroff the stick was unmounted cleanly" "$T/1b.log" \
		'FAT-fs \(sda\): Volume was not properly unmounted' "the stick's dirty flag was set"
else
	fail "persistence file on a vfat stick" "no clean boot (see $T/1a.log, $T/1b.log, $T/1c.log)"
	keep_log "$T/1a.log" "$T/1b.log" "$T/1c.log"
fi

# ---- 2. power cuts: during writes, and during a reset of many files --------
# QEMU is killed (SIGKILL, the stick with cache=none) at a random instant
# after the boot reached MARKER (a shared machine makes boots too slow for a
# delay counted from QEMU's start); the next boot must come up clean with
# the old or the factory state.
cut_boot() { # LOG MARKER SECONDS CMD: a boot killed 0.5 to 0.5+SECONDS s after MARKER
	local run delay t q
	"$ROOT_DIR/board/$BOARD/run" "$OUTDIR" --data none --cache none --cmd "$4" \
		--timeout 300 --log "$1" "${ON_STICK[@]}" >/dev/null 2>&1 &
	run=$!
	for _ in $(seq 3000); do
		grep -aq "$2" "$1" 2>/dev/null && break
		kill -0 "$run" 2>/dev/null || break
		sleep 0.1
	done
	delay=$(awk -v s="$RANDOM" -v m="$3" 'BEGIN { srand(s); printf "%.1f", 0.5 + rand() * m }')
	sleep "$delay"
	echo "persist-file: power cut in $(basename "$1" .log) ${delay} s after '$2'" >&2
	# run's children are timeout and tee; QEMU is timeout's child
	for t in $(pgrep -P "$run"); do
		for q in $(pgrep -P "$t"); do kill -KILL "$q" 2>/dev/null; done
	done
	wait "$run"
	grep -aq "$2" "$1"
}
stick "$T/stick.img" STICK 64 "$T/persistence.img:/persistence.img"
WRITER='i=0; while :; do dd if=/dev/urandom of=/root/w$((i % 8)) bs=64k count=16 2>/dev/null; i=$((i + 1)); done'
bad=0
# a cut while the root writes: what was synced before stays
if ! cut_boot "$T/cutw.log" '^MARK-writing' 4 "echo synced >/root/before; sync; echo MARK-writing; $WRITER"; then
	fail "a power cut during writes" "the boot never started writing (see $T/cutw.log)"
	keep_log "$T/cutw.log"
	bad=1
elif boot "$T/afterw.log" none 'echo "MARK-before=$(cat /root/before)"; find /root -type f -exec cat {} + >/dev/null && echo MARK-read-all
	echo after >/root/after && sync && echo MARK-writable' --cache none "${ON_STICK[@]}"; then
	expect "a power cut during writes: what was synced before is there" "$T/afterw.log" '^MARK-before=synced'
	expect "a power cut during writes: every file reads" "$T/afterw.log" '^MARK-read-all'
	expect "a power cut during writes: the branch takes writes after it" "$T/afterw.log" '^MARK-writable'
	expect "a power cut during writes: the next boot replays the file's journal" "$T/afterw.log" \
		'EXT4-fs \(loop[0-9]+\): recovery complete'
else
	fail "a power cut during writes: the next boot is clean" "see $T/afterw.log"
	keep_log "$T/cutw.log" "$T/afterw.log"
	bad=1
fi
# the file is attached, then the reset set aside in it: 0 to 3.5 s
RESET_CUT_WINDOW=3.5 reset_cut_story "" "$FILES" "$CUTS" 'after:unionroot: writable branch: image /persistence.img' reset_cut_factory \
	none --cache none "${ON_STICK[@]}" || bad=1
[ $bad = 0 ] && pass "$CUTS power cuts during a reset of $FILES files in the file on a vfat stick: each next boot is factory and clean"

# ---- 3. one stick: the live image and the persistence file -----------------
stick "$T/live.img" LIVE 96 "$ROOTFS:/live/filesystem.squashfs" "$T/persistence.img:/persistence.img"
LIVE=(--lower none --usb "$T/live.img"
	--append 'union.lower=LABEL=LIVE union.upper=LABEL=LIVE:/persistence.img union.scan=removable union.wait=30')
if boot "$T/3a.log" none "$(change_root kept-on-live)" "${LIVE[@]}" &&
	boot "$T/3b.log" none "$SHOW_CHANGES
		grep -c '^/dev/sda ' /proc/mounts | sed 's/^/MARK-sda-mounts=/'
		grep '^/dev/sda ' /proc/mounts | sed 's/^/MARK-sda: /'" "${LIVE[@]}"; then
	expect "one stick: the image comes from the stick" "$T/3a.log" \
		'^real-init: status: lower1_image=/dev/sda:/live/filesystem.squashfs'
	expect "one stick: the branch is the file on the same stick" "$T/3a.log" \
		'^real-init: status: upper_image=/dev/sda:/persistence.img'
	expect "one stick: changes persist" "$T/3b.log" '^MARK-persist=kept-on-live'
	expect "one stick: the medium is mounted once" "$T/3b.log" '^MARK-sda-mounts=1$'
	expect "one stick: that mount is read-write" "$T/3b.log" '^MARK-sda: /dev/sda /run/unionroot/media/[0-9]+ vfat rw,'
else
	fail "one stick with image and persistence file" "no clean boot (see $T/3a.log, $T/3b.log)"
	keep_log "$T/3a.log" "$T/3b.log"
fi

# ---- 4. a live CD, the persistence file on a stick -------------------------
mkdir -p "$T/iso/live"
cp "$ROOTFS" "$T/iso/live/filesystem.squashfs"
xorriso -as mkisofs -quiet -V LIVECD -J -R -o "$T/live.iso" "$T/iso" 2>/dev/null
stick "$T/stick.img" STICK 64 "$T/persistence.img:/persistence.img"
CD=(--lower none --cdrom "$T/live.iso" --usb "$T/stick.img"
	--append 'union.lower=auto union.upper=LABEL=STICK:/persistence.img union.wait=30')
if boot "$T/4a.log" none "$(change_root kept-with-cd)" "${CD[@]}" &&
	boot "$T/4b.log" none "$SHOW_CHANGES" "${CD[@]}"; then
	expect "a live CD boots" "$T/4a.log" '^real-init: status: lower1_image=/dev/sr0:/live/filesystem.squashfs'
	expect "its changes go to the file on the stick" "$T/4a.log" \
		'^real-init: status: upper_image=/dev/sda:/persistence.img'
	expect "a live CD session keeps its changes in the file on the stick" "$T/4b.log" '^MARK-persist=kept-with-cd'
else
	fail "live CD with a persistence file on a stick" "no clean boot (see $T/4a.log, $T/4b.log)"
	keep_log "$T/4a.log" "$T/4b.log"
fi

# ---- 5. the file missing ----------------------------------------------------
stick "$T/empty.img" STICK 64
if boot "$T/5.log" none 'echo hello >/root/x && echo MARK-volatile-root-writable' --usb "$T/empty.img" \
	--append 'union.upper=LABEL=STICK:/persistence.img union.wait=30'; then
	expect "a missing persistence file: one line says which file, where, and what happens" "$T/5.log" \
		'unionroot: writable branch: persistence file /persistence.img on /dev/sda: no such file on the medium; booting with a volatile writable branch in RAM \(union.onfail=tmpfs\)'
	expect "a missing persistence file: the boot is volatile and says why" "$T/5.log" \
		'^real-init: status: upper_state=volatile: writable branch: persistence file /persistence.img'
	expect "a missing persistence file: the volatile root takes writes" "$T/5.log" '^MARK-volatile-root-writable'
	expect_not "a missing persistence file: said once" "$T/5.log" 'unionroot: writable branch: image /persistence.img' \
		"a second line about the same file"
else
	fail "missing persistence file" "no clean boot (see $T/5.log)"
	keep_log "$T/5.log"
fi

# ---- 6. the file's ext4 is checked before it is mounted (union.fsck) --------
# on the flash board, whose initramfs carries e2fsck
BOARD=qemu-x86_64-flash
OUTDIR=$BUILD/$BOARD
if need_qemu qemu-persist-file-fsck; then
	stick "$T/stick.img" STICK 64 "$T/persistence.img:/persistence.img"
	if boot "$T/6.log" none 'echo MARK-checked-boot' --usb "$T/stick.img" \
		--append 'union.upper=LABEL=STICK:/persistence.img union.wait=30'; then
		expect "union.fsck checks the file system inside the persistence file" "$T/6.log" \
			'unionroot: writable branch /dev/loop[0-9]+: /sbin/e2fsck: clean'
		expect "the checked file is the writable branch" "$T/6.log" \
			'^real-init: status: upper_image=/dev/sda:/persistence.img'
	else
		fail "union.fsck on a persistence file" "no clean boot (see $T/6.log)"
		keep_log "$T/6.log"
	fi
	# a zero-filled file made on any machine: union.format=ext4 fills it
	truncate -s 32M "$T/zero.img"
	stick "$T/stick.img" STICK 64 "$T/zero.img:/persistence.img"
	if boot "$T/7.log" none "$(change_root kept-in-new-file)" --usb "$T/stick.img" \
		--append 'union.upper=LABEL=STICK:/persistence.img union.wait=30 union.format=ext4' &&
		boot "$T/7b.log" none "$SHOW_CHANGES" --usb "$T/stick.img" \
			--append 'union.upper=LABEL=STICK:/persistence.img union.wait=30'; then
		expect "a blank persistence file is attached as blank" "$T/7.log" \
			'unionroot: writable branch: image /persistence.img on /dev/sda is /dev/loop[0-9]+ \(blank, read-write'
		expect "union.format=ext4 gives a blank persistence file its file system" "$T/7.log" \
			'unionroot: writable branch /dev/loop[0-9]+: formatted as ext4'
		expect "the file formatted at the first boot keeps changes" "$T/7b.log" '^MARK-persist=kept-in-new-file'
	else
		fail "union.format on a blank persistence file" "no clean boot (see $T/7.log, $T/7b.log)"
		keep_log "$T/7.log" "$T/7b.log"
	fi
fi
