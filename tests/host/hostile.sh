#!/bin/bash
# SPDX-License-Identifier: MIT
# Host integration (root, a private mount namespace, a loop-mounted ext4): a
# hostile writable branch (symlinks, files and garbage where unionroot keeps
# its own entries) gets the documented repair or a clear error, and nothing
# outside the branch is ever written, deleted or read out.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
set -u
need_root host-hostile || exit 0
BIN=${UR_BIN:-$(cd "$ROOT_DIR" && realpath "$BUILD/unionroot-test")} # UR_BIN: another build (sanitizers)
if [ ! -x "$BIN" ]; then
	skip host-hostile "$BUILD/unionroot-test missing (make)"
	exit 0
fi
if [ -z "${UNIONROOT_IN_NS:-}" ]; then
	exec env UNIONROOT_IN_NS=1 unshare -m --propagation private bash "$0" "$@"
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/unionroot-host-hostile.XXXXXX")
M=$T/mnt
RW=/run/unionroot/rw # RWDIR: where the admin commands find the branch
cleanup() {
	umount "$RW" 2>/dev/null
	umount -R "$M" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
# this namespace's own /run: the host's /run/unionroot (if it was booted by
# unionroot) stays out of reach and nothing is left behind in /run
if ! mount -t tmpfs -o mode=0755,size=1m unionroot-test /run; then
	skip host-hostile "cannot mount a tmpfs on /run here"
	exit 0
fi
mkdir -p "$RW" /run/unionroot/lower/0
truncate -s 64M "$T/disk.img"
mkfs.ext4 -q -F "$T/disk.img"
mkdir -p "$M"
if ! mount -o loop "$T/disk.img" "$M"; then
	skip host-hostile "cannot loop-mount an ext4 image here"
	exit 0
fi

# The victim: a tree on the same file system as the branches, outside them,
# so that no cross-device check can hide a followed link.
V=$M/victim
mkdir -p "$V/sub"
printf 'unionroot-state 1\nboots 7\n' >"$V/secret" # a valid state: tempting to follow
echo precious >"$V/sub/deep"

# outside BRANCH: the whole file system but BRANCH, every entry's type, size,
# mode, owner, mtime, ctime and link target, and every file's hash.
outside() {
	find "$M" -path "$1" -prune -o -printf '%p %y %s %m %U:%G %T@ %C@ %l\n' | sort
	find "$M" -path "$1" -prune -o -type f -exec sha256sum {} + | sort
}

# delta: what changed outside $B since $before, for a FAIL line
delta() { diff <(printf '%s\n' "$before") <(outside "$B") | grep '^[<>]' | tr '\n' ' '; }

# live BRANCH: the branch as a boot leaves it for the admin commands.
live() {
	umount "$RW" 2>/dev/null
	mount --bind "$1" "$RW"
}

# branch NAME: a fresh, well-formed branch top with a file in upper/.
branch() {
	B=$M/$1
	mkdir -p "$B"
	"$BIN" test-reset "$B" - >/dev/null || fail "host: setup $1" "test-reset on an empty dir failed"
	echo user >"$B/upper/userfile"
}

# one_line FILE: FILE holds exactly one line
one_line() { [ "$(wc -l <"$1")" = 1 ]; }
# strerror(ELOOP) in musl (the shipped build) and glibc (the sanitizer build)
ELOOP='Symbolic link loop|Too many levels of symbolic links'

# 1. .unionroot is a symlink to the victim
B=$M/c1
mkdir -p "$B"
ln -s "$V" "$B/.unionroot"
before=$(outside "$B")
out=$("$BIN" test-reset "$B" - 2>&1)
rc=$?
aside=$(find "$B" -maxdepth 1 -name '.unionroot.invalid.*' -printf '%f ')
if [ $rc = 0 ] && [ -z "$out" ] && [ -d "$B/.unionroot/trash" ] && [ ! -L "$B/.unionroot" ] &&
	[ -d "$B/upper" ] && [ -d "$B/work" ] && [ "$(echo "$aside" | wc -w)" = 1 ] &&
	[ "$(readlink "$B/${aside% }")" = "$V" ] && [ "$(outside "$B")" = "$before" ]; then
	pass "host: a .unionroot symlinked out is renamed .unionroot.invalid.N and left alone; a real one is made; nothing outside is touched"
else
	fail "host: .unionroot symlink" "exit $rc, aside '$aside', $(find "$B" -printf '%P:%y ') $out $(delta)"
fi

# 2. .unionroot is a regular file
B=$M/c2
mkdir -p "$B"
echo junk >"$B/.unionroot"
before=$(outside "$B")
out=$("$BIN" test-reset "$B" - 2>&1)
rc=$?
aside=$(find "$B" -maxdepth 1 -name '.unionroot.invalid.*' -printf '%f ')
if [ $rc = 0 ] && [ -z "$out" ] && [ -d "$B/.unionroot/trash" ] && [ "$(echo "$aside" | wc -w)" = 1 ] &&
	[ -f "$B/${aside% }" ] && [ "$(cat "$B/${aside% }")" = junk ] && [ -d "$B/upper" ] &&
	[ "$(outside "$B")" = "$before" ]; then
	pass "host: a .unionroot that is a file is renamed aside with its content; a real one is made"
else
	fail "host: .unionroot file" "exit $rc, aside '$aside', $(find "$B" -printf '%P:%y ') $out $(delta)"
fi

# 3. upper is a symlink to the victim, work a file; then the same with a
# reset honouring the keep list, which looks into the old upper
for mode in "" keeplist; do
	B=$M/c3$mode
	mkdir -p "$B"
	"$BIN" test-reset "$B" - >/dev/null
	rm -rf "$B/upper" "$B/work"
	ln -s "$V" "$B/upper"
	echo junk >"$B/work"
	before=$(outside "$B")
	# shellcheck disable=SC2086 # an empty $mode is no argument
	out=$("$BIN" test-reset "$B" - $mode 2>&1)
	rc=$?
	if [ $rc = 0 ] && { [ -z "$mode" ] && [ -z "$out" ] || [ "$out" = "reset applied, 0 kept, 0 refused" ]; } &&
		[ -d "$B/upper" ] && [ ! -L "$B/upper" ] && [ -d "$B/work" ] &&
		[ -z "$(find "$B/upper" "$B/work" "$B/.unionroot/trash" -mindepth 1)" ] &&
		[ "$(outside "$B")" = "$before" ]; then
		pass "host: upper/ symlinked out and work/ a file are replaced by empty dirs${mode:+ (with a keeplist reset)}; the victim is untouched"
	else
		fail "host: upper symlink, work file${mode:+ ($mode)}" "exit $rc, $(find "$B" -printf '%P:%y ') $out $(delta)"
	fi
done

# 4. .unionroot/trash is a symlink to the victim, and a factory reset moves
# an old upper holding links out into the trash, which is then emptied
branch c4
ln -s "$V" "$B/upper/abs"
ln -s ../../.. "$B/upper/rel"
mkdir -p "$B/upper/d"
ln -s "$V/sub" "$B/upper/d/sub"
rmdir "$B/.unionroot/trash"
ln -s "$V" "$B/.unionroot/trash"
before=$(outside "$B")
out=$("$BIN" test-reset "$B" - factory 2>&1)
rc=$?
if [ $rc = 0 ] && [ "$out" = "reset applied, 0 kept, 0 refused" ] &&
	[ -d "$B/upper" ] && [ -z "$(find "$B/upper" -mindepth 1)" ] &&
	[ -d "$B/.unionroot/trash" ] && [ ! -L "$B/.unionroot/trash" ] &&
	[ -z "$(find "$B/.unionroot/trash" -mindepth 1)" ] &&
	[ "$(cat "$V/sub/deep")" = precious ] && [ "$(outside "$B")" = "$before" ]; then
	pass "host: a trash symlinked out is replaced; the reset deletes the old upper, not the victim its links lead to"
else
	fail "host: trash symlink + reset" "exit $rc, $(find "$B" -printf '%P:%y ') $out $(delta)"
fi

# 5. .unionroot/state: oversized random bytes, short garbage, a symlink to a
# file that reads as a valid state; boot-ok reports it in one line and
# writes a fresh state, never through the link
for kind in oversized garbage symlink; do
	branch "c5$kind"
	case $kind in
	oversized) head -c 4096 /dev/urandom >"$B/.unionroot/state" ;;
	garbage) printf 'unionroot-state 1\nboots many\n' >"$B/.unionroot/state" ;;
	symlink) ln -s "$V/secret" "$B/.unionroot/state" ;;
	esac
	case $kind in
	oversized) why=oversized ;;
	garbage) why='not a state file' ;;
	symlink) why=$ELOOP ;;
	esac
	live "$B"
	printf 'backend=overlay\n' >/run/unionroot/status
	before=$(outside "$B")
	status=$("$BIN" status 2>&1)
	out=$("$BIN" boot-ok 2>"$T/err")
	rc=$?
	second=$("$BIN" boot-ok 2>&1)
	if [ $rc = 0 ] && one_line "$T/err" &&
		grep -Eqx "unionroot boot-ok: the control state is damaged \(($why)\); writing a fresh one" "$T/err" &&
		[ "$out" = "unionroot: boot counter cleared; the next boot is a normal one" ] &&
		[ "$second" = "unionroot: boot counter already 0" ] &&
		[ -f "$B/.unionroot/state" ] && [ ! -L "$B/.unionroot/state" ] &&
		[ "$(cat "$B/.unionroot/state")" = "$(printf 'unionroot-state 1\nboots 0')" ] &&
		echo "$status" | grep -Eqx "boot_counter=damaged \(($why)\)" &&
		[ "$(outside "$B")" = "$before" ]; then
		pass "host: control state $kind: boot-ok says so in one line and writes a fresh state beside it, not through it"
	else
		fail "host: control state $kind" "exit $rc: $(cat "$T/err") / $out / $second / $(echo "$status" | tr '\n' ' ')/ $(tr '\n' ' ' <"$B/.unionroot/state" 2>&1) $(delta)"
	fi
