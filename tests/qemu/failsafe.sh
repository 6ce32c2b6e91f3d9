#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# Never brick: every way the writable branch can fail ends in its one-line
# message and union.onfail (tmpfs, shell, reboot, halt); a damaged read-only
# layer ends in the rescue shell or a visible countdown, never a panic;
# union.break stops in the rescue shell and leaving it goes on; a command
# line of garbage boots with the defaults; a .unionroot planted as a symlink
# to / is moved aside, not followed; a reset (asked in a failsafe boot, or
# union.reset=1) ends a failsafe loop. The damaged disks are made on the host.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-failsafe || exit 0
need_root qemu-failsafe || exit 0
scratch failsafe
UP='union.upper=/dev/vdb'
SHOW='echo MARK-ran; cat /root/persist 2>/dev/null | sed "s/^/MARK-persist=/"'
if ! tools/mkinitramfs "$BOARD" "$BUILD" --rescue >"$T/mkinitramfs.log" 2>&1; then
	fail "failsafe: rescue initramfs" "tools/mkinitramfs --rescue failed (see $T/mkinitramfs.log)"
	keep_log "$T/mkinitramfs.log"
	exit 0
fi
RESCUE=$OUTDIR/initramfs-rescue.cpio.gz
KEYS='echo MARK-shell-$((6*7)); exit'

# run_to_end LOG ARGS...: a boot that need not reach the real init (reboot,
# halt, a read-only layer failure); the console is in LOG, CR stripped
run_to_end() {
	local log=$1
	shift
	"$ROOT_DIR/board/$BOARD/run" "$OUTDIR" --timeout 120 --log "$log" "$@" >/dev/null 2>&1
	local rc=$?
	sed -i 's/\r$//' "$log"
	return $rc
}

# an ext4 branch with the user's file in upper/ (as a boot leaves it)
user_branch() { # IMG
	new_data "$1"
	debugfs -w -f - "$1" >/dev/null 2>&1 <<-'EOF'
		mkdir upper
		mkdir upper/root
		mkdir work
		mkdir .unionroot
		mkdir .unionroot/trash
		write /etc/hostname upper/root/persist
	EOF
}
files_kept() { # NAME IMG: the user's file is still on the disk
	if debugfs -R 'cat upper/root/persist' "$2" 2>/dev/null | grep -q .; then
		pass "$1"
	else
		fail "$1" "upper/root/persist is gone from $2"
	fi
}
# full IMG: no block and no inode left, as root sees it
fill_up() {
	local m=$T/m
	mkdir -p "$m"
	mount -o loop "$1" "$m" || return 1
	dd if=/dev/zero of="$m/fill" bs=1M 2>/dev/null
	local i=0
	while touch "$m/f$i" 2>/dev/null; do i=$((i + 1)); done
	dd if=/dev/zero of="$m/fill2" bs=1k 2>/dev/null
	umount "$m"
}

# 1. not a file system at all (and union.onfail=shell without a shell)
head -c 1M /dev/urandom >"$T/garbage.img"
truncate -s 64M "$T/garbage.img"
if boot "$T/1.log" "$T/garbage.img" "$SHOW" --append "$UP union.onfail=shell"; then
	expect "a writable device with no known file system is named" "$T/1.log" \
		'unionroot: writable branch /dev/vdb holds no (known )?file system'
	expect "union.onfail=shell without a shell says so and boots volatile" "$T/1.log" \
		'no rescue shell in the initramfs \(union.onfail=shell\)'
	expect "status says why the root is volatile" "$T/1.log" '^real-init: status: upper_state=volatile: writable branch /dev/vdb holds no'
	expect "the real init ran on the volatile root" "$T/1.log" '^MARK-ran'
else
	fail "failsafe: no file system" "no clean boot (see $T/1.log)"
	keep_log "$T/1.log"
fi

