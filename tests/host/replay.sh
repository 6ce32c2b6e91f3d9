#!/bin/bash
# SPDX-License-Identifier: MIT
# Power cuts write by write (the method of dm-log-writes and fstests
# generic/482): a reset request, the boot's reset with a keep file, a write
# after it, a boot counter update, a copy-up first copy and an upgrade merge
# run on a branch under dm-log-writes; the log is replayed to every flush and
# FUA (a sample in make check) and to random points between them, and each
# point must pass fsck -n, then the boot's own recovery, then show old or
# factory, never mixed. dm-flakey then drops or fails the writes after each
# reset step. ext4 and f2fs; vfat is refused and must stay untouched;
# vfatfile is a live stick: a FAT32 medium holding persistence.img, an ext4
# attached through a direct-I/O loop device, logged on the FAT32 device: each
# point must pass fsck.fat -n, then the inner ext4 fsck -n and the reset
# invariants, and the run must leave the FAT tables untouched (the file is
# allocated in full, so only its directory entry and the dirty flag change).
# Without device-mapper in the running kernel the script runs in a guest of
# the build's Debian kernel (tests/hostvm.sh), started by tests/qemu/dm-replay.sh.
# REPLAY_POINTS=all (or a number, default 24) and REPLAY_RANDOM (default 4)
# set how many points each file system gets, REPLAY_FS which file systems.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
set -u
need_root replay || exit 0
BIN=$(cd "$ROOT_DIR" && realpath "$BUILD/unionroot-test" 2>/dev/null)
UR=$(cd "$ROOT_DIR" && realpath "$BUILD/unionroot" 2>/dev/null)
REPLAY=$(cd "$(dirname "$0")" && pwd)/replaylog.py
for t in "$BIN" "$UR"; do
	[ -x "$t" ] || { skip replay "$BUILD/unionroot or unionroot-test missing (make)"; exit 0; }
done
for t in dmsetup unshare losetup mkfs.ext4 mksquashfs rsync /usr/bin/python3; do
	command -v "$t" >/dev/null || { skip replay "$t not installed"; exit 0; }
done
MODULES="dm-log-writes dm-flakey f2fs vfat nls_cp437 nls_ascii nls_utf8 loop overlay ext4 squashfs"
if [ -z "${HOSTVM:-}${REPLAY_IN_NS:-}" ]; then
	# shellcheck disable=SC2086 # one word a module
	for m in $MODULES; do modprobe -q "$m" 2>/dev/null; done
	if ! dmsetup targets 2>/dev/null | grep -q '^log-writes'; then
		# a guest is a QEMU boot: the QEMU group runs it (tests/qemu/dm-replay.sh),
		# beside the other boots, not in the host group's serial line
		if [ -z "${REPLAY_VM:-}" ]; then
			skip replay "no dm-log-writes in this kernel; tests/qemu/dm-replay.sh runs it in a guest"
			exit 0
		fi
		# shellcheck source=tests/hostvm.sh
		. "$TESTS_DIR/hostvm.sh"
		if ! host_vm_ready; then
			skip replay "no dm-log-writes in this kernel, and no $BUILD/kernel to boot one (make deps)"
			exit 0
		fi
		echo "replay: this kernel has no dm-log-writes; running in a guest of $HOSTVM_KVER" >&2
		# TCG is slow (about 20 s a point on a busy machine): fewer points
		HOSTVM_ENV=("REPLAY_POINTS=${REPLAY_POINTS:-2}" "REPLAY_RANDOM=${REPLAY_RANDOM:-1}" "REPLAY_SEED=${REPLAY_SEED:-17}" \
			"REPLAY_FS=${REPLAY_FS:-}")
		host_vm "$MODULES" "$0"
		exit $?
	fi
fi
if [ -z "${REPLAY_IN_NS:-}" ]; then
	exec env REPLAY_IN_NS=1 unshare -m --propagation private bash "$0" "$@"
fi
# /run/unionroot/rw, where unionroot reset and boot-ok find the branch, on a
# /run of this namespace's own; udev does not see that /run, so
# libdevmapper makes the /dev/mapper nodes itself
mount -t tmpfs -o mode=0755 tmpfs /run || { skip replay "cannot mount a tmpfs on /run here"; exit 0; }
export DM_DISABLE_UDEV=1
POINTS=${REPLAY_POINTS:-24}
RANDOM_POINTS=${REPLAY_RANDOM:-4}
RANDOM=${REPLAY_SEED:-17}