done

# 6. .unionroot/reset (the pending request) is a symlink to a victim file:
# a boot takes it for a damaged request (a reset keeping only the keep file's
# paths) and moves the link to the trash; 'unionroot reset --yes' replaces
# such a link, not its target, and the next boot applies what it wrote
branch c6
ln -s "$V/secret" "$B/.unionroot/reset"
before=$(outside "$B")
out=$("$BIN" test-reset "$B" - 2>&1)
rc=$?
if [ $rc = 0 ] && echo "$out" | grep -qx "unionroot: <3> factory reset: the request .unionroot/reset is not a regular file; resetting, keeping only the paths of /etc/unionroot/keep" &&
	echo "$out" | grep -qx "reset applied, 0 kept, 0 refused" &&
	[ ! -e "$B/.unionroot/reset" ] && [ ! -L "$B/.unionroot/reset" ] && [ ! -e "$B/upper/userfile" ] &&
	[ "$(outside "$B")" = "$before" ]; then
	pass "host: a boot takes a reset request that is a symlink for a damaged one: a reset, the link to the trash, nothing followed"
else
	fail "host: reset request symlink at boot" "exit $rc: $out $(delta)"
fi
branch c6b
ln -s "$V/secret" "$B/.unionroot/reset"
before=$(outside "$B")
live "$B"
status=$("$BIN" status 2>&1)
out=$("$BIN" reset --yes 2>&1)
rc=$?
if [ $rc = 0 ] && [ "$out" = "unionroot: factory reset scheduled for the next boot" ] &&
	echo "$status" | grep -qx 'reset_request=damaged: .*' &&
	[ -f "$B/.unionroot/reset" ] && [ ! -L "$B/.unionroot/reset" ] &&
	head -n1 "$B/.unionroot/reset" | grep -qx 'unionroot-reset 1' &&
	[ "$(outside "$B")" = "$before" ]; then
	pass "host: 'unionroot reset --yes' replaces a request symlinked out; the victim file is not overwritten"