# 2. a file system the kernel finds damaged while mounting it: an orphan
# list pointing past the inode table, errors=remount-ro
user_branch "$T/orphan.img"
tune2fs -e remount-ro "$T/orphan.img" >/dev/null
debugfs -w -R "ssv last_orphan 4000000" "$T/orphan.img" >/dev/null 2>&1
cp "$T/orphan.img" "$T/orphan2.img"
if boot "$T/2.log" "$T/orphan.img" "$SHOW" --append "$UP"; then
	expect "a branch the kernel refuses to mount is named with the errno" "$T/2.log" \
		'unionroot: mounting writable branch /dev/vdb \(ext4\) failed: [A-Za-z/ ]+.*; booting with a volatile writable branch in RAM \(union.onfail=tmpfs\)'
	expect "the real init ran after a refused mount" "$T/2.log" '^MARK-ran'
	expect_not "the refused branch's files are not in the root" "$T/2.log" '^MARK-persist=' "the user's file is visible"
else
	fail "failsafe: mount refused" "no clean boot (see $T/2.log)"
	keep_log "$T/2.log"
fi

# 3. mounted, but read-only: the union would take no write
user_branch "$T/ro.img"
if boot "$T/3.log" "$T/ro.img" "$SHOW" --append "$UP union.upperflags=ro"; then
	expect "a branch mounted read-only is not taken for a writable one" "$T/3.log" \
		'unionroot: writable branch /dev/vdb \(ext4\) is mounted read-only: .*; booting with a volatile writable branch in RAM'
	expect "the real init ran after a read-only branch" "$T/3.log" '^MARK-ran'
else
	fail "failsafe: read-only branch" "no clean boot (see $T/3.log)"
	keep_log "$T/3.log"
fi

# 4. full: no room for work/work, so overlayfs would come up read-only
user_branch "$T/full.img"
if ! fill_up "$T/full.img"; then
	fail "failsafe: full branch" "cannot loop-mount the image to fill it"
elif boot "$T/4.log" "$T/full.img" "$SHOW; touch /probe && echo MARK-writable" --append "$UP"; then
	expect "a full branch is named: the overlay would be read-only" "$T/4.log" \
		'unionroot: overlay over writable branch /dev/vdb (came up read-only|failed): no room for work/ \([0-9]+% full\); booting with a volatile writable branch in RAM'
	expect "the root takes writes after a full branch" "$T/4.log" '^MARK-writable'
	expect "status says the root is volatile because the branch is full" "$T/4.log" '^real-init: status: upper_state=volatile: overlay over writable branch /dev/vdb .*no room for work/'
	files_kept "the user's files stay on the full branch" "$T/full.img"
else
	fail "failsafe: full branch" "no clean boot (see $T/4.log)"
	keep_log "$T/4.log"
fi

# 5. a reset that cannot be done (full, no work/ to free): the branch is
# left as it was, the boot volatile
user_branch "$T/full2.img"
debugfs -w -R "rmdir work" "$T/full2.img" >/dev/null 2>&1
if ! fill_up "$T/full2.img"; then
	fail "failsafe: failed reset" "cannot loop-mount the image to fill it"
elif boot "$T/5.log" "$T/full2.img" "$SHOW" --append "$UP union.reset=1"; then
	expect "a reset that fails is named with its step and cause" "$T/5.log" \
		'unionroot: writable branch /dev/vdb: [a-z /.-]+ failed: No space left on device; booting with a volatile writable branch in RAM \(union.onfail=tmpfs\)'
	expect "the real init ran after a failed reset" "$T/5.log" '^MARK-ran'
	files_kept "a failed reset leaves the user's files where they were" "$T/full2.img"
else
	fail "failsafe: failed reset" "no clean boot (see $T/5.log)"
	keep_log "$T/5.log"
fi

# 6. union.onfail=reboot and =halt: the message, then the machine goes
# down (QEMU runs with -no-reboot, so both end QEMU); the real init never ran
for how in reboot halt; do
	cp "$T/orphan2.img" "$T/$how.img"
	run_to_end "$T/$how.log" --data "$T/$how.img" --cmd 'echo MARK-ran' --append "$UP union.onfail=$how"
	case $how in
	reboot) said='rebooting \(union.onfail=reboot\)' ;;
	halt) said='powering off \(union.onfail=halt\)' ;;
	esac
	expect "union.onfail=$how says why and does it" "$T/$how.log" "unionroot: mounting writable branch /dev/vdb \\(ext4\\) failed: .*; $said"
	expect_not "union.onfail=$how: the real init does not run" "$T/$how.log" '^MARK-ran' "the real init ran"
	expect_not "union.onfail=$how: no kernel panic" "$T/$how.log" 'Kernel panic' "the kernel panicked"