T=$(mktemp -d "${TMPDIR:-/tmp}/unionroot-replay.XXXXXX")
M=$T/mnt C=$T/chk
cleanup() {
	umount -l "$T/in" "$T/ci" /run/unionroot/rw 2>/dev/null
	losetup -j "$M/persistence.img" -O NAME -n 2>/dev/null | xargs -r -n1 losetup -d
	losetup -j "$C/persistence.img" -O NAME -n 2>/dev/null | xargs -r -n1 losetup -d
	umount -l "$M" "$C" "$T/ia" "$T/ib" 2>/dev/null
	dmsetup remove ur-replay 2>/dev/null
	dmsetup remove ur-flakey 2>/dev/null
	losetup -j "$T/dev.img" -O NAME -n 2>/dev/null | xargs -r -n1 losetup -d
	rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$M" "$C" "$T/ia" "$T/ib" "$T/in" "$T/ci" /run/unionroot/rw

# ---- the images a copy-up branch takes, and the branch file systems ------
mkdir -p "$T/a/etc" "$T/a/bin" "$T/a/srv"
echo factory >"$T/a/etc/conf"
echo same >"$T/a/etc/same"
head -c 200000 /dev/urandom >"$T/a/bin/tool"
ln -s ../etc/conf "$T/a/bin/link"
cp -a "$T/a" "$T/b"
echo upgraded >"$T/b/srv/new"
head -c 100000 /dev/urandom >"$T/b/bin/tool"
rm "$T/b/etc/same"
mksquashfs "$T/a" "$T/a.sqsh" -noappend -quiet -no-progress >/dev/null 2>&1
mksquashfs "$T/b" "$T/b.sqsh" -noappend -quiet -no-progress >/dev/null 2>&1
if ! mount -o loop,ro "$T/a.sqsh" "$T/ia" || ! mount -o loop,ro "$T/b.sqsh" "$T/ib"; then
	skip replay "cannot loop-mount a squashfs here"
	exit 0
fi

mkfs_of() { # FS FILE
	case $1 in
	ext4) mkfs.ext4 -q -F "$2" ;;
	f2fs) mkfs.f2fs -q -f "$2" >/dev/null ;;
	vfat) mkfs.vfat "$2" >/dev/null ;;
	vfatfile) mkfs.vfat -F 32 "$2" >/dev/null ;; # a live stick's FAT32
	esac
}
fsck_of() { # FS FILE: a read-only check
	case $1 in
	# e2fsck -n cannot replay the journal, which any mount does first
	ext4) e2fsck -p -E journal_only "$2" >/dev/null 2>&1; e2fsck -fn "$2" ;;
	f2fs) fsck.f2fs --dry-run "$2" ;;
	vfat | vfatfile) fsck_vfat "$2" ;;
	esac
}
# fsck_vfat FILE: fsck.fat -n, where a set dirty bit alone is no error: the
# kernel sets it at every mount, so a cut at any instant while mounted leaves
# it, and the next mount only warns; on FAT32 it is set in the boot sector
# alone, so the backup differs in that byte (65; 37 on FAT16) and nothing
# else; any other finding fails
fsck_vfat() {
	local out rc
	out=$(fsck.vfat -n "$1" 2>&1) && rc=0 || rc=$?
	printf '%s\n' "$out"
	[ "$rc" = 0 ] && return 0
	[ "$rc" = 1 ] || return "$rc"
	! printf '%s\n' "$out" | grep -v -e '^fsck\.fat ' -e '^Dirty bit is set\.' -e 'Automatically removing dirty bit' \
		-e '^Leaving filesystem unchanged' -e ' files, .* clusters$' -e '^ *$' \
		-e '^There are differences between boot sector and its backup' -e '^This is mostly harmless' \
		-e '^  65:01/00$' -e '^  37:01/00$' -e '^  Not automatically fixing this' | grep -q .
}
fs_tool() { case $1 in ext4) echo mkfs.ext4 ;; f2fs) echo mkfs.f2fs ;; vfat*) echo mkfs.vfat ;; esac; }