else
	fail "host: reset --yes over a symlink" "exit $rc: $out / $(echo "$status" | tr '\n' ' ')/ $(find "$B/.unionroot" -printf '%P:%y ') $(delta)"
fi
out=$("$BIN" test-reset "$B" - 2>&1)
rc=$?
if [ $rc = 0 ] && [ "$out" = "reset applied, 0 kept, 0 refused" ] && [ ! -e "$B/upper/userfile" ] &&
	[ ! -e "$B/.unionroot/reset" ] && [ "$(outside "$B")" = "$before" ]; then
	pass "host: the request written over the link is applied by the next boot"
else
	fail "host: request applied" "exit $rc: $out $(delta)"
fi
# a directory or a FIFO where the request belongs: a damaged request too,
# moved aside (a FIFO must not hang the boot)
for kind in dir fifo; do
	branch "c6$kind"
	case $kind in
	dir) mkdir -p "$B/.unionroot/reset/sub" ;;
	fifo) mkfifo "$B/.unionroot/reset" ;;
	esac
	before=$(outside "$B")
	out=$(timeout 20 "$BIN" test-reset "$B" - 2>&1)
	rc=$?
	if [ $rc = 0 ] && echo "$out" | grep -qx "reset applied, 0 kept, 0 refused" &&
		[ ! -e "$B/.unionroot/reset" ] && [ ! -e "$B/upper/userfile" ] && [ "$(outside "$B")" = "$before" ]; then
		pass "host: a reset request that is a $kind is a damaged request: reset, moved aside, no hang"
	else
		fail "host: reset request $kind" "exit $rc: $out $(delta)"
	fi