done

# 7. union.onfail=shell with a rescue shell: leaving it boots volatile
cp "$T/orphan2.img" "$T/shell.img"
if boot "$T/7.log" "$T/shell.img" "$SHOW" --append "$UP union.onfail=shell" --initrd "$RESCUE" --keys "$KEYS"; then
	expect "union.onfail=shell starts the rescue shell with the reason" "$T/7.log" \
		'unionroot: mounting writable branch /dev/vdb \(ext4\) failed: .*; starting the rescue shell'
	expect "the rescue shell runs commands" "$T/7.log" '^MARK-shell-42'
	expect "leaving the shell boots on, volatile" "$T/7.log" '^real-init: status: upper_state=volatile: mounting writable branch'
	expect "the real init ran after the shell" "$T/7.log" '^MARK-ran'
else
	fail "failsafe: onfail=shell" "no clean boot (see $T/7.log)"
	keep_log "$T/7.log"
fi

# 8. union.break at each point, with the rescue shell; each exit goes on
new_data "$T/brk.img"
if boot "$T/8.log" "$T/brk.img" "$SHOW" --append "union.break=modules,mount,switch" \
	--initrd "$RESCUE" --keys "$KEYS"; then
	for at in modules mount switch; do
		expect "union.break=$at stops in the rescue shell" "$T/8.log" "unionroot: union.break=$at; starting the rescue shell"
	done
	n=$(grep -c '^MARK-shell-42' "$T/8.log")
	if [ "$n" = 3 ]; then
		pass "each of the three shells ran a command"
	else
		fail "each of the three shells ran a command" "$n of 3 answered (see $T/8.log)"
		keep_log "$T/8.log"
	fi
	expect "after the last shell the real init runs on the persistent root" "$T/8.log" '^real-init: status: upper_state=persistent on /dev/vdb'
else
	fail "failsafe: union.break" "no clean boot (see $T/8.log)"
	keep_log "$T/8.log"
fi

# 9. a damaged read-only layer: a truncated image (half a download)
sz=$(stat -c %s "$OUTDIR/rootfs.squashfs")
head -c $((sz / 2)) "$OUTDIR/rootfs.squashfs" >"$T/half.squashfs"
truncate -s $((sz / 2 / 4096 * 4096 + 4096)) "$T/half.squashfs"
new_data "$T/lw.img"
run_to_end "$T/9a.log" --lower "$T/half.squashfs" --data "$T/lw.img" --cmd 'echo MARK-ran'
expect "a damaged read-only layer is named with the device and the cause" "$T/9a.log" \
	'unionroot: mounting read-only layer 1 /dev/vda \(squashfs\) failed: .*damaged or truncated'
expect "without a rescue shell: a visible countdown, then a reboot" "$T/9a.log" 'no rescue shell in the initramfs, rebooting in 10 s'
expect_not "a damaged read-only layer is no kernel panic" "$T/9a.log" 'Kernel panic|Attempted to kill init' "the kernel panicked"
expect_not "the real init does not run on a damaged image" "$T/9a.log" '^MARK-ran' "the real init ran"
run_to_end "$T/9b.log" --lower "$T/half.squashfs" --data "$T/lw.img" --cmd 'echo MARK-ran' \
	--initrd "$RESCUE" --keys "$KEYS"
expect "with a rescue shell: the shell, with the reason" "$T/9b.log" \
	'unionroot: mounting read-only layer 1 /dev/vda \(squashfs\) failed: .*; starting the rescue shell'
expect "the shell on a damaged image runs commands" "$T/9b.log" '^MARK-shell-42'
expect "leaving it reboots" "$T/9b.log" 'rescue shell left; rebooting'
expect_not "the rescue path is no kernel panic" "$T/9b.log" 'Kernel panic|Attempted to kill init' "the kernel panicked"