# make_base FS: $T/base.img, a branch holding the user's old tree, a keep
# file, a boot counter of 3, an empty copy-up branch and a file outside both;
# for vfatfile that ext4 is persistence.img on a FAT32 stick, beside a file
# outside it
make_base() { # FS [SIZE]
	rm -f "$T/base.img"
	if [ "$1" = vfatfile ]; then
		# small, for TCG: FAT32 needs 65525 clusters (32 MiB of 512 bytes)
		make_base ext4 24M && mv "$T/base.img" "$T/inner.img" || return 1
		truncate -s 40M "$T/base.img"
		mkfs_of vfatfile "$T/base.img" && mount -o loop "$T/base.img" "$M" || return 1
		mkdir "$M/outside" && echo sentinel >"$M/outside/file"
		cp "$T/inner.img" "$M/persistence.img" # FAT has no holes: all allocated
		rm "$T/inner.img"
		umount "$M"
		return
	fi
	truncate -s "${2:-64M}" "$T/base.img"
	mkfs_of "$1" "$T/base.img" || return 1
	mount -o loop "$T/base.img" "$M" || return 1
	mkdir -p "$M/ov" "$M/cu" "$M/outside"
	echo sentinel >"$M/outside/file"
	if [ "$1" != vfat ]; then
		"$BIN" test-reset "$M/ov" >/dev/null
		mkdir -p "$M/ov/upper/root" "$M/ov/upper/home/u" "$M/ov/upper/etc/unionroot"
		echo old >"$M/ov/upper/root/data"
		echo kept >"$M/ov/upper/home/u/note"
		echo /home >"$M/ov/upper/etc/unionroot/keep"
		printf 'unionroot-state 1\nboots 3\n' >"$M/ov/.unionroot/state"
	fi
	umount "$M"
}

# tree_state DIR: old, factory (the keep file's /home kept), none (a swap
# half done: ready/ without upper/) or mixed
tree_state() {
	local d=$1
	# a file whose data never reached the disk reads as zeros
	text() { tr -d '\0' 2>/dev/null <"$1"; }
	if [ ! -e "$d/upper" ] && [ -d "$d/.unionroot/ready" ]; then
		echo none
	elif [ "$(text "$d/upper/root/data")" = old ] && [ -f "$d/upper/etc/unionroot/keep" ] &&
		[ "$(text "$d/upper/home/u/note")" = kept ]; then
		echo old
	elif [ ! -e "$d/upper/root/data" ] && [ ! -e "$d/upper/etc" ] &&
		[ "$(text "$d/upper/home/u/note")" = kept ]; then
		echo factory
	else
		echo mixed
	fi
}

# record FS: runs the operations on a copy of the base under dm-log-writes,
# a mark after each; leaves $T/log.img and the reference trees (vfatfile: the
# reset steps on the inner ext4, attached as unionroot does, with direct I/O)
record() {
	local fs=$1 dev log B=$M ilo=""
	cp --sparse=always "$T/base.img" "$T/dev.img"
	rm -f "$T/log.img" && truncate -s 1G "$T/log.img"
	dev=$(losetup -f --show "$T/dev.img") && log=$(losetup -f --show "$T/log.img") || return 1
	dmsetup create ur-replay --table "0 $(blockdev --getsz "$dev") log-writes $dev $log" || return 1
	mount -o noatime /dev/mapper/ur-replay "$M" || return 1
	mark() { dmsetup message ur-replay 0 mark "$1"; }
	: >"$T/ops.out"
	if [ "$fs" = vfatfile ]; then
		ilo=$(losetup -f --show --direct-io=on "$M/persistence.img") && mount "$ilo" "$T/in" || return 1
		B=$T/in
	fi
	if [ "$fs" = vfat ]; then
		# the boot takes copy-up on vfat (no overlay upper) and refuses it
		"$UR" copyup --image "$T/a.sqsh" "$T/ia" "$M/cu" >>"$T/ops.out" 2>&1
		echo "copyup exit $?" >>"$T/ops.out"
		mark copied
	else
		# unionroot reset as the running system calls it
		mount --bind "$B/ov" /run/unionroot/rw && "$UR" reset --yes >>"$T/ops.out" 2>&1
		umount /run/unionroot/rw
		mark requested
		"$BIN" test-reset "$B/ov" >>"$T/ops.out" 2>&1 # the boot's reset
		mark reset
		mkdir -p "$B/ov/upper/root" && echo after >"$B/ov/upper/root/after" && sync -f "$B/ov/upper/root/after"
		mark written
		mount --bind "$B/ov" /run/unionroot/rw && "$UR" boot-ok >>"$T/ops.out" 2>&1
		umount /run/unionroot/rw
		mark bootok
	fi
	if [ "$fs" = vfatfile ]; then
		umount "$T/in" && losetup -d "$ilo"
	elif [ "$fs" != vfat ]; then
		"$UR" copyup --image "$T/a.sqsh" "$T/ia" "$M/cu" >>"$T/ops.out" 2>&1
		mark copied
		echo mine >"$M/cu/upper/etc/conf" && sync -f "$M/cu/upper/etc/conf"
		mark changed
		"$UR" copyup --image "$T/b.sqsh" "$T/ib" "$M/cu" >>"$T/ops.out" 2>&1
		mark merged
		rm -rf "$T/ref" && cp -a "$M/cu/upper" "$T/ref"
	fi
	umount "$M"
	dmsetup remove ur-replay
	losetup -d "$dev" "$log"
}