done
# a FIFO as the control state must not hang boot-ok either
branch c6state
mkfifo "$B/.unionroot/state"
live "$B"
out=$(timeout 20 "$BIN" boot-ok 2>&1)
rc=$?
if [ $rc = 0 ] && echo "$out" | grep -qx 'unionroot boot-ok: the control state is damaged (not a state file); writing a fresh one' &&
	[ -f "$B/.unionroot/state" ]; then
	pass "host: a FIFO as the control state is damaged, not a hang"
else
	fail "host: control state fifo" "exit $rc: $out"
fi

# a stale temp name planted as a symlink to the victim: the save replaces
# it and writes nothing through it
branch c6tmp
printf 'unionroot-state 1\nboots 2\n' >"$B/.unionroot/state"
ln -s "$V/secret" "$B/.unionroot/.state.new"
before=$(outside "$B")
live "$B"
out=$("$BIN" boot-ok 2>&1)
rc=$?
if [ $rc = 0 ] && grep -qx 'boots 0' "$B/.unionroot/state" && [ ! -e "$B/.unionroot/.state.new" ] &&
	[ "$(outside "$B")" = "$before" ]; then
	pass "host: a planted .state.new symlink neither blocks the save nor is written through"
else
	fail "host: .state.new symlink" "exit $rc: $out $(delta)"
fi