# 9c. a read-only layer that never shows up: the devices seen are listed
run_to_end "$T/9c.log" --data "$T/lw.img" --cmd 'echo MARK-ran' --append 'union.lower=LABEL=nosuch union.wait=2'
expect "a missing read-only layer is named after the deadline" "$T/9c.log" 'unionroot: read-only layer 1 LABEL=nosuch not found'
expect "the devices that were there are listed" "$T/9c.log" 'unionroot: block devices found: .*vda \(squashfs\)'
expect "a missing read-only layer ends in the countdown" "$T/9c.log" 'no rescue shell in the initramfs, rebooting in 10 s'
expect_not "a missing read-only layer is no kernel panic" "$T/9c.log" 'Kernel panic|Attempted to kill init|^MARK-ran' "a panic, or the real init ran"

# 9d. a read-only layer verity refuses, with a rescue shell in the
# initramfs: a reboot, no root shell, unless union.onfail=shell asks for one
# (a refused image is what someone swapping it wants a shell from). A
# union.verity that cannot be honoured is refused as a wrong root hash is.
run_to_end "$T/9d.log" --data "$T/lw.img" --cmd 'echo MARK-ran' --initrd "$RESCUE" --keys "$KEYS" \
	--append 'union.verity=abc'
expect "a verity refusal with a rescue shell present reboots" "$T/9d.log" \
	'unionroot: read-only layer 1 /dev/vda: verity refused it: union.verity cannot be honoured .*; rebooting in 10 s \(union.onfail=shell would open a rescue shell\)'
expect_not "and opens no root shell" "$T/9d.log" 'starting the rescue shell|^MARK-shell-42|^MARK-ran' \
	"a shell or the real init ran after a verity refusal"
run_to_end "$T/9e.log" --data "$T/lw.img" --cmd 'echo MARK-ran' --initrd "$RESCUE" --keys "$KEYS" \
	--append 'union.verity=abc union.onfail=shell'
expect "union.onfail=shell: a verity refusal opens the rescue shell" "$T/9e.log" \
	'unionroot: read-only layer 1 /dev/vda: verity refused it: .*; starting the rescue shell'
expect_not "and the layer is never booted" "$T/9e.log" '^MARK-ran' "the real init ran after a verity refusal"

# 10. a command line of garbage: empty and repeated keys, bytes that are not
# UTF-8, quotes, huge values, up to what x86 passes (2048 bytes in all)
python3 - >"$T/garbage" <<-'EOF'
	import random, sys
	r = random.Random(7)
	words = ["union.upper=", "union.upper=", 'union.lower=""', "union.onfail=\x80\xfe",
	         "union.wait=99999999999999999999", "union.break=", "union.reset=maybe",
	         "union.mode=\xff", "union.upgrade=keep=keep", "union.scan", "=", "union.=x"]
	out = " ".join(words)
	chars = list(range(0x21, 0x7f)) + list(range(0x80, 0x100))
	chars.remove(ord('"'))
	while len(out) < 1750:
	    key = "".join(chr(r.randrange(97, 123)) for _ in range(5))
	    val = "".join(chr(r.choice(chars)) for _ in range(r.randrange(1, 60)))
	    out += " union.%s=%s" % (key, val)
	sys.stdout.buffer.write(out.encode("latin-1") + b' "unterminated')
EOF
garbage=$(cat "$T/garbage")
new_data "$T/g.img"
if boot "$T/10.log" "$T/g.img" "$SHOW; wc -c </proc/cmdline | sed s/^/MARK-cmdline=/" --append "$garbage"; then
	expect "an empty value is named and its default kept" "$T/10.log" 'unionroot: kernel command line: ignoring union\.upper="": empty SPEC; keeping the default'
	expect "bytes that are not UTF-8 are shown escaped" "$T/10.log" 'ignoring union\.onfail="\\x80\\xfe": want tmpfs\|shell\|reboot\|halt; keeping the default'
	expect "a huge number is out of range" "$T/10.log" 'ignoring union\.wait="9+": out of range'
	expect "an unknown key is named" "$T/10.log" 'ignoring union\.[a-z]{5}=".*": unknown parameter; keeping the default'
	expect "a garbage command line boots with the defaults" "$T/10.log" '^real-init: status: upper_state=persistent on /dev/vdb'
	expect "the garbage reached the kernel whole" "$T/10.log" '^MARK-cmdline=(1[89][0-9][0-9]|20[0-4][0-9])$'