# choose_points: the entries to check, one a line: flush and FUA entries
# (all, or POINTS of them evenly spread), each mark, random entries, the end;
# every entry of vfat's short log; for vfatfile in a TCG guest, unless
# REPLAY_POINTS=all, the marks and the end alone (where each command has just
# returned): each point checks two file systems there, slowly
choose_points() { # FS
	local fs=$1 n flushes nf few=0
	n=$(wc -l <"$T/entries")
	[ "$fs" != vfatfile ] || [ -z "${HOSTVM:-}" ] || [ "$POINTS" = all ] || few=1
	flushes=$(awk '$2 ~ /FLUSH|FUA/ { print $1 }' "$T/entries")
	nf=$(echo "$flushes" | grep -c .)
	{
		if [ "$fs" = vfat ]; then
			seq "$n" # the refusal's log is a handful of entries: all of them
		elif [ "$few" = 1 ]; then
			:
		elif [ "$POINTS" = all ] || [ "$nf" -le "$POINTS" ]; then
			echo "$flushes"
		else
			echo "$flushes" | awk -v k="$POINTS" -v nf="$nf" 'NR == 1 || int((NR - 1) * k / nf) != int((NR - 2) * k / nf)'
		fi
		awk '$2 ~ /MARK/ { print $1 }' "$T/entries"
		[ "$few" = 1 ] || for _ in $(seq "$RANDOM_POINTS"); do echo $((RANDOM % n + 1)); done
		echo "$n"
	} | sort -nu
}

# top DIR: the names DIR holds (lost+found aside), sorted, on one line
top() { find "$1" -mindepth 1 -maxdepth 1 ! -name lost+found -printf '%f\n' | sort | tr '\n' ' '; }
at_mark() { awk -v m="$1" '$2 ~ /MARK/ && $5 == m { print $1 }' "$T/entries"; }

# check_tree DIR P: the branch DIR after entry P, then the boot's recovery:
# old or factory, never mixed; the request, the write after the reset and
# the boot counter as entry P allows. Prints what went wrong.
check_tree() {
	local d=$1 p=$2 pre post boots
	pre=$(tree_state "$d")
	"$BIN" test-reset "$d" >"$T/rec.out" 2>&1 || echo "recovery failed: $(tr '\n' ' ' <"$T/rec.out")"
	post=$(tree_state "$d")
	boots=$(sed -n 's/^boots //p' "$d/.unionroot/state" 2>/dev/null)
	if [ "$pre" = mixed ] || { [ "$post" != old ] && [ "$post" != factory ]; }; then
		echo "mixed tree: $pre before the recovery, $post after"
	elif [ "$p" -ge "$R" ] && [ "$post" != factory ]; then
		echo "the request was lost after unionroot reset returned ($pre, then $post)"
	elif [ -e "$d/.unionroot/reset" ]; then
		echo "the request is still pending after the recovery"
	elif [ "$p" -ge "$W" ] && [ "$(cat "$d/upper/root/after" 2>/dev/null)" != after ]; then
		echo "the reset was applied twice: a file written after it is gone"
	elif [ "$boots" != 3 ] && [ "$boots" != 0 ]; then
		echo "boot counter '$boots' is neither the old 3 nor the new 0"
	elif [ "$p" -ge "$O" ] && [ "$boots" != 0 ]; then
		echo "the boot counter update was lost after boot-ok returned"
	fi
}