# 7. upper/ holds links out of the branch: diff lists the links themselves
branch c7
mkdir -p "$B/upper/etc" /run/unionroot/lower/0/etc
ln -s "$V" "$B/upper/etc/abs"
ln -s ../../.. "$B/upper/etc/rel"
ln -s "$V/secret" "$B/upper/etc/file"
ln -s /elsewhere /run/unionroot/lower/0/etc/abs
live "$B"
before=$(outside "$B")
out=$("$BIN" diff 2>&1)
rc=$?
expected=$(printf '%s\n' 'M /etc/abs' 'A /etc/file' 'A /etc/rel' 'A /userfile')
if [ $rc = 0 ] && [ "$out" = "$expected" ] && [ "$(outside "$B")" = "$before" ] &&
	[ "$("$BIN" diff --stat 2>&1)" = "3 added, 1 modified, 0 deleted, 4 changes" ]; then
	pass "host: diff lists links out of the branch as entries and never follows them"
else
	fail "host: diff of links out" "exit $rc: $(echo "$out" | tr '\n' '|') $(delta)"
fi

# 8. an interrupted reset's ready/ and staging/ are symlinks to the victim
B=$M/c8
mkdir -p "$B"
"$BIN" test-reset "$B" - >/dev/null
rmdir "$B/upper"
ln -s "$V" "$B/.unionroot/ready"
ln -s "$V" "$B/.unionroot/staging"
before=$(outside "$B")
out=$("$BIN" test-reset "$B" - 2>&1)
rc=$?
if [ $rc = 0 ] && [ "$out" = "interrupted reset finished" ] &&
	[ -d "$B/upper" ] && [ ! -L "$B/upper" ] && [ -z "$(find "$B/upper" -mindepth 1)" ] &&
	[ "$(find "$B/.unionroot" -mindepth 1 -printf '%P ')" = "trash " ] &&
	[ "$(outside "$B")" = "$before" ]; then
	pass "host: ready/ and staging/ symlinked out are moved to the trash and deleted as links"
else
	fail "host: ready/staging symlinks" "exit $rc, $(find "$B" -printf '%P:%y ') $out $(delta)"
fi

# 9. One table: every name unionroot opens on a branch, each planted as a
# FIFO, a directory, a symlink to a file outside the branch and a character
# device. Each run is bounded (a hang is a FAIL), says what it found where it
# reports at all, never touches the link's target, and does its job anyway.
IMG=$T/img # a small image tree for the copy-up rows
mkdir -p "$IMG/etc"
echo factory >"$IMG/etc/hostname"

# plant KIND PATH
plant() {
	rm -rf "$2"
	case $1 in
	fifo) mkfifo "$2" ;;
	dir) mkdir -p "$2/sub" && echo x >"$2/sub/f" ;;
	symlink) ln -s "$V/secret" "$2" ;;
	chardev) mknod "$2" c 1 3 ;;
	esac
}

# went_on ACTION NAME: the code path did its job despite the planting
went_on() {
	case $1 in
	boot) [ -d "$B/upper" ] && [ ! -L "$B/upper" ] && [ -d "$B/work" ] && [ ! -L "$B/work" ] &&
		[ -d "$B/.unionroot/trash" ] && [ ! -L "$B/.unionroot/trash" ] &&
		{ [ "$2" != staging ] || { [ ! -e "$B/.unionroot/staging" ] && [ ! -L "$B/.unionroot/staging" ]; }; } ;;
	request | reset) grep -qx 'reset applied, 0 kept, 0 refused' "$T/out" && [ ! -e "$B/upper/userfile" ] &&
		[ ! -e "$B/.unionroot/reset" ] && [ ! -L "$B/.unionroot/reset" ] ;;
	bootok) grep -qx 'unionroot: boot counter cleared; the next boot is a normal one' "$T/out" &&
		[ -f "$B/.unionroot/state" ] && [ ! -L "$B/.unionroot/state" ] && grep -qx 'boots 0' "$B/.unionroot/state" ;;
	status) grep -Eq '^boot_counter=(2|damaged \(.*\))$' "$T/out" && grep -q '^reset_pending=' "$T/out" ;;
	copyup) grep -q '^copyup: .*merging' "$T/out" && [ -f "$B/.unionroot/manifest" ] &&
		[ ! -L "$B/.unionroot/manifest" ] && [ "$(sed -n 2p "$B/.unionroot/manifest")" = 'image hostile-2' ] ;;
	diff) grep -qx 'unionroot diff: the copy-up manifest is unusable: not a regular file' "$T/out" ;;
	reserve) grep -qx 'reserve made' "$T/out" && [ -f "$B/.unionroot/reserve" ] && [ ! -L "$B/.unionroot/reserve" ] &&
		[ "$(stat -c %s "$B/.unionroot/reserve")" -gt 0 ] ;;
	esac
}

