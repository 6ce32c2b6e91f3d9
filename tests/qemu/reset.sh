#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# User stories of the factory reset and its companions, from what the guest
# prints: kept paths survive a reset, a reset cut dead after any step boots
# old-or-factory and finishes, union.maxfails leads to a failsafe boot unless
# the system says boot-ok, and an image upgrade follows union.upgrade.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-reset || exit 0
scratch reset
U=/run/unionroot/bin/unionroot
TEST_INITRD=$OUTDIR/initramfs-test.cpio.gz

# The user's tree every story starts from: data to lose, data to keep.
SETUP='
	mkdir -p /etc/unionroot /root/notes
	echo user >/root/data
	echo mine >/etc/keepme
	echo note >/root/notes/a
	echo /etc/keepme >/etc/unionroot/keep
	rm /etc/factory-file
	echo MARK-setup'
# What a boot after a reset (or not) shows.
PROBE='
	[ -e /root/data ] && echo MARK-data=old || echo MARK-data=gone
	echo "MARK-keepme=$(cat /etc/keepme 2>/dev/null)"
	echo "MARK-factory=$(cat /etc/factory-file 2>/dev/null)"
	echo "MARK-pending=$('"$U"' status | sed -n "s/^reset_pending=//p")"
	echo "MARK-control=$(ls /run/unionroot/rw/.unionroot | tr "\n" " ")"'

# 1. reset --keep at run time: the kept paths and the keep file survive
DATA=$T/keep.img
new_data "$DATA"
if boot "$T/k1.log" "$DATA" "$SETUP"'
	'"$U"' reset </dev/null; echo "MARK-noconfirm=$?"
	'"$U"' reset --yes --keep "/root/no*" --keep /../x; echo "MARK-badkeep=$?"
	'"$U"' reset --yes --keep "/root/no*" && '"$U"' status | grep "^reset_keep"' &&
	boot "$T/k2.log" "$DATA" "$PROBE"'
	echo "MARK-notes=$(cat /root/notes/a 2>/dev/null)"'; then
	expect "reset without --yes and without a terminal refuses" "$T/k1.log" '^MARK-noconfirm=1'
	expect "a keep path that leaves the root is refused" "$T/k1.log" '^MARK-badkeep=2'
	expect "status shows the pending reset's keep paths" "$T/k1.log" '^reset_keep=/root/no\*'
	expect "a reset drops what is not kept" "$T/k2.log" '^MARK-data=gone'
	expect "a path of /etc/unionroot/keep survives the reset" "$T/k2.log" '^MARK-keepme=mine'
	expect "a --keep glob survives the reset with its directory" "$T/k2.log" '^MARK-notes=note'
	expect "a file deleted from the image comes back" "$T/k2.log" '^MARK-factory=factory'
else
	fail "reset --keep" "no clean boot (see $T/k1.log, $T/k2.log)"
	keep_log "$T/k1.log"
	keep_log "$T/k2.log"
fi

# 2. crash points: the reset boot dies right after each step (sysrq b, no
# sync); the next normal boot is factory-with-keeps and clean
BASE=$T/base.img
new_data "$BASE"
if boot "$T/c0.log" "$BASE" "$SETUP"; then
	for step in request keep aside fresh cleared trash; do
		cp --sparse=always "$BASE" "$T/c-$step.img"
		# "trash" is the idle cleaner's, after the switch: the real init
		# idles 5 s first, so the cleaner gets there before it speaks
		boot "$T/c-$step-a.log" "$T/c-$step.img" 'sleep 5; echo MARK-survived-the-crash' \
			--initrd "$TEST_INITRD" --append "union.reset=keep union.test.crashafter=$step"
		if ! grep -q "test crash point: stopping dead after step \"$step\"" "$T/c-$step-a.log" ||
			grep -q '^MARK-survived-the-crash' "$T/c-$step-a.log"; then
			fail "crash after $step" "the boot did not stop dead there (see $T/c-$step-a.log)"
			keep_log "$T/c-$step-a.log"
			continue
		fi
		if boot "$T/c-$step-b.log" "$T/c-$step.img" "$PROBE"; then
			if grep -q '^MARK-data=gone' "$T/c-$step-b.log" &&
				grep -q '^MARK-keepme=mine' "$T/c-$step-b.log" &&
				grep -q '^MARK-factory=factory' "$T/c-$step-b.log" &&
				grep -q '^MARK-pending=no' "$T/c-$step-b.log" &&
				grep -Eq '^MARK-control=(reserve )?state trash $' "$T/c-$step-b.log"; then
				pass "a reset cut dead after \"$step\" is finished by the next boot: factory with keeps, clean"
			else
				fail "crash after $step" "the next boot is not factory-and-clean: $(grep '^MARK-' "$T/c-$step-b.log" | tr '\n' ' ')"
				keep_log "$T/c-$step-b.log"
			fi
		else
			fail "crash after $step" "no clean boot after the crash (see $T/c-$step-b.log)"
			keep_log "$T/c-$step-b.log"
		fi
	done
	boot "$T/c-bad.log" "$BASE" 'echo MARK-booted' --append union.test.crashafter=aside
	expect "the shipped binary refuses union.test.crashafter" "$T/c-bad.log" \
		'ignoring union.test.crashafter="aside": only test builds honour it'
else
	fail "crash points" "no clean setup boot (see $T/c0.log)"
	keep_log "$T/c0.log"
fi