# check_copyup P: the copy-up branch $C/cu after entry P, recovered by the
# next copy-up with the image of that moment, equals the reference
check_copyup() {
	local p=$1 img=a diffs
	[ "$p" -ge "$CP" ] && img=b
	"$UR" copyup --image "$T/$img.sqsh" "$T/i$img" "$C/cu" >"$T/rec.out" 2>&1 ||
		echo "copy-up recovery failed: $(tr '\n' ' ' <"$T/rec.out")"
	same_as() { # REF [EXCLUDE]: rsync sees no difference but dir times
		rsync -naiHX --checksum --numeric-ids -O ${2:+--exclude="$2"} "$1/" "$C/cu/upper/" 2>&1 |
			grep -v '^\.d\.\.t\.\.\.\.\.\. \./$' | head -3 | tr '\n' ' '
	}
	if [ "$img" = a ]; then
		diffs=$(same_as "$T/ia")
	elif [ "$p" -ge "$H" ]; then
		diffs=$(same_as "$T/ref")
	else
		diffs=$(same_as "$T/ref" /etc/conf)
	fi
	[ -z "$diffs" ] || echo "copy-up tree after the recovery with image $img differs: $diffs"
}

# check_file P: the stick's persistence file, attached as the boot attaches
# it: its ext4 passes fsck -n, then check_tree on its branch
check_file() {
	local p=$1 lo
	lo=$(losetup -f --show --direct-io=on "$C/persistence.img") || { echo "cannot attach persistence.img"; return; }
	if ! fsck_of ext4 "$lo" >"$T/fsck.out" 2>&1; then
		echo "the file's ext4: fsck -n finds errors: $(tail -3 "$T/fsck.out" | tr '\n' ' ')"
	elif ! mount "$lo" "$T/ci"; then
		echo "cannot mount the file's ext4"
	else
		check_tree "$T/ci/ov" "$p"
		umount "$T/ci"
	fi
	losetup -d "$lo"
}

# check_point FS P: the disk as it was after entry P; prints nothing when it
# holds, else what went wrong
check_point() {
	local fs=$1 p=$2 want="cu outside ov "
	cp --sparse=always "$T/replay.img" "$T/check.img"
	fsck_of "$fs" "$T/check.img" >"$T/fsck.out" 2>&1 ||
		{ echo "fsck -n finds errors: $(tail -3 "$T/fsck.out" | tr '\n' ' ')"; return; }
	mount -o loop,noatime "$T/check.img" "$C" || { echo "cannot mount"; return; }
	[ "$fs" != vfatfile ] || want="outside persistence.img "
	if [ "$(cat "$C/outside/file" 2>/dev/null)" != sentinel ] || [ "$(top "$C")" != "$want" ]; then
		echo "outside the branch changed: $(top "$C")"
	elif [ "$fs" = vfat ]; then
		[ -z "$(top "$C/ov")$(top "$C/cu")" ] || echo "the refused branch was written: $(top "$C/ov")$(top "$C/cu")"
	elif [ "$fs" = vfatfile ]; then
		check_file "$p"
	else
		check_tree "$C/ov" "$p"
		check_copyup "$p"
	fi
	umount "$C"
}

