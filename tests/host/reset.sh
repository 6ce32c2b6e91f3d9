#!/bin/bash
# SPDX-License-Identifier: MIT
# Host integration (root, a private mount namespace, a loop-mounted ext4):
# the reset killed with SIGKILL right after each step and run anew is old
# or factory every time; the keep list copies nested dirs and globs and never
# follows a planted symlink; 'unionroot diff' on a real overlayfs upper.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
set -u
need_root host-reset || exit 0
BIN=${UR_BIN:-$(cd "$ROOT_DIR" && realpath "$BUILD/unionroot-test")} # UR_BIN: another build (sanitizers)
if [ ! -x "$BIN" ]; then
	skip host-reset "$BUILD/unionroot-test missing (make)"
	exit 0
fi
if [ -z "${UNIONROOT_IN_NS:-}" ]; then
	exec env UNIONROOT_IN_NS=1 unshare -m --propagation private bash "$0" "$@"
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/unionroot-host-reset.XXXXXX")
M=$T/mnt
cleanup() {
	umount -R "$M" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
truncate -s 256M "$T/disk.img"
mkfs.ext4 -q -F "$T/disk.img"
mkdir -p "$M"
if ! mount -o loop "$T/disk.img" "$M"; then
	skip host-reset "cannot loop-mount an ext4 image here"
	exit 0
fi

# The boot's layout step syncs the branch top only when it changed it: a
# branch laid out before (the usual boot) costs no journal commit there.
if command -v strace >/dev/null; then
	S=$M/synced
	mkdir -p "$S"
	strace -f -y -e trace=fsync -o "$T/sync1" "$BIN" test-reset "$S" >/dev/null 2>&1
	strace -f -y -e trace=fsync -o "$T/sync2" "$BIN" test-reset "$S" >/dev/null 2>&1
	expect "host: a new branch's upper/ and work/ are synced in its top" "$T/sync1" "fsync\([0-9]+<$S>\)"
	expect_not "host: a branch laid out before is not synced a second time" "$T/sync2" "fsync\([0-9]+<$S>\)" \
		"$(grep "<$S>" "$T/sync2" | head -n1)"
else
	skip "host: layout syncs" "strace not installed"
fi

# A branch top holding a user's tree, a keep file with globs, nested dirs,
# and symlinks planted to lead out of the root.
make_branch() { # DIR
	local d=$1
	mkdir -p "$d"
	"$BIN" test-reset "$d" >/dev/null || return 1
	mkdir -p "$d/upper/etc/unionroot" "$d/upper/home/a/.ssh/deep" "$d/upper/home/b/.ssh" "$d/upper/root"
	echo a >"$d/upper/home/a/.ssh/key"
	echo deep >"$d/upper/home/a/.ssh/deep/f"
	echo b >"$d/upper/home/b/.ssh/key"
	chmod 0600 "$d/upper/home/b/.ssh/key"
	chown 1234:5678 "$d/upper/home/b/.ssh/key"
	# setuid and setgid, which a chown after the chmod would clear
	echo tool >"$d/upper/home/b/.ssh/tool"
	chown 1234:5678 "$d/upper/home/b/.ssh/tool"
	chmod 6755 "$d/upper/home/b/.ssh/tool"
	echo user >"$d/upper/root/data"
	# a file capability, which a chown after the xattr copy would drop
	if command -v setcap >/dev/null; then
		echo ping >"$d/upper/home/a/.ssh/ping"
		setcap cap_net_raw+ep "$d/upper/home/a/.ssh/ping"
	fi
	mkdir -p "$T/outside"
	echo secret >"$T/outside/secret"
	ln -sfn "$T/outside" "$d/upper/etc/abs"
	ln -sfn ../../../.. "$d/upper/etc/rel"
	# overlay marks: an opaque parent, a kept opaque directory, a kept whiteout
	mkdir -p "$d/upper/var/lib/app"
	echo conf >"$d/upper/var/lib/app/conf"
	setfattr -n trusted.overlay.opaque -v y "$d/upper/var"
	setfattr -n trusted.overlay.opaque -v y "$d/upper/var/lib/app"
	mknod "$d/upper/var/lib/gone" c 0 0
	printf '%s\n' '/home/*/.ssh' '/etc/abs/*' '/etc/rel/*' '/etc/abs' '/etc/../root' \
		'/var/lib/app' '/var/lib/gone' >"$d/upper/etc/unionroot/keep"
}

state_of() { # DIR: old, factory or mixed
	local d=$1
	if [ -f "$d/upper/root/data" ] && [ -f "$d/upper/home/b/.ssh/key" ]; then
		echo old
	elif [ ! -e "$d/upper/root/data" ] && [ -f "$d/upper/home/a/.ssh/deep/f" ] &&
		[ -f "$d/upper/home/b/.ssh/key" ] && [ -d "$d/upper" ] && [ -d "$d/work" ]; then
		echo factory
	else
		echo mixed
	fi
}

# 1. keep list semantics on one full run
B=$M/keep
make_branch "$B"
out=$("$BIN" test-reset "$B" - keeplist 2>&1)
if [ "$(state_of "$B")" = factory ]; then
	pass "host: reset with a keep list keeps nested dirs and globs, drops the rest"
else
	fail "host: keep list" "state $(state_of "$B"): $out"
fi
if [ "$(stat -c '%a %u %g' "$B/upper/home/b/.ssh/key")" = "600 1234 5678" ] &&
	[ "$(stat -c '%a %u %g' "$B/upper/home/b/.ssh/tool")" = "6755 1234 5678" ]; then
	pass "host: kept files keep their owner and mode, setuid and setgid too"
else
	fail "host: kept metadata" "$(stat -c '%a %u %g %n' "$B/upper/home/b/.ssh/key" "$B/upper/home/b/.ssh/tool")"
fi
opaque() { getfattr -h --only-values -n trusted.overlay.opaque "$1" 2>/dev/null; }
if [ "$(opaque "$B/upper/var/lib/app")" = y ] && [ -z "$(opaque "$B/upper/var")" ] &&
	[ "$(cat "$B/upper/var/lib/app/conf")" = conf ] &&
	[ "$(stat -c '%F %t:%T' "$B/upper/var/lib/gone")" = "character special file 0:0" ]; then
	pass "host: a kept directory stays opaque and a kept whiteout a whiteout; their parent is not made opaque"
else
	fail "host: kept overlay marks" "app '$(opaque "$B/upper/var/lib/app")', var '$(opaque "$B/upper/var")', gone: $(stat -c '%F %t:%T' "$B/upper/var/lib/gone" 2>&1)"
fi
if ! command -v getcap >/dev/null; then
	skip "host: kept file capabilities" "setcap/getcap not installed (libcap2-bin)"
elif getcap "$B/upper/home/a/.ssh/ping" | grep -q 'cap_net_raw[=+]ep' &&
	[ "$(cat "$B/upper/home/a/.ssh/ping")" = ping ]; then
	pass "host: a kept file keeps its file capability (setcap cap_net_raw+ep)"
else
	fail "host: kept file capability" "getcap shows: '$(getcap "$B/upper/home/a/.ssh/ping" 2>&1)'"
fi
if [ -L "$B/upper/etc/abs" ] && [ -z "$(find "$B/upper" -name secret)" ] && [ -f "$T/outside/secret" ] &&
	[ ! -e "$B/upper/etc/rel" ] && echo "$out" | grep -q 'not keeping /etc/abs: is a symbolic link'; then
	pass "host: a planted symlink is kept as a link and never followed"
else
	fail "host: planted symlink" "$(find "$B/upper/etc" -printf '%p %y ' 2>&1) $out"
fi
if echo "$out" | grep -q 'ignoring "/etc/../root"'; then
	pass "host: a keep path with .. is refused"
else
	fail "host: keep path with .." "$out"
fi

# 1b. the image's keep list (the reset opens it with openat2), also on a
# kernel without openat2 (before 5.6): noopenat2.py makes it answer ENOSYS
LOW=$M/image
mkdir -p "$LOW/etc/unionroot"
echo /root >"$LOW/etc/unionroot/keep"
for kernel in openat2 noopenat2; do
	B=$M/image-keep-$kernel
	wrap=()
	[ "$kernel" = noopenat2 ] && wrap=(python3 "$(dirname "$0")/noopenat2.py")
	mkdir -p "$B" && "$BIN" test-reset "$B" >/dev/null
	mkdir -p "$B/upper/root" "$B/upper/srv"
	echo user >"$B/upper/root/data"
	echo dropped >"$B/upper/srv/x"
	out=$("${wrap[@]}" "$BIN" test-reset "$B" - keeplist "$LOW" 2>&1)
	if [ "$(cat "$B/upper/root/data" 2>/dev/null)" = user ] && [ ! -e "$B/upper/srv/x" ]; then
		pass "host: the image's keep list is honoured ($kernel)"
	else
		fail "host: image keep list ($kernel)" "$(find "$B/upper" -printf '%p ' 2>&1) $out"
	fi
done

# 1c. a user's tree deeper than any fixed limit goes with the trash: the
# factory reset's deletion leaves nothing of it for the next boot to redo
# (also before Linux 5.6, where the directories open without openat2)
deep_tree() { # DIR LEVELS: a directory "d" in each, a file at each level
	(cd "$1" && for ((i = 0; i < $2; i++)); do mkdir d && cd d && echo "$i" >f || exit 1; done)
}
for kernel in openat2 noopenat2; do
	B=$M/deep-$kernel
	wrap=()
	[ "$kernel" = noopenat2 ] && wrap=(python3 "$(dirname "$0")/noopenat2.py")
	mkdir -p "$B" && "$BIN" test-reset "$B" >/dev/null
	mkdir -p "$B/upper/home/u"
	deep_tree "$B/upper/home/u" 300
	out=$("${wrap[@]}" "$BIN" test-reset "$B" - factory 2>&1)
	rc=$?
	left=$(find "$B/.unionroot/trash" -mindepth 1 -maxdepth 1 -printf '%f ')
	if [ "$rc" = 0 ] && [ -z "$left" ] && [ -d "$B/upper" ] && [ ! -e "$B/upper/home" ]; then
		pass "host: a reset deletes a user's tree 300 levels deep, leaving nothing in the trash ($kernel)"
	else
		fail "host: deep tree reset ($kernel)" "exit $rc, trash holds: ${left:-nothing}, upper holds: $(find "$B/upper" -maxdepth 2 -printf '%P ') $out"
	fi
done

# 1d. the trash's deletion never crosses into another mount at any depth: not
# into a tmpfs, nor into a bind mount of the branch's own file system, which
# st_dev cannot tell from the trash. Before Linux 5.6 nothing but st_dev can
# be asked (openat2's RESOLVE_NO_XDEV), so that run has the tmpfs only.
levels() { printf '/d%.0s' $(seq "$1"); }
for kernel in openat2 noopenat2; do
	B=$M/mounts-$kernel
	wrap=()
	[ "$kernel" = noopenat2 ] && wrap=(python3 "$(dirname "$0")/noopenat2.py")
	mkdir -p "$B" "$B-near" "$B-far" && "$BIN" test-reset "$B" >/dev/null
	echo near >"$B-near/keep"
	echo far >"$B-far/keep"
	old=$B/.unionroot/trash/old
	mkdir -p "$old"
	deep_tree "$old" 300
	mkdir "$old$(levels 3)/mnt" "$old$(levels 200)/mnt" "$old$(levels 290)/mnt"
	want="tmp "
	mounted=0
	if mount -t tmpfs -o size=1m unionroot-test "$old$(levels 290)/mnt" && echo tmp >"$old$(levels 290)/mnt/keep"; then
		mounted=1
		if [ "$kernel" = openat2 ]; then
			want="far near tmp "
			mount --bind "$B-near" "$old$(levels 3)/mnt" && mount --bind "$B-far" "$old$(levels 200)/mnt" || mounted=0
		fi
	fi
	if [ "$mounted" = 1 ]; then
		out=$("${wrap[@]}" "$BIN" test-reset "$B" 2>&1)
		rc=$?
		kept=$(find "$B/.unionroot/trash" -type f -name keep -exec cat {} + 2>&1 | sort | tr '\n' ' ')
		left=$(find "$B/.unionroot/trash" -type f -name f | wc -l)
		if [ "$rc" = 1 ] && echo "$out" | grep -qi 'cross-device' && [ "$kept" = "$want" ] && [ "$left" = 0 ] &&
			[ "$(cat "$B-near/keep" "$B-far/keep" 2>&1 | tr '\n' ' ')" = "near far " ]; then
			pass "host: the trash's deletion leaves the mounts in it (${want% }) at any depth and reports EXDEV ($kernel)"
		else
			fail "host: deletion beside mounts ($kernel)" "exit $rc, kept: $kept, files left: $left, $out"
		fi
	else
		fail "host: deletion beside mounts ($kernel)" "cannot mount in the trash"
	fi
done

# 2. killed after each step, then run anew: old or factory, then factory
for step in request keep aside fresh cleared trash; do
	B=$M/kill-$step
	make_branch "$B"
	# in a command substitution the shell's own "Killed" goes to /dev/null
	rc=$({ "$BIN" test-reset "$B" "$step" keeplist >/dev/null 2>&1; echo $?; } 2>/dev/null)
	mid=$(state_of "$B")
	"$BIN" test-reset "$B" >/dev/null 2>&1
	end=$(state_of "$B")
	left=$(find "$B/.unionroot" -mindepth 1 -maxdepth 1 -printf '%f ')
	if [ "$rc" = 137 ] && { [ "$mid" = old ] || [ "$mid" = factory ]; } && [ "$end" = factory ] &&
		[ "$left" = "trash " ] && [ -z "$(find "$B/.unionroot/trash" -mindepth 1)" ]; then
		pass "host: reset killed after \"$step\" is $mid, and factory after the next run"
	else
		fail "host: killed after $step" "exit $rc, then $mid, then $end, .unionroot holds: $left"
	fi
done

# 3. diff on a real overlayfs upper
L=$M/lower U=$M/diff/upper W=$M/diff/work O=$T/merged
mkdir -p "$L/etc/keepdir" "$L/etc/opaque" "$L/etc/old" "$L/bin" "$U" "$W" "$O"
echo same >"$L/etc/same"
echo edit >"$L/etc/edited"
echo meta >"$L/etc/meta"
echo gone >"$L/etc/gone"
echo inside >"$L/etc/opaque/inside"
echo x >"$L/etc/old/x"
echo k >"$L/etc/keepdir/k"
if mount -t overlay overlay -o "lowerdir=$L,upperdir=$U,workdir=$W,index=off,redirect_dir=nofollow,metacopy=off,xino=off" "$O"; then
	echo new >"$O/etc/added"
	echo more >>"$O/etc/edited"
	chmod 0600 "$O/etc/meta"
	rm "$O/etc/gone"
	rm -rf "$O/etc/opaque" && mkdir "$O/etc/opaque" && echo fresh >"$O/etc/opaque/fresh"
	mv "$O/etc/old" "$O/etc/renamed"
	touch -d @0 "$O/etc/keepdir/k"
	umount "$O"
	cat >"$T/diff.expected" <<-'EXP'
		A /etc/added
		M /etc/edited
		D /etc/gone
		M /etc/keepdir/k
		M /etc/meta
		D /etc/old
		D /etc/opaque
		A /etc/opaque
		A /etc/opaque/fresh
		A /etc/renamed
		A /etc/renamed/x
	EXP
	"$BIN" diff --upper "$U" --lower "$L" >"$T/diff.out" 2>&1
	if diff -u "$T/diff.expected" "$T/diff.out" >"$T/diff.delta"; then
		pass "host: diff lists additions, edits, metadata-only changes, whiteouts, opaque and renamed dirs"
	else
		fail "host: diff" "$(tr '\n' ' ' <"$T/diff.delta")"
	fi
	if [ "$("$BIN" diff --stat --upper "$U" --lower "$L")" = "5 added, 3 modified, 3 deleted, 11 changes" ]; then
		pass "host: diff --stat counts them"
	else
		fail "host: diff --stat" "$("$BIN" diff --stat --upper "$U" --lower "$L" 2>&1)"
	fi
else
	skip "host: diff" "cannot mount overlayfs here"
fi

# 'unionroot reset' without --yes asks on the terminal: anything but "yes"
# changes nothing, "yes" records the request, and without a terminal it
# refuses. This namespace's own /run holds the branch where the admin
# commands look for it (RWDIR).
C=$M/confirm
if make_branch "$C" && mount -t tmpfs -o mode=0755,size=1m unionroot-test /run &&
	mkdir -p /run/unionroot/rw /run/unionroot/lower/0 && mount --bind "$C" /run/unionroot/rw; then
	"$BIN" reset </dev/null >"$T/confirm-notty" 2>&1
	printf 'no\n' | script -qec "$BIN reset" /dev/null >"$T/confirm-no" 2>&1
	ls -A "$C/.unionroot" >"$T/confirm-no.ls"
	printf 'yes\n' | script -qec "$BIN reset" /dev/null >"$T/confirm-yes" 2>&1
	ls -A "$C/.unionroot" >"$T/confirm-yes.ls"
	expect "host: reset without a terminal asks for --yes" "$T/confirm-notty" \
		'^unionroot reset: not on a terminal; use --yes to confirm$'
	expect "host: reset asks on the terminal" "$T/confirm-no" "Type 'yes' to schedule a factory reset: "
	expect "host: an answer other than yes changes nothing" "$T/confirm-no" \
		'unionroot reset: not confirmed; nothing changed'
	expect_not "host: an answer other than yes records no request" "$T/confirm-no.ls" '^reset$' \
		"a request was written: $(tr '\n' ' ' <"$T/confirm-no.ls")"
	expect "host: yes on the terminal schedules the reset" "$T/confirm-yes" \
		'unionroot: factory reset scheduled for the next boot'
	expect "host: yes on the terminal records the request" "$T/confirm-yes.ls" '^reset$'
	umount /run/unionroot/rw /run
else
	fail "host: reset confirmation" "cannot lay out a branch at /run/unionroot/rw"
fi
