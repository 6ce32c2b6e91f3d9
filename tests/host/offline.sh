#!/bin/bash
# SPDX-License-Identifier: MIT
# Offline changes of an overlay's layers, the cases of fstests overlay/031,
# 035 and 037, on mounts made with the options the boot passes
# (unionroot/overlay/overlay.c): an ext4 branch over squashfs images in a private
# mount namespace. 031: an image upgrade drops a directory in which the user
# deleted files: their whiteouts must not show, the directory must go.
# 035: a work/work that cannot be recreated forces a read-only mount (what
# the boot detects and answers with a fresh work/). 037: a branch written
# with index=on meets a new image: index=on refuses it (ESTALE), ours mounts.
# pass and fail always succeed, so "test && pass || fail" is an if-then-else
# shellcheck disable=SC2015
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
set -u
need_root offline || exit 0
for t in mksquashfs unshare chattr mkfs.ext4; do
	command -v "$t" >/dev/null || { skip offline "$t not installed"; exit 0; }
done
if [ -z "${OFFLINE_IN_NS:-}" ]; then
	OFFLINE_IN_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/offline.XXXXXX")
cleanup() {
	chattr -i "$T/b/work/work" 2>/dev/null
	umount -l "$T/m" "$T/l1" "$T/l2" "$T/b" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
# the boot's own options, read from the one place that lists them
OPTS=$(sed -n 's/^#define FIXED_OPTIONS ",\(.*\)"$/\1/p' "$ROOT_DIR/unionroot/overlay/overlay.c")
case $OPTS in
index=off,redirect_dir=nofollow,*) ;;
*) fail "offline: the boot's overlay options" "not found in unionroot/overlay/overlay.c ($OPTS)"; exit 0 ;;
esac
mkdir -p "$T/src1/testdir" "$T/src1/etc" "$T/src2/etc" "$T/l1" "$T/l2" "$T/b" "$T/m"
for f in a b c; do echo "$f" >"$T/src1/testdir/$f"; done
echo v1 >"$T/src1/etc/version"
echo v2 >"$T/src2/etc/version"
mksquashfs "$T/src1" "$T/1.sqfs" -noappend -quiet -no-progress >/dev/null
mksquashfs "$T/src2" "$T/2.sqfs" -noappend -quiet -no-progress >/dev/null
truncate -s 32M "$T/branch.img"
mkfs.ext4 -q -F "$T/branch.img"
if ! mount -o loop,ro "$T/1.sqfs" "$T/l1" || ! mount -o loop,ro "$T/2.sqfs" "$T/l2" ||
	! mount -o loop "$T/branch.img" "$T/b"; then
	skip offline "cannot mount squashfs or ext4 images here"
	exit 0
fi
# ovl LOWER [EXTRA]: the union over one image and the branch
ovl() { mount -t overlay overlay -o "lowerdir=$1,upperdir=$T/b/upper,workdir=$T/b/work,$OPTS${2:+,$2}" "$T/m"; }
fresh() { rm -rf "$T/b/upper" "$T/b/work" && mkdir "$T/b/upper" "$T/b/work"; }
rdonly() { grep -q " $T/m overlay ro[,]" /proc/mounts; }

# --- 031: whiteouts in a directory the new image no longer has ----------------
fresh
if ovl "$T/l1" && rm "$T/m/testdir/a" "$T/m/testdir/b" && echo mine >"$T/m/testdir/mine" && umount "$T/m" && ovl "$T/l2"; then
	listing=$(find "$T/m/testdir" -mindepth 1 -printf '%f ')
	[ "$listing" = "mine " ] && pass "offline 031: after an upgrade drops a directory, only the user's file shows in it" ||
		fail "offline 031: after an upgrade drops a directory, only the user's file shows in it" "ls shows '$listing'"
	rm "$T/m/testdir/mine"
	rmdir "$T/m/testdir" 2>/dev/null && pass "offline 031: that directory can be removed (no hidden whiteouts keep it)" ||
		fail "offline 031: that directory can be removed (no hidden whiteouts keep it)" "rmdir failed"
	[ "$(cat "$T/m/etc/version")" = v2 ] && pass "offline 031: the union shows the new image" ||
		fail "offline 031: the union shows the new image" "etc/version is $(cat "$T/m/etc/version")"
	umount "$T/m"
else
	fail "offline 031: whiteouts over a dropped directory" "an overlay mount or the changes failed"
	umount "$T/m" 2>/dev/null
fi

# --- 035: work/work that cannot be removed forces a read-only mount -------------
fresh
mkdir "$T/b/work/work"
if chattr +i "$T/b/work/work" 2>/dev/null; then
	if ovl "$T/l1"; then
		rdonly && pass "offline 035: a work/ that cannot be cleaned makes the union read-only (the boot sees it)" ||
			fail "offline 035: a work/ that cannot be cleaned makes the union read-only (the boot sees it)" "it mounted read-write"
		umount "$T/m"
	else
		fail "offline 035: a work/ that cannot be cleaned" "the mount failed instead of coming up read-only"
	fi
	chattr -i "$T/b/work/work"
	# what the boot's second try does: the old work/ moved aside, a new one made
	mv "$T/b/work" "$T/b/old-work" && mkdir "$T/b/work"
	if ovl "$T/l1" && ! rdonly && echo x >"$T/m/etc/new"; then
		pass "offline 035: with a fresh work/ the union is writable"
	else
		fail "offline 035: with a fresh work/ the union is writable" "mount, read-write or write failed"
	fi
	umount "$T/m" 2>/dev/null
else
	skip "offline 035" "chattr +i is refused on this ext4"
fi

# --- 037: a branch written with index=on, then a new image ----------------------
fresh
if ovl "$T/l1" index=on,redirect_dir=on 2>/dev/null || { fresh && mount -t overlay overlay \
	-o "lowerdir=$T/l1,upperdir=$T/b/upper,workdir=$T/b/work,index=on" "$T/m"; }; then
	echo changed >"$T/m/etc/version"
	echo user >"$T/m/testdir/mine"
	umount "$T/m"
	if mount -t overlay overlay -o "lowerdir=$T/l2,upperdir=$T/b/upper,workdir=$T/b/work,index=on" "$T/m" 2>/dev/null; then
		umount "$T/m"
		skip "offline 037: index=on refuses a new image" "this kernel mounted it (squashfs without file handles?)"
	else
		pass "offline 037: index=on refuses the branch over a new image (what index=off avoids)"
	fi
	if ovl "$T/l2" && ! rdonly; then
		[ "$(cat "$T/m/etc/version")" = changed ] && [ "$(cat "$T/m/testdir/mine")" = user ] &&
			pass "offline 037: with the boot's options the index=on branch mounts over the new image, the user's files intact" ||
			fail "offline 037: with the boot's options the index=on branch mounts over the new image, the user's files intact" "files differ"
		umount "$T/m"
	else
		fail "offline 037: with the boot's options the index=on branch mounts over the new image" "mount failed or read-only"
	fi
else
	skip "offline 037" "this kernel cannot mount with index=on"
fi
