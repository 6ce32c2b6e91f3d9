#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# PID 1's watchdog: a step that outlives its budget is named on the console,
# with where in the kernel PID 1 waits, and the boot goes on; the watchdog
# is gone once the real init runs. The stall is the test build's
# union.test.stall (PID 1 sleeps inside the writable branch's mount step),
# which the shipped binary refuses.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-watchdog || exit 0
scratch watchdog
TEST_INITRD=$OUTDIR/initramfs-test.cpio.gz
# what the real init sees: how many watchdogs are left, and the union
PROBE='
	echo "MARK-watchdogs=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c "^unionroot-wd$")"
	echo "MARK-backend=$(/run/unionroot/bin/unionroot status | sed -n "s/^backend=//p")"'

DATA=$T/data.img
new_data "$DATA"
# a mount step's budget is 20 s: a stall of 26 s passes it
if boot "$T/stall.log" "$DATA" "$PROBE" --initrd "$TEST_INITRD" --append "union.test.stall=26"; then
	pass "a boot with a mount step that stalls for 26 s goes on to the real init"
	expect "the watchdog names the stalled step, its age and PID 1's kernel wait" "$T/stall.log" \
		'unionroot: still mounting writable branch /dev/vdb \(ext4\) after 2[0-9] s; PID 1 is waiting in [a-z_]*nanosleep'
	expect "the stall ends in the writable branch the step was mounting" "$T/stall.log" '^MARK-backend=overlay$'
	expect "the watchdog is ended before the real init runs" "$T/stall.log" '^MARK-watchdogs=0$'
	said=$(grep -ac 'unionroot: still mounting writable branch' "$T/stall.log")
	if [ "$said" = 1 ]; then
		pass "the watchdog speaks once for one step"
	else
		fail "the watchdog speaks once for one step" "said $said times"
	fi
else
	fail "a boot with a mount step that stalls for 26 s goes on to the real init" "see $BUILD/tests/"
	keep_log "$T/stall.log"
fi

# the usual boot: no step outlives its budget, so nothing is said
if boot "$T/plain.log" "$DATA" "$PROBE"; then
	expect "a boot without a stall ends its watchdog too" "$T/plain.log" '^MARK-watchdogs=0$'
	expect_not "a boot without a stall has no watchdog line" "$T/plain.log" 'unionroot: still ' \
		"the watchdog spoke on a boot that did not stall"
else
	fail "a boot without a stall ends its watchdog too" "see $BUILD/tests/"
	keep_log "$T/plain.log"
fi

# the shipped binary: no stall, said so
if boot "$T/shipped.log" "$DATA" 'echo MARK-booted' --append "union.test.stall=26"; then
	expect "the shipped binary refuses union.test.stall" "$T/shipped.log" \
		'ignoring union.test.stall=26: only test builds honour it'
	expect_not "the shipped binary does not stall" "$T/shipped.log" 'test stall: sleeping' \
		"the shipped binary stalled"
else
	fail "the shipped binary refuses union.test.stall" "see $BUILD/tests/"
	keep_log "$T/shipped.log"
fi