# 3. union.maxfails=2: two boots without boot-ok, the third is failsafe;
# boot-ok there clears it; with boot-ok every time, never failsafe
FS='echo "MARK-failsafe=$(sed -n "s/^failsafe=//p" /run/unionroot/status)"; echo "MARK-upper=$(sed -n "s/^upper_state=//p" /run/unionroot/status)"'
DATA=$T/fails.img
new_data "$DATA"
ok=1
for i in 1 2; do
	boot "$T/f$i.log" "$DATA" "echo fail$i >>/root/boots; $FS" --append union.maxfails=2 || ok=0
done
if [ $ok = 1 ] && boot "$T/f3.log" "$DATA" "$FS"'
	echo "MARK-saved-ro=$(awk "\$2 == \"/run/unionroot/saved\" { print substr(\$4, 1, 2) }" /proc/mounts)"
	echo "MARK-boots-file=$(cat /root/boots 2>/dev/null | wc -l)"
	'"$U"' status | grep "^boot_counter"
	'"$U"' boot-ok' --append union.maxfails=2 &&
	boot "$T/f4.log" "$DATA" "$FS"' ; echo "MARK-boots-file=$(cat /root/boots | wc -l)"' --append union.maxfails=2; then
	expect "two boots without boot-ok are normal" "$T/f2.log" '^MARK-failsafe=no'
	expect "the third boot without boot-ok is failsafe" "$T/f3.log" '^MARK-failsafe=2 boots without'
	expect "a failsafe boot has a volatile upper and says why" "$T/f3.log" "^MARK-upper=volatile: failsafe: 2 boots without 'unionroot boot-ok'"
	expect "a failsafe boot keeps the persistent branch read-only under /run/unionroot/saved" "$T/f3.log" '^MARK-saved-ro=ro'
	expect "a failsafe boot does not show the saved changes" "$T/f3.log" '^MARK-boots-file=0'
	expect "boot-ok in a failsafe boot clears the counter" "$T/f3.log" '^unionroot: boot counter cleared'
	expect "after boot-ok the next boot is normal with the saved changes" "$T/f4.log" '^MARK-boots-file=2'
else
	fail "maxfails" "no clean boot (see $T/f*.log)"
	keep_log "$T/f3.log"
fi
DATA=$T/ok.img
new_data "$DATA"
ok=1
for i in 1 2 3; do
	boot "$T/o$i.log" "$DATA" "$FS; $U boot-ok" --append union.maxfails=2 || ok=0
done
if [ $ok = 1 ]; then
	expect "with boot-ok after every boot the third is not failsafe" "$T/o3.log" '^MARK-failsafe=no'
else
	fail "maxfails with boot-ok" "no clean boot (see $T/o*.log)"
fi

# 4. image upgrade v1 -> v2 with each union.upgrade policy
V2=$T/rootfs-v2.squashfs
rm -rf "$T/v2"
if unsquashfs -q -d "$T/v2" "$OUTDIR/rootfs.squashfs" >/dev/null 2>&1 &&
	echo v2 >"$T/v2/etc/image-version" &&
	mksquashfs "$T/v2" "$V2" -noappend -all-root -no-xattrs -quiet >/dev/null; then
	UP='
		[ -e /root/data ] && echo MARK-data=kept || echo MARK-data=gone
		echo "MARK-keepme=$(cat /etc/keepme 2>/dev/null)"
		echo "MARK-image=$(cat /etc/image-version 2>/dev/null)"
		sed -n "s/^\(lower_changed\|upgrade\)=/MARK-&/p" /run/unionroot/status'
	BASE=$T/up-base.img
	new_data "$BASE"
	if boot "$T/u0.log" "$BASE" "$SETUP"; then
		for policy in keep reset keeplist; do
			cp --sparse=always "$BASE" "$T/u-$policy.img"
			if ! boot "$T/u-$policy.log" "$T/u-$policy.img" "$UP" --lower "$V2" \
				--append "union.upgrade=$policy"; then
				fail "upgrade $policy" "no clean boot (see $T/u-$policy.log)"
				keep_log "$T/u-$policy.log"
				continue
			fi
			expect "upgrade=$policy: the new image is in use" "$T/u-$policy.log" '^MARK-image=v2'
			expect "upgrade=$policy: the changed image is noticed" "$T/u-$policy.log" '^MARK-lower_changed=yes'
			case $policy in
			keep) expect "upgrade=keep keeps the user's changes on top" "$T/u-$policy.log" '^MARK-data=kept' ;;
			reset)
				expect "upgrade=reset drops the user's changes" "$T/u-$policy.log" '^MARK-data=gone'
				expect "upgrade=reset drops the keep list too" "$T/u-$policy.log" '^MARK-keepme=$'
				;;
			keeplist)
				expect "upgrade=keeplist drops what is not kept" "$T/u-$policy.log" '^MARK-data=gone'
				expect "upgrade=keeplist carries the keep list over" "$T/u-$policy.log" '^MARK-keepme=mine'
				;;
			esac
		done
		boot "$T/u-same.log" "$T/u-keep.img" "$UP" --lower "$V2" --append union.upgrade=reset &&
			expect "the same image on the next boot is no upgrade" "$T/u-same.log" '^MARK-lower_changed=no'
	else
		fail "upgrade" "no clean v1 boot (see $T/u0.log)"
	fi
else
	skip "upgrade" "cannot build a v2 squashfs (squashfs-tools)"
fi
