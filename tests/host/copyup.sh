#!/bin/bash
# SPDX-License-Identifier: MIT
# The copy-up backend on real file systems (a loop-mounted squashfs image and
# an ext4 writable branch, in a private mount namespace): the first copy
# equals unsquashfs' output byte for byte and in metadata; every merge case
# of an image upgrade; kill -9 during a merge of 10,000 files, then a re-run,
# gives the tree of an uninterrupted merge.
# pass and fail always succeed, so "test && pass || fail" is an if-then-else
# shellcheck disable=SC2015
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
set -u
need_root copyup || exit 0
for t in mksquashfs unsquashfs rsync setfattr setfacl unshare python3; do
	command -v "$t" >/dev/null || { skip copyup "$t not installed"; exit 0; }
done
UR=${UR_BIN:-$(cd "$BUILD" && pwd)/unionroot} # UR_BIN: another build (sanitizers)
[ -x "$UR" ] || { skip copyup "$UR missing (make)"; exit 0; }
if [ -z "${COPYUP_IN_NS:-}" ]; then
	COPYUP_IN_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/copyup-host.XXXXXX")
cleanup() {
	for m in "$T"/mnt/*; do umount -l "$m" 2>/dev/null; done
	umount -l "$T/src" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/mnt" "$T/src"
mount -t tmpfs -o mode=0755 tmpfs "$T/src" || { skip copyup "cannot mount a tmpfs"; exit 0; }

# mkimage DIR IMAGE: a squashfs like a firmware image
# (squashfs carries user.*, security.* and trusted.* xattrs, no ACLs)
mkimage() { mksquashfs "$1" "$2" -noappend -quiet -no-progress >/dev/null 2>&1; }
# mnt NAME FILE [ro]: loop-mounts FILE at $T/mnt/NAME
mnt() {
	mkdir -p "$T/mnt/$1"
	mount -o "loop${3:+,$3}" "$2" "$T/mnt/$1"
}
newdata() { # NAME: a fresh ext4 writable branch mounted at $T/mnt/NAME
	truncate -s "${2:-256M}" "$T/$1.ext4"
	mkfs.ext4 -q -F "$T/$1.ext4"
	mnt "$1" "$T/$1.ext4"
}
copyup() { # IMAGE-MNT DATA-MNT IMAGE-FILE [options]
	local img=$1 rw=$2 file=$3
	shift 3
	"$UR" copyup "$@" --image "$file" "$img" "$rw"
}
# same_tree NAME A B: rsync sees no difference (content, owners, modes,
# times, hard links, ACLs, xattrs); directory times aside when $4 = nodirtimes
same_tree() {
	local out
	out=$(rsync -naiHAX --checksum --numeric-ids ${4:+-O} "$2/" "$3/" 2>&1 | grep -v '^\.d\.\.t\.\.\.\.\.\. \./$')
	if [ -z "$out" ]; then
		pass "$1"
	else
		fail "$1" "rsync sees: $(echo "$out" | head -5 | tr '\n' ';')"
	fi
}

# ---- 1. first copy --------------------------------------------------------
S=$T/src/a
mkdir -p "$S"/{etc,bin,srv/deep/er,tmp,dev,var/empty}
echo "hello" >"$S/etc/hostname"
head -c 300000 /dev/urandom >"$S/bin/tool"
chmod 4755 "$S/bin/tool"
head -c 5000 /dev/urandom >"$S/bin/sgid" && chmod 2711 "$S/bin/sgid"
# a file capability (security.capability), which a chown after the xattrs would drop
command -v setcap >/dev/null && head -c 4000 /dev/urandom >"$S/bin/ping" && setcap cap_net_raw+ep "$S/bin/ping"
chmod 1777 "$S/tmp"
chmod 0700 "$S/var/empty"
: >"$S/etc/empty"
truncate -s 20M "$S/srv/sparse" && printf 'middle' | dd of="$S/srv/sparse" bs=1 seek=10485760 conv=notrunc status=none
printf 'tail' >>"$S/srv/sparse"
ln -s /etc/hostname "$S/etc/abs-link"
ln -s ../etc/hostname "$S/bin/rel-link"
ln -s /nowhere "$S/etc/dangling"
echo linked >"$S/srv/h1" && ln "$S/srv/h1" "$S/srv/h2" && ln "$S/srv/h1" "$S/srv/deep/er/h3"
mkfifo "$S/dev/fifo"
mknod "$S/dev/null" c 1 3 && mknod "$S/dev/loopx" b 7 200 && chmod 0660 "$S/dev/loopx"
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$S/dev/sock"
echo owned >"$S/srv/owned" && chown 1234:5678 "$S/srv/owned" "$S/srv/deep"
printf 'odd names\n' >"$S/srv/with space" && printf 'x' >"$S/srv/back\\slash" && printf 'y' >"$S/srv/new
line"
setfattr -n user.note -v "kept" "$S/etc/hostname"
setfattr -n user.dir -v "d" "$S/srv/deep"
setfacl -m u:1234:rwx "$S/srv/owned"
setfacl -d -m g:5678:rx "$S/srv/deep"
touch -h -d '2001-02-03 04:05:06.123456789' "$S/etc/abs-link"
touch -d '1999-12-31 23:59:59' "$S/etc/hostname" "$S/srv/deep/er"
mkimage "$S" "$T/a.sqsh"
unsquashfs -q -n -d "$T/unsq" "$T/a.sqsh" >/dev/null
mnt imga "$T/a.sqsh" ro
newdata rw1
start=$(date +%s%N)
if copyup "$T/mnt/imga" "$T/mnt/rw1" "$T/a.sqsh" >"$T/c1.out" 2>&1; then
	pass "the first copy runs ($(( ($(date +%s%N) - start) / 1000000 )) ms)"
else
	fail "the first copy runs" "$(cat "$T/c1.out")"
fi
expect "the first run says it is a first boot" "$T/c1.out" '^copyup: first boot'
same_tree "the first copy equals unsquashfs' output in content and metadata" "$T/unsq" "$T/mnt/rw1/upper"
h1=$(stat -c %i "$T/mnt/rw1/upper/srv/h1")
[ "$(stat -c %i "$T/mnt/rw1/upper/srv/deep/er/h3")" = "$h1" ] && [ "$(stat -c %h "$T/mnt/rw1/upper/srv/h1")" = 3 ] &&
	pass "hard links stay hard links" || fail "hard links stay hard links" "inodes differ"
blocks=$(stat -c %b "$T/mnt/rw1/upper/srv/sparse")
[ "$blocks" -lt 1000 ] && pass "a sparse file keeps its holes ($blocks blocks)" ||
	fail "a sparse file keeps its holes" "$blocks blocks allocated"
[ "$(stat -c %a "$T/mnt/rw1/upper/bin/tool")" = 4755 ] && [ "$(stat -c %a "$T/mnt/rw1/upper/tmp")" = 1777 ] &&
	pass "setuid and sticky bits survive" || fail "setuid and sticky bits survive" "modes differ"
if ! command -v getcap >/dev/null; then
	skip "a copied file keeps its file capability" "setcap/getcap not installed (libcap2-bin)"
else
	getcap "$T/mnt/rw1/upper/bin/ping" | grep -q 'cap_net_raw[=+]ep' &&
		pass "a copied file keeps its file capability (setcap cap_net_raw+ep)" ||
		fail "a copied file keeps its file capability" "getcap shows: '$(getcap "$T/mnt/rw1/upper/bin/ping" 2>&1)'"
fi
[ -f "$T/mnt/rw1/.unionroot/manifest" ] && [ -z "$(ls -A "$T/mnt/rw1/.unionroot/stage")" ] &&
	pass "the manifest is committed and the stage is empty" || fail "the manifest is committed and the stage is empty" "see $T/mnt/rw1/.unionroot"

# ACLs: squashfs has none, so the image here is the tmpfs tree itself
newdata rwacl
if "$UR" copyup --id tree-a "$S" "$T/mnt/rwacl" >"$T/acl.out" 2>&1; then
	same_tree "a tree with ACLs is copied with them (source: a tmpfs tree)" "$S" "$T/mnt/rwacl/upper"
	getfacl -p "$T/mnt/rwacl/upper/srv/owned" 2>/dev/null | grep -q '^user:1234:rwx' &&
		pass "... the access ACL is there" || fail "... the access ACL is there" "getfacl shows none"
else
	fail "a tree with ACLs is copied with them" "$(cat "$T/acl.out")"
fi

copyup "$T/mnt/imga" "$T/mnt/rw1" "$T/a.sqsh" >"$T/c2.out" 2>&1
expect "a second boot with the same image does nothing" "$T/c2.out" '^copyup: same image as the last boot'

# the manifest reader on hostile content: a clear reason, a merge without base
cp "$T/mnt/rw1/.unionroot/manifest" "$T/manifest.good"
sed -i '0,/^f /s/^f /f ../' "$T/mnt/rw1/.unionroot/manifest" # the first file line
"$UR" diff "$T/mnt/rw1" >"$T/diff-bad.out" 2>&1
expect "diff refuses an edited manifest with a reason" "$T/diff-bad.out" 'checksum mismatch'
cp "$T/manifest.good" "$T/mnt/rw1/.unionroot/manifest"

# ---- 2. every merge case --------------------------------------------------
B=$T/src/base
mkdir -p "$B/m/dgone/sub" "$B/m/dkept" "$B/m/ddel" "$B/m/duser" "$B/m/typ"
for u in u e d; do
	for i in k c r; do echo "base $u$i" >"$B/m/f_${u}_$i"; done
done
echo "base" >"$B/m/dgone/sub/x"
echo "base" >"$B/m/ddel/x"
echo "base" >"$B/m/duser/x"
echo "base" >"$B/m/typ/was-file"
echo "base" >"$B/m/chmod"
cp -a "$B" "$T/src/new"
N=$T/src/new
for u in u e d; do
	echo "new $u" >"$N/m/f_${u}_c"
	rm "$N/m/f_${u}_r"
done
rm -r "$N/m/dgone" "$N/m/duser"
echo "image add" >"$N/m/ddel/added-later"
echo "image add" >"$N/m/f_n_none"
echo "same both" >"$N/m/f_a_same"
echo "image side" >"$N/m/f_a_diff"
rm "$N/m/typ/was-file" && mkdir "$N/m/typ/was-file" && echo in >"$N/m/typ/was-file/now-dir"
chmod 0600 "$N/m/chmod"
mkimage "$B" "$T/base.sqsh"
mkimage "$N" "$T/new.sqsh"
mnt base "$T/base.sqsh" ro
mnt new "$T/new.sqsh" ro
newdata rw2
copyup "$T/mnt/base" "$T/mnt/rw2" "$T/base.sqsh" >/dev/null
U=$T/mnt/rw2/upper/m
for i in k c r; do
	echo "user e$i" >"$U/f_e_$i"
	rm "$U/f_d_$i"
done
rm -r "$U/ddel"
echo "mine" >"$U/duser/mine"
echo "same both" >"$U/f_a_same"
echo "user side" >"$U/f_a_diff"
echo "only mine" >"$U/f_a_none"
"$UR" diff "$T/mnt/rw2" >"$T/diff.out" 2>&1
expect "diff lists an edited image file as M" "$T/diff.out" '^M /m/f_e_k$'
expect "diff lists a deleted image file as D" "$T/diff.out" '^D /m/f_d_k$'
expect "diff lists a deleted directory as one D" "$T/diff.out" '^D /m/ddel$'
expect "diff lists the user's own file as A" "$T/diff.out" '^A /m/f_a_none$'
grep -q '^[AMD] /m/f_u_' "$T/diff.out" && fail "diff is quiet about untouched files" "$(grep f_u_ "$T/diff.out")" ||
	pass "diff is quiet about untouched files"
# --stat counts what the list shows, the manifest's deletions included (copy-up
# mode has no whiteouts to count); the same for this boot's branch, with no RW
deleted=$(grep -c '^D ' "$T/diff.out")
"$UR" diff --stat "$T/mnt/rw2" >"$T/stat.out" 2>&1
expect "diff --stat counts the deletions of copy-up mode ($deleted)" "$T/stat.out" "^[0-9]+ added, [1-9][0-9]* modified, $deleted deleted, "
# shellcheck disable=SC2016 # expanded by the inner bash
unshare -m --propagation private bash -c 'mount -t tmpfs tmpfs /run && mkdir -p /run/unionroot/rw &&
	mount --bind "$1" /run/unionroot/rw && "$2" diff --stat && "$2" diff' _ "$T/mnt/rw2" "$UR" >"$T/stat-run.out" 2>&1
expect "this boot's 'unionroot diff --stat' counts them too" "$T/stat-run.out" "^[0-9]+ added, [1-9][0-9]* modified, $deleted deleted, "
expect "this boot's 'unionroot diff' lists a deleted image file as D" "$T/stat-run.out" '^D /m/f_d_k$'
copyup "$T/mnt/new" "$T/mnt/rw2" "$T/new.sqsh" >"$T/merge.out" 2>&1
expect "an image change is merged" "$T/merge.out" '^copyup: the image changed: merging'
# case | path | expected content ("-" = absent)
while IFS="|" read -r name path want; do
	name=${name%"${name##*[! ]}"} path=${path// /} want=${want// /}
	if [ "$want" = - ]; then
		[ ! -e "$U/$path" ] && [ ! -L "$U/$path" ] && pass "merge: $name" ||
			fail "merge: $name" "/m/$path exists"
	elif [ "$want" = DIR ]; then
		[ -d "$U/$path" ] && pass "merge: $name" || fail "merge: $name" "/m/$path is not a directory"
	else
		got=$(cat "$U/$path" 2>/dev/null || echo '<absent>')
		[ "$got" = "${want//_/ }" ] && pass "merge: $name" || fail "merge: $name" "/m/$path holds '$got', want '${want//_/ }'"
	fi
done <<-'CASES'
	untouched x image kept: unchanged | f_u_k | base_uk
	untouched x image changed: follows it | f_u_c | new_u
	untouched x image removed: removed | f_u_r | -
	edited x image kept: the user's | f_e_k | user_ek
	edited x image changed: the user's | f_e_c | user_ec
	edited x image removed: the user's | f_e_r | user_er
	deleted x image kept: stays deleted | f_d_k | -
	deleted x image changed: stays deleted | f_d_c | -
	deleted x image removed: gone | f_d_r | -
	added x image added the same | f_a_same | same_both
	added x image added another: the user's | f_a_diff | user_side
	added by the user only: kept | f_a_none | only_mine
	added by the image: appears | f_n_none | image_add
	deleted directory: new image files stay out | ddel | -
	untouched directory left the image: gone | dgone | -
	directory with the user's files: kept | duser/mine | mine
	a file that became a directory | typ/was-file | DIR
	a file inside the new directory | typ/was-file/now-dir | in
CASES
[ "$(stat -c %a "$U/chmod")" = 600 ] && pass "merge: an untouched file takes the image's new mode" ||
	fail "merge: an untouched file takes the image's new mode" "mode $(stat -c %a "$U/chmod")"
expect "a conflict is logged" "$T/merge.out" 'f_e_c changed by you and in the image; your version is kept'
cp "$T/mnt/rw2/.unionroot/manifest" "$T/m1"
copyup "$T/mnt/new" "$T/mnt/rw2" "$T/new.sqsh" >"$T/merge2.out" 2>&1
expect "after the merge the same image costs nothing" "$T/merge2.out" '^copyup: same image'
# reset: restore what differs, drop what the user added
copyup "$T/mnt/new" "$T/mnt/rw2" "$T/new.sqsh" --reset >"$T/reset.out" 2>&1
expect "a reset restores from the manifest" "$T/reset.out" '^copyup: factory reset'
unsquashfs -q -n -d "$T/unsq-new" "$T/new.sqsh" >/dev/null
same_tree "after a reset upper/ equals the image" "$T/unsq-new" "$T/mnt/rw2/upper" nodirtimes

# ---- 3. kill -9 during a merge of 10,000 files ----------------------------
K=$T/src/k
python3 - "$K" <<-'PY'
	import os, sys, random
	random.seed(5)
	root = sys.argv[1]
	for d in range(100):
	    os.makedirs(f"{root}/d{d:03}", exist_ok=True)
	    for f in range(100):
	        with open(f"{root}/d{d:03}/f{f:03}", "wb") as fh:
	            fh.write(random.randbytes(random.randint(0, 6000)))
PY
mkimage "$K" "$T/k1.sqsh"
python3 - "$K" <<-'PY'
	import os, sys, random
	random.seed(6)
	root = sys.argv[1]
	paths = sorted(f"{root}/d{d:03}/f{f:03}" for d in range(100) for f in range(100))
	for p in random.sample(paths, 100):
	    with open(p, "wb") as fh:
	        fh.write(random.randbytes(random.randint(0, 6000)))
	for p in random.sample(paths, 30):
	    if os.path.exists(p):
	        os.remove(p)
	for d in range(100, 103):
	    os.makedirs(f"{root}/d{d:03}")
	    for f in range(20):
	        with open(f"{root}/d{d:03}/f{f:03}", "wb") as fh:
	            fh.write(random.randbytes(100))
PY
mkimage "$K" "$T/k2.sqsh"
mnt k1 "$T/k1.sqsh" ro
mnt k2 "$T/k2.sqsh" ro
newdata ka 512M
copyup "$T/mnt/k1" "$T/mnt/ka" "$T/k1.sqsh" >/dev/null
for f in d001/f001 d050/f050 d099/f099; do echo edited >"$T/mnt/ka/upper/$f"; done
rm -r "$T/mnt/ka/upper/d002" "$T/mnt/ka/upper/d003/f003"
umount "$T/mnt/ka"
cp --sparse=always "$T/ka.ext4" "$T/kb.ext4"
mnt ka "$T/ka.ext4"
mnt kb "$T/kb.ext4"
start=$(date +%s%N)
copyup "$T/mnt/k2" "$T/mnt/ka" "$T/k2.sqsh" >"$T/ka.out" 2>&1
ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect "an uninterrupted merge of 10,000 files runs (${ms} ms)" "$T/ka.out" '^copyup: the image changed: merging'
kills=0
for delay in 0.02 0.05 0.1 0.15 0.2 0.3 0.45 0.6; do
	# the binary itself in the background: killing a shell function's
	# subshell would leave the copy running
	"$UR" copyup --image "$T/k2.sqsh" "$T/mnt/k2" "$T/mnt/kb" >/dev/null 2>&1 &
	pid=$!
	sleep "$delay"
	kill -9 "$pid" 2>/dev/null && kills=$((kills + 1))
	wait "$pid" 2>/dev/null
done
copyup "$T/mnt/k2" "$T/mnt/kb" "$T/k2.sqsh" >"$T/kb.out" 2>&1
echo "copyup: $kills runs killed with SIGKILL before the final one"
same_tree "kill -9 at $kills points, then a re-run: the tree of an uninterrupted merge" "$T/mnt/ka/upper" "$T/mnt/kb/upper" nodirtimes
strip() { cut -d' ' -f1-7,10- "$1"; }
if diff <(strip "$T/mnt/ka/.unionroot/manifest" | sed '$d') <(strip "$T/mnt/kb/.unionroot/manifest" | sed '$d') >/dev/null; then
	pass "... and the same manifest (inode stamps aside)"
else
	fail "... and the same manifest (inode stamps aside)" "manifests differ"
fi
[ ! -e "$T/mnt/kb/upper/d002" ] && [ "$(cat "$T/mnt/kb/upper/d050/f050")" = edited ] &&
	pass "... keeping the user's deletions and edits" || fail "... keeping the user's deletions and edits" "see $T/mnt/kb/upper"
