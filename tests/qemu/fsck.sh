#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# The writable branch's file system check (board qemu-x86_64-flash, which
# carries e2fsck): a clean ext4 is checked and used, a repairable one is
# repaired and used, one with errors e2fsck -p cannot repair goes to
# union.onfail with the reason, and union.fsck=0 skips the check.
# The damaged images are made by debugfs on the host.
BOARD=qemu-x86_64-flash
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-fsck || exit 0
scratch fsck
if ! "$ROOT_DIR"/tools/initramfs-ls "$OUTDIR/initramfs.cpio.gz" | grep -qx 'sbin/e2fsck'; then
	fail "qemu-fsck" "the $BOARD initramfs carries no sbin/e2fsck (TOOLS= in its build.conf)"
	exit 0
fi
NOFLASH=$T/flash.img
truncate -s 8M "$NOFLASH"
UP='union.upper=/dev/vdc'

# repairable: wrong free-blocks count, error flag set
new_data "$T/fix.img"
debugfs -w -R "ssv free_blocks_count 100" "$T/fix.img" >/dev/null 2>&1
tune2fs -E force_fsck "$T/fix.img" >/dev/null
# unrepairable in preen mode: a block pointer far outside the file system
if ! damaged_ext4 "$T/bad.img"; then
	fail "qemu-fsck" "the damaged image is clean to e2fsck -n on the host: the test is void"
	exit 0
fi
new_data "$T/clean.img"

if boot "$T/c.log" "$NOFLASH" 'echo MARK-ran' --disk "$T/clean.img" --append "$UP"; then
	expect "a clean ext4 branch is checked before it is mounted" "$T/c.log" 'writable branch /dev/vdc: /sbin/e2fsck: clean, [0-9]+ ms'
	expect "e2fsck's own line reaches the log" "$T/c.log" 'e2fsck: data: clean'
	expect "the checked branch is the writable branch" "$T/c.log" '^real-init: status: upper_state=persistent on /dev/vdc \(ext4\)'
	expect "status records the check's cost" "$T/c.log" '^real-init: status: fsck_ms=[0-9]+'
else
	fail "fsck: clean boot" "no clean boot (see $T/c.log)"
	keep_log "$T/c.log"
fi

if boot "$T/f.log" "$NOFLASH" 'echo MARK-ran' --disk "$T/fix.img" --append "$UP"; then
	expect "a repairable branch is repaired and says so" "$T/f.log" 'writable branch /dev/vdc: /sbin/e2fsck repaired its file system \(exit 1\)'
	expect "the repaired branch is used" "$T/f.log" '^real-init: status: upper_state=persistent on /dev/vdc \(ext4\)'
else
	fail "fsck: repairable" "no clean boot (see $T/f.log)"
	keep_log "$T/f.log"
fi
if e2fsck -fn "$T/fix.img" >/dev/null 2>&1; then
	pass "the repair is on the disk (e2fsck -fn on the host finds it clean)"
else
	fail "the repair is on the disk" "e2fsck -fn on the host still finds errors"
fi

if boot "$T/b.log" "$NOFLASH" 'echo MARK-ran
	grep -q "^/dev/vdc " /proc/mounts && echo MARK-mounted || echo MARK-not-mounted' --disk "$T/bad.img" --append "$UP"; then
	expect "errors e2fsck -p cannot repair are named" "$T/b.log" 'writable branch /dev/vdc \(ext4\): /sbin/e2fsck found errors it cannot repair \(exit 4\); booting with a volatile writable branch in RAM \(union.onfail=tmpfs\)'
	expect "the boot goes on, volatile, and status says why" "$T/b.log" '^real-init: status: upper_state=volatile: writable branch /dev/vdc \(ext4\): /sbin/e2fsck found errors'
	expect "the real init ran" "$T/b.log" '^MARK-ran'
	expect "a branch e2fsck cannot repair is not mounted" "$T/b.log" '^MARK-not-mounted'
else
	fail "fsck: unrepairable" "no clean boot (see $T/b.log)"
	keep_log "$T/b.log"
fi

if boot "$T/s.log" "$NOFLASH" 'echo MARK-ran' --disk "$T/bad.img" --append "$UP union.fsck=0"; then
	expect "union.fsck=0 mounts without a check" "$T/s.log" '^real-init: status: upper_state=persistent on /dev/vdc \(ext4\)'
	expect_not "union.fsck=0 runs no checker" "$T/s.log" '/sbin/e2fsck|^e2fsck: |unionroot: e2fsck' "e2fsck ran"
else
	fail "fsck: union.fsck=0" "no clean boot (see $T/s.log)"
	keep_log "$T/s.log"
fi