# fat_writes: where the recorded vfatfile run wrote on the stick: the
# reserved sectors (boot sector and FSInfo: the dirty flag), the FAT tables,
# the root directory's cluster (the file's entry: its time stamps), or the
# rest of the data area, which the file fills (the directory outside/ is
# never written: noatime)
fat_writes() {
	local b=$T/base.img res nf fatsz spc root file boot fat dir
	res=$(od -An -tu2 -j14 -N2 "$b") nf=$(od -An -tu1 -j16 -N1 "$b") spc=$(od -An -tu1 -j13 -N1 "$b")
	fatsz=$(od -An -tu4 -j36 -N4 "$b") root=$(od -An -tu4 -j44 -N4 "$b")
	# a here-string, not < <(...): the guest has no /dev/fd
	read -r file boot fat dir <<<"$(awk -v res=$((res)) -v fatend=$((res + nf * fatsz)) \
		-v rd=$((res + nf * fatsz + (root - 2) * spc)) -v spc=$((spc)) '
		$2 !~ /MARK|DISCARD/ && $4 > 0 {
			s = $3
			if (s < res) r++; else if (s < fatend) t++; else if (s >= rd && s < rd + spc) d++; else f++
		}
		END { printf "%d %d %d %d\n", f, r, t, d }' "$T/entries")"
	echo "replay vfatfile: writes inside the file $file, to the boot sector and FSInfo $boot, to the FAT tables $fat, to the root directory (the file's entry) $dir"
	if [ "$fat" = 0 ] && [ "$file" -gt 0 ]; then
		pass "replay vfatfile: writes through the allocated file never touch the FAT tables ($file inside it, $dir to its directory entry, $boot to the boot sector)"
	else
		fail "replay vfatfile: the FAT tables stay untouched" "$fat writes to them, $file inside the file"
	fi
}

# replay_fs FS: record, then every chosen point
replay_fs() {
	local fs=$1 p prev=0 checked=0 bad=0 why first="" nf
	if ! command -v "$(fs_tool "$fs")" >/dev/null; then
		skip "replay $fs" "$(fs_tool "$fs") not installed"
		return
	fi
	if ! grep -qw "${fs%file}" /proc/filesystems; then
		skip "replay $fs" "the kernel has no ${fs%file}"
		return
	fi
	make_base "$fs" || { fail "replay $fs" "cannot make the branch file system"; return; }
	if ! record "$fs"; then
		fail "replay $fs" "the recorded run failed: $(tr '\n' ' ' <"$T/ops.out")"
		return
	fi
	/usr/bin/python3 "$REPLAY" list "$T/log.img" >"$T/entries" ||
		{ fail "replay $fs" "the log cannot be read"; return; }
	nf=$(awk '$2 ~ /FLUSH|FUA/' "$T/entries" | wc -l)
	echo "replay $fs: recorded $(wc -l <"$T/entries") log entries ($nf flush/FUA) at ${SECONDS}s"
	R=$(at_mark requested) W=$(at_mark written) O=$(at_mark bootok) CP=$(at_mark copied) H=$(at_mark changed)
	[ "$fs" != vfatfile ] || fat_writes
	if [ "$fs" = vfat ]; then
		expect "replay vfat: copy-up refuses a branch that cannot hold symbolic links, exit 1" "$T/ops.out" \
			'cannot hold symbolic links.*nothing copied'
		expect "replay vfat: the refusal is an exit 1" "$T/ops.out" '^copyup exit 1$'
		R=0 W=0 O=0 CP=0 H=0
	elif [ -z "$R$W$O$CP$H" ] || ! grep -q 'reset scheduled' "$T/ops.out"; then
		fail "replay $fs" "a mark or an operation is missing: $(tr '\n' ' ' <"$T/ops.out")"
		return
	fi
	# the replayer itself: the whole log on the base is the recorded disk
	cp --sparse=always "$T/base.img" "$T/replay.img"
	if /usr/bin/python3 "$REPLAY" replay "$T/log.img" "$T/replay.img" --to-mark dm-log-writes-end &&
		cmp -s "$T/replay.img" "$T/dev.img"; then
		pass "replay $fs: the whole log replayed on the base gives the recorded disk byte for byte"
	else
		fail "replay $fs: the replayer" "the whole log replayed differs from the recorded disk: $(cmp "$T/replay.img" "$T/dev.img" 2>&1)"
	fi
	cp --sparse=always "$T/base.img" "$T/replay.img"
	for p in $(choose_points "$fs"); do
		/usr/bin/python3 "$REPLAY" replay "$T/log.img" "$T/replay.img" --from $((prev + 1)) --to "$p" ||
			{ fail "replay $fs" "replaying to entry $p failed"; return; }
		prev=$p
		why=$(check_point "$fs" "$p")
		checked=$((checked + 1))
		if [ -n "$why" ]; then
			bad=$((bad + 1))
			[ -n "$first" ] || first="entry $p ($(sed -n "${p}p" "$T/entries")): $why"
		fi
	done
	echo "replay $fs: $checked points checked of $(wc -l <"$T/entries") log entries ($nf flush/FUA), $bad anomalies"
	if [ "$fs" = vfat ] && [ "$bad" = 0 ] && [ "$checked" -ge 1 ]; then
		# the refusal writes next to nothing: a short log, few points
		pass "replay vfat: every checked point passes fsck -n and the refused branch stays untouched ($checked points)"
	elif [ "$fs" != vfat ] && [ "$bad" = 0 ] && [ "$checked" -gt 3 ]; then
		pass "replay $fs: every checked point passes fsck -n and recovers to old or factory, never mixed ($checked points)"
	else
		fail "replay $fs" "$bad of $checked points: first $first"
	fi
}

