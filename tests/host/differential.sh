#!/bin/bash
# SPDX-License-Identifier: MIT
# Differential: one random stream of file operations (create, write,
# truncate, chmod, chown, symlink, hard link, rename, unlink, rmdir, mkdir,
# replacing a directory of the image) applied both to a kernel overlay and
# to the copy-up backend over the same squashfs image, each on its own ext4
# branch, in a private mount namespace. After each round both are remounted
# (the copy-up backend runs a second time: the same image, nothing to do) and the
# two views must be equal; at the end each backend's 'unionroot diff' must
# equal the diff computed from the image and the operation log
# (tests/host/oplog.py).
# pass and fail always succeed, so "test && pass || fail" is an if-then-else
# shellcheck disable=SC2015
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
set -u
need_root differential || exit 0
for t in mksquashfs python3 unshare; do
	command -v "$t" >/dev/null || { skip differential "$t not installed"; exit 0; }
done
UR=${UR_BIN:-$(cd "$BUILD" && pwd)/unionroot} # UR_BIN: another build (sanitizers)
[ -x "$UR" ] || { skip differential "$UR missing (make)"; exit 0; }
if [ -z "${DIFFERENTIAL_IN_NS:-}" ]; then
	DIFFERENTIAL_IN_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
OPLOG=$TESTS_DIR/host/oplog.py
T=$(mktemp -d "${TMPDIR:-/tmp}/differential.XXXXXX")
cleanup() {
	umount -l "$T/ov" "$T/lower" "$T/ob" "$T/cb" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/src" "$T/lower" "$T/ob" "$T/cb" "$T/ov"
ROUNDS=4
OPS=60

mount_overlay() {
	mount -t overlay overlay -o "lowerdir=$T/lower,upperdir=$T/ob/upper,workdir=$T/ob/work,index=off,redirect_dir=nofollow,metacopy=off,xino=off,nfs_export=off" "$T/ov"
}

for seed in 1 2; do
	name="differential seed $seed"
	umount -l "$T/ov" "$T/lower" "$T/ob" "$T/cb" 2>/dev/null
	rm -rf "$T/src" "$T/log" && mkdir -p "$T/src" && : >"$T/log"
	python3 "$OPLOG" image "$T/src" "$seed"
	mksquashfs "$T/src" "$T/image.sq" -noappend -quiet -no-progress >/dev/null 2>&1
	for b in ob cb; do
		rm -f "$T/$b.ext4"
		truncate -s 128M "$T/$b.ext4"
		mkfs.ext4 -q -F "$T/$b.ext4"
		mount -o loop "$T/$b.ext4" "$T/$b"
	done
	mkdir -p "$T/ob/upper" "$T/ob/work"
	if ! mount -o loop,ro "$T/image.sq" "$T/lower" || ! mount_overlay; then
		skip differential "cannot mount the image or the overlay here"
		exit 0
	fi
	if ! "$UR" copyup --image "$T/image.sq" "$T/lower" "$T/cb" >"$T/copyup.out" 2>&1; then
		fail "$name: first copy" "$(head -3 "$T/copyup.out")"
		continue
	fi
	ok=1
	for round in $(seq 1 $ROUNDS); do
		if ! ops=$(python3 "$OPLOG" ops "$T/ov" "$T/cb/upper" "$seed$round" $OPS "$T/log"); then
			fail "$name: round $round" "$ops"
			ok=0
			break
		fi
		umount "$T/ov" && mount_overlay || { fail "$name: remount" "the overlay does not mount a second time"; ok=0; break; }
		if ! "$UR" copyup --image "$T/image.sq" "$T/lower" "$T/cb" >"$T/copyup.out" 2>&1; then
			fail "$name: round $round" "copy-up on the same image failed: $(head -3 "$T/copyup.out")"
			ok=0
			break
		fi
		if ! out=$(python3 "$OPLOG" same "$T/ov" "$T/cb/upper"); then
			fail "$name: round $round" "the views differ after the remount: $out"
			ok=0
			break
		fi
	done
	[ $ok = 1 ] || continue
	pass "$name: overlay and copy-up show the same tree after each of $ROUNDS remounts (last round: $ops)"

	python3 "$OPLOG" expect "$T/lower" "$T/ov" "$T/log" overlay >"$T/want-overlay"
	python3 "$OPLOG" expect "$T/lower" "$T/cb/upper" "$T/log" copyup >"$T/want-copyup"
	umount "$T/ov"
	"$UR" diff --upper "$T/ob/upper" --lower "$T/lower" | sort >"$T/got-overlay"
	"$UR" diff "$T/cb" | sort >"$T/got-copyup"
	for b in overlay copyup; do
		if [ -s "$T/want-$b" ] && cmp -s "$T/want-$b" "$T/got-$b"; then
			pass "$name: $b diff equals the diff from the operation log ($(wc -l <"$T/want-$b") lines)"
		else
			fail "$name: $b diff" "$(diff "$T/want-$b" "$T/got-$b" | grep '^[<>]' | head -6 | tr '\n' ';')"
		fi
	done
	# outside the directories an overlay keeps opaque, the two diffs agree
	opaque=$(grep -E '^D ' "$T/want-overlay" | cut -c3- | while read -r p; do
		grep -qx "A $p" "$T/want-overlay" && echo "$p"
	done)
	strip() { # FILE: lines not under an opaque directory
		local f=$1
		if [ -z "$opaque" ]; then cat "$f"; return; fi
		awk -v list="$opaque" 'BEGIN { n = split(list, o, "\n") }
			{ p = substr($0, 3); for (i = 1; i <= n; i++) if (p == o[i] || index(p, o[i] "/") == 1) next; print }' "$f"
	}
	if cmp -s <(strip "$T/got-overlay") <(strip "$T/got-copyup"); then
		pass "$name: both backends print the same diff outside replaced directories ($(echo "$opaque" | grep -c .) replaced)"
	else
		fail "$name: backends' diffs" "$(diff <(strip "$T/got-overlay") <(strip "$T/got-copyup") | grep '^[<>]' | head -6 | tr '\n' ';')"
	fi
done
