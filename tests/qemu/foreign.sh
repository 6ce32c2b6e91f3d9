#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# Foreign branches: a writable branch written on another machine by the
# kernel's own overlay with index=on, one with redirect_dir=on (a renamed
# directory of the image), and one whose work/ cannot be cleaned (work/work
# immutable, a stale index beside it). The host makes them with a real
# overlay mount over the board's image; each boots with our options
# (index=off, redirect_dir=nofollow): the user's files are there, a redirect
# is not followed, and the stale work/ is replaced by a fresh one.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-foreign || exit 0
need_root qemu-foreign || exit 0
for t in unshare chattr; do
	command -v "$t" >/dev/null || { skip qemu-foreign "$t not installed"; exit 0; }
done
scratch foreign

# branch FILE OPTIONS SCRIPT: an ext4 disk labelled data whose upper/ and
# work/ a kernel overlay over the board's image wrote with OPTIONS while
# SCRIPT ran in the merged tree ($M)
branch() {
	new_data "$1"
	unshare -m --propagation private bash -s "$1" "$OUTDIR/rootfs.squashfs" "$T/mnt" "$2" "$3" <<'EOF'
set -e
img=$1 sq=$2 mnt=$3 opts=$4 script=$5
mkdir -p "$mnt/l" "$mnt/b" "$mnt/m"
mount -o loop,ro "$sq" "$mnt/l"
mount -o loop "$img" "$mnt/b"
mkdir "$mnt/b/upper" "$mnt/b/work"
mount -t overlay overlay -o "lowerdir=$mnt/l,upperdir=$mnt/b/upper,workdir=$mnt/b/work,$opts" "$mnt/m"
M=$mnt/m B=$mnt/b bash -ec "$script"
umount "$mnt/m"
[ -z "${AFTER:-}" ] || (cd "$mnt/b" && bash -ec "$AFTER")
EOF
}
PROBE='
	echo "MARK-mine=$(cat /root/mine 2>/dev/null)"
	echo "MARK-hostname=$(cat /etc/hostname)"
	[ -e /etc/factory-file ] && echo MARK-factory-back || echo MARK-factory-gone
	echo y >/root/written && echo MARK-writable'

# 1. index=on: copied-up files carry origin handles, hard links an index
if branch "$T/index.img" index=on 'echo mine >$M/root/mine; echo foreign >$M/etc/hostname
	rm $M/etc/factory-file; ln $M/etc/hostname $M/root/hostname-link' &&
	boot "$T/1.log" "$T/index.img" "$PROBE"'
	ls /run/unionroot/rw/work | sed "s/^/WORK: /"'; then
	expect "a branch written with index=on boots persistent" "$T/1.log" '^real-init: status: upper_state=persistent on /dev/vdb \(ext4\)'
	expect "with index=off in the union's options" "$T/1.log" 'overlay_options=.*index=off'
	expect "the index=on branch keeps the user's file" "$T/1.log" '^MARK-mine=mine$'
	expect "and its change of an image file" "$T/1.log" '^MARK-hostname=foreign$'
	expect "and its deletion" "$T/1.log" '^MARK-factory-gone'
	expect "and takes a write" "$T/1.log" '^MARK-writable'
	expect_not "the index=on branch needs no fresh work/" "$T/1.log" 'retrying with a fresh work/' "its work/ was replaced"
else
	fail "a branch written with index=on" "no branch made or no clean boot (see $BUILD/tests/)"
	keep_log "$T/1.log"
fi

# 2. redirect_dir=on: a directory of the image renamed in the union
if branch "$T/redirect.img" redirect_dir=on 'echo mine >$M/root/mine; mv $M/usr/sbin $M/usr/moved-sbin' &&
	boot "$T/2.log" "$T/redirect.img" "$PROBE"'
	echo "MARK-moved=$(ls /usr/moved-sbin 2>/dev/null | wc -l)"
	[ -e /usr/sbin ] && echo MARK-old-name || echo MARK-old-name-gone'; then
	expect "a branch with a redirect boots persistent" "$T/2.log" '^real-init: status: upper_state=persistent on /dev/vdb \(ext4\)'
	expect "the redirect branch keeps the user's file" "$T/2.log" '^MARK-mine=mine$'
	expect "the renamed directory's old name stays deleted" "$T/2.log" '^MARK-old-name-gone'
	expect "the redirect is not followed (redirect_dir=nofollow): the new name shows no image files" "$T/2.log" '^MARK-moved=0$'
else
	fail "a branch written with redirect_dir=on" "no branch made or no clean boot (see $BUILD/tests/)"
	keep_log "$T/2.log"
fi

# 3. a work/ that cannot be cleaned: work/work immutable, a stale index
if AFTER='mkdir -p work/index && echo stale >work/index/junk && chattr +i work/work' \
	branch "$T/stale.img" index=on 'echo mine >$M/root/mine' &&
	boot "$T/3.log" "$T/stale.img" "$PROBE"; then
	expect "a work/ that cannot be cleaned is replaced by a fresh one" "$T/3.log" 'overlay mount refused \(Read-only file system\); retrying with a fresh work/'
	expect "that branch then boots persistent" "$T/3.log" '^real-init: status: upper_state=persistent on /dev/vdb \(ext4\)'
	expect "with the user's file" "$T/3.log" '^MARK-mine=mine$'
	expect "and takes a write" "$T/3.log" '^MARK-writable'
else
	fail "a branch whose work/ cannot be cleaned" "no branch made or no clean boot (see $BUILD/tests/)"
	keep_log "$T/3.log"
fi