# flakey_fs FS: the reset stopped dead after each step (SIGKILL keeps the page
# cache), then every later write dropped (drop_writes) or failed
# (error_writes) while the boot's recovery runs on it; the next recovery on
# what reached the disk is factory, and a failure on the way was said
flakey_fs() {
	local fs=$1 mode step dev sz rc bad why
	[ -f "$T/base.img" ] || return
	for mode in drop_writes error_writes; do
		bad=0 why=""
		for step in request keep aside fresh cleared; do
			cp --sparse=always "$T/base.img" "$T/dev.img"
			dev=$(losetup -f --show "$T/dev.img") || return
			sz=$(blockdev --getsz "$dev")
			if ! dmsetup create ur-flakey --table "0 $sz linear $dev 0" || ! mount /dev/mapper/ur-flakey "$M"; then
				fail "flakey $fs" "cannot set up dm-flakey"
				losetup -d "$dev"
				return
			fi
			# in a command substitution the shell's own "Killed" goes to /dev/null
			rc=$({ "$BIN" test-reset "$M/ov" "$step" keeplist >/dev/null 2>&1; echo $?; } 2>/dev/null)
			[ "$rc" = 137 ] || why+="the reset did not stop after $step (exit $rc); "
			# --nolockfs: no freeze, so what the cache holds stays unwritten
			dmsetup suspend --nolockfs ur-flakey &&
				dmsetup reload ur-flakey --table "0 $sz flakey $dev 0 0 1 1 $mode" &&
				dmsetup resume ur-flakey
			"$BIN" test-reset "$M/ov" >"$T/fl.out" 2>&1
			rc=$?
			umount "$M"
			dmsetup remove ur-flakey
			losetup -d "$dev"
			if [ "$rc" != 0 ] && ! grep -q '^unionroot' "$T/fl.out"; then
				why+="after $step: the recovery failed without saying why; "
			fi
			if ! fsck_of "$fs" "$T/dev.img" >"$T/fsck.out" 2>&1; then
				why+="after $step: fsck -n finds errors: $(tail -2 "$T/fsck.out" | tr '\n' ' '); "
			elif ! mount -o loop "$T/dev.img" "$C"; then
				why+="after $step: cannot mount; "
			else
				"$BIN" test-reset "$C/ov" >>"$T/fl.out" 2>&1
				if [ "$(tree_state "$C/ov")" != factory ] || [ -e "$C/ov/.unionroot/reset" ]; then
					why+="after $step: $(tree_state "$C/ov") after the next recovery; "
				fi
				umount "$C"
			fi
			[ -z "$why" ] || bad=1
			echo "flakey $fs $mode after $step: first recovery exit $rc: $(grep -m1 '^unionroot' "$T/fl.out")"
		done
		if [ "$bad" = 0 ]; then
			pass "flakey $fs $mode: after each reset step the next recovery is factory, never mixed (5 steps)"
		else
			fail "flakey $fs $mode" "$why"
		fi
	done
}

for fs in ${REPLAY_FS:-ext4 f2fs vfat vfatfile}; do
	replay_fs "$fs"
	case $fs in ext4 | f2fs) flakey_fs "$fs" ;; esac
	rm -f "$T/base.img"
done