# the line that names the planted object, where the code path reports one
says() { # ACTION NAME
	case $1:$2 in
	request:reset) grep -q 'the request .unionroot/reset is not a regular file; resetting' "$T/out" ;;
	bootok:state) grep -Eq "the control state is damaged \((not a state file|$ELOOP)\); writing a fresh one" "$T/out" ;;
	status:state) grep -Eq "^boot_counter=damaged \((not a state file|$ELOOP)\)$" "$T/out" ;;
	status:reset) grep -qx 'reset_request=damaged: the reset keeps only /etc/unionroot/keep' "$T/out" ;;
	copyup:manifest) grep -qx 'unionroot copyup: the manifest is damaged (not a regular file); merged without it' "$T/out" ;;
	*) true ;; # temporaries and our own directories are replaced without a word
	esac
}

# run ACTION: the code path on the branch $B, bounded
run() {
	case $1 in
	boot | request) timeout 20 "$BIN" test-reset "$B" - ;;
	reset) timeout 20 "$BIN" test-reset "$B" - factory ;;
	bootok) live "$B" && timeout 20 "$BIN" boot-ok ;;
	status) live "$B" && timeout 20 "$BIN" status ;;
	copyup) timeout 20 "$BIN" copyup --id hostile-2 "$IMG" "$B" ;;
	diff) live "$B" && timeout 20 "$BIN" diff ;;
	reserve) timeout 20 "$BIN" test-reserve "$B" make ;;
	esac
}

n=0
for row in staging:boot trash:boot ../upper:boot ../work:boot reset:request .reset.new:reset \
	state:bootok .state.new:bootok state:status reset:status \
	manifest:copyup .manifest.new:copyup stage:copyup manifest:diff \
	reserve:reserve .reserve.new:reserve; do
	name=${row%:*} action=${row#*:}
	for kind in fifo dir symlink chardev; do
		# our own directories: a directory there is no planting
		case $name:$kind in trash:dir | ../upper:dir | ../work:dir | staging:dir | stage:dir) continue ;; esac
		n=$((n + 1))
		branch "c9.$n"
		printf 'unionroot-state 1\nboots 2\n' >"$B/.unionroot/state"
		if [ "$action" = copyup ] || [ "$action" = diff ]; then
			echo factory >"$IMG/etc/hostname"
			"$BIN" copyup --id hostile-1 "$IMG" "$B" >/dev/null 2>&1
			echo factory2 >"$IMG/etc/hostname"
		fi
		plant "$kind" "$B/.unionroot/$name"
		printf 'backend=overlay\n' >/run/unionroot/status
		before=$(outside "$B")
		run "$action" >"$T/out" 2>&1
		rc=$?
		shown=${name#../}
		if [ $rc = 124 ]; then
			fail "host: $kind at $shown ($action)" "hung (killed after 20 s)"
		elif { [ $rc = 0 ] || [ "$action" = diff ]; } && went_on "$action" "$name" && says "$action" "$name" &&
			[ "$(outside "$B")" = "$before" ]; then
			pass "host: a $kind at $shown neither hangs nor stops $action; reported or replaced, nothing outside touched"
		else
			fail "host: $kind at $shown ($action)" "exit $rc: $(tr '\n' ' ' <"$T/out") / $(find "$B/.unionroot" -maxdepth 1 -printf '%P:%y ') $(delta)"
		fi
	done
done