else
	fail "failsafe: garbage command line" "no clean boot (see $T/10.log)"
	keep_log "$T/10.log"
fi

# 11. .unionroot planted as a symlink to / on the writable disk
new_data "$T/evil.img"
debugfs -w -R "symlink .unionroot /" "$T/evil.img" >/dev/null 2>&1
if boot "$T/11.log" "$T/evil.img" "$SHOW" --append "$UP"; then
	expect "a .unionroot symlink is named and moved aside" "$T/11.log" \
		'unionroot: writable branch /dev/vdb: a non-directory stood where upper/, work/ or .unionroot/ belong; moved it aside'
	expect "the branch is used after the repair" "$T/11.log" '^real-init: status: upper_state=persistent on /dev/vdb'
	if debugfs -R 'ls -l' "$T/evil.img" 2>/dev/null | grep -Eq ' 120777 .* \.unionroot\.invalid\.[0-9]+$' &&
		debugfs -R 'stat .unionroot' "$T/evil.img" 2>/dev/null | grep -q 'Type: directory'; then
		pass "the planted link is kept aside as a link, a real .unionroot/ beside it"
	else
		fail "the planted link is kept aside as a link" "$(debugfs -R 'ls -l' "$T/evil.img" 2>/dev/null | tr -s ' ' | tr '\n' '|')"
	fi
else
	fail "failsafe: .unionroot symlink" "no clean boot (see $T/11.log)"
	keep_log "$T/11.log"
fi

# 12. the way out of a failsafe loop is a reset: 'unionroot reset' in a
# failsafe boot reaches the saved branch and the next boot applies it, not
# failsafe; union.reset=1 on a boot that would go failsafe resets too
U=/run/unionroot/bin/unionroot
FS='sed -n "s/^\(failsafe\|reset\|boots_at_boot\)=/MARK-&/p" /run/unionroot/status
	[ -e /root/persist ] && echo MARK-user-file || echo MARK-factory'
M=union.maxfails=1
new_data "$T/loop.img"
if boot "$T/12a.log" "$T/loop.img" 'echo mine >/root/persist' --append "$UP $M" &&
	boot "$T/12b.log" "$T/loop.img" "$FS"'
	'"$U"' reset --yes; echo "MARK-reset-exit=$?"
	'"$U"' status | grep "^reset_pending"' --append "$UP $M" &&
	boot "$T/12c.log" "$T/loop.img" "$FS"'; echo second >/root/persist' --append "$UP $M" &&
	boot "$T/12d.log" "$T/loop.img" "$FS" --append "$UP $M union.reset=1"; then
	expect "a boot past union.maxfails is failsafe" "$T/12b.log" '^MARK-failsafe=1 boots without'
	expect "reset in a failsafe boot is recorded" "$T/12b.log" '^MARK-reset-exit=0'
	expect "reset in a failsafe boot is pending on the saved branch" "$T/12b.log" '^reset_pending=yes'
	expect "a pending reset ends the failsafe loop" "$T/12c.log" '^MARK-failsafe=no'
	expect "the reset asked in failsafe is applied" "$T/12c.log" '^MARK-reset=applied'
	expect "after it the user's file is gone" "$T/12c.log" '^MARK-factory'
	expect "a reset restarts the boot counter" "$T/12c.log" '^MARK-boots_at_boot=1'
	expect "union.reset=1 on a boot that would be failsafe is no failsafe" "$T/12d.log" '^MARK-failsafe=no'
	expect "union.reset=1 resets instead" "$T/12d.log" '^MARK-reset=applied'
	expect "union.reset=1 drops the user's file" "$T/12d.log" '^MARK-factory'
else
	fail "failsafe: reset out of the loop" "no clean boot (see $T/12*.log)"
	keep_log "$T"/12*.log
fi
