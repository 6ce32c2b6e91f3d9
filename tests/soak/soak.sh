#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# make soak: SOAK_BOOTS boots (default 200) of the PC board, on both
# backends (an overlay branch and a copy-up branch, each its own disk,
# cache=none), picked at random. SOAK_FS=ext4 (default) or f2fs (on the
# eMMC board, which checks it with fsck.f2fs) gives each backend a disk of
# that file system; SOAK_FS=ubifs boots the flash board
# with each backend's branch a UBI volume on its own block2mtd flash. Each
# boot first checks what it finds, then does one random operation: write a
# generation of files (synced, then a "done" mark), or ask for a reset.
# About one boot in three is cut (QEMU killed) at a random instant. The model each clean boot is held to: every
# generation marked done before is there and whole, nothing half-written is
# marked done, a requested reset gives the factory tree, a reset whose
# request a cut may have lost gives the old tree or the factory tree, never a
# mix. Every anomaly is one line with its logs kept in $BUILD/soak/; the
# last line gives boots, cuts, anomalies and the run time.
# SOAK_SEED=N repeats a run; SOAK_CUT=PERCENT (default 35) sets how often.
FS=${SOAK_FS:-ext4}
case $FS in
ext4) ;;
f2fs) BOARD=qemu-x86_64-emmc ;; # checks the branch with fsck.f2fs at each boot
ubifs) BOARD=qemu-x86_64-flash ;;
*) echo "soak: SOAK_FS=$FS: not one of ext4 f2fs ubifs" >&2; exit 2 ;;
esac
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu soak || exit 0
[ "$FS" != f2fs ] || need_tools soak mkfs.f2fs || exit 0
scratch soak
BOOTS=${SOAK_BOOTS:-200}
SEED=${SOAK_SEED:-$$}
CUT=${SOAK_CUT:-35}
FILES=${SOAK_FILES:-100}
RANDOM=$SEED
KEEP=$BUILD/soak
rm -rf "$KEEP" && mkdir -p "$KEEP"
echo "soak: $BOOTS boots on $FS, seed $SEED, $CUT% cut, $FILES files a generation" >&2

# What a boot reports before its operation: each generation marked done
# (DONE=K, or BAD=K when one of its files is not whole), whether the
# image's file is there, and whether a reset is still pending.
PROBE='
	for d in /root/soak/g*; do
		[ -e "$d/done" ] || continue
		k=${d##*/g}; ok=1
		for f in "$d"/f*; do [ "$(cat "$f")" = "$k" ] || ok=0; done
		[ "$(ls "$d" | wc -l)" = '"$((FILES + 1))"' ] || ok=0
		[ $ok = 1 ] && echo "DONE=$k" || echo "BAD=$k"
	done
	[ -e /etc/factory-file ] && echo FACTORY=yes || echo FACTORY=no
	echo "MARK-pending=$(/run/unionroot/bin/unionroot status | sed -n "s/^reset_pending=//p")"'
# op_write K: generation K, synced before its done mark
op_write() {
	printf '%s' '
		rm -rf /root/soak/tmp; mkdir -p /root/soak/tmp; rm -f /etc/factory-file
		i=0; while [ $i -lt '"$FILES"' ]; do echo '"$1"' >/root/soak/tmp/f$i; i=$((i + 1)); done
		sync; mv /root/soak/tmp /root/soak/g'"$1"'; sync
		touch /root/soak/g'"$1"'/done; sync; echo MARK-op-done'
}
OP_RESET='/run/unionroot/bin/unionroot reset --yes >/dev/null && echo MARK-op-done'

# per backend, the model: generations done, reset (no, yes, maybe), the
# image's deleted file there (yes, no), generations a cut may have left
declare -A want reset factory extra appends
UBI=
for b in overlay copyup; do
	case $FS in
	ext4) new_data "$T/$b.img" ;;
	f2fs)
		rm -f "$T/$b.img" && truncate -s 128M "$T/$b.img" && mkfs.f2fs -q -l data "$T/$b.img" >/dev/null
		UBI='union.lower=/dev/vda union.upper=LABEL=data ' # the demo's disks, not the board's SD card
		;;
	ubifs) # erased flash: the first boot makes the UBI volume
		head -c 16M /dev/zero | tr '\0' '\377' >"$T/$b.img"
		UBI='union.ubi=mtd:rootfs_data union.upper=ubi:rootfs_data '
		;;
	esac
	want[$b]=" " reset[$b]=no factory[$b]=yes extra[$b]=" "
done
appends[overlay]=$UBI
appends[copyup]="${UBI}union.mode=copyup"
boots=0 cuts=0 anomalies=0 gen=0 window=12
t_start=$(date +%s)

anomaly() { # BACKEND WHAT LOG...
	anomalies=$((anomalies + 1))
	echo "soak: anomaly $anomalies at boot $boots ($1): $2" >&2
	local f
	for f in "${@:3}"; do cp "$f" "$KEEP/$anomalies-$(basename "$f")" 2>/dev/null; done
}

# check B LOG: the clean boot's report versus the model of backend B
check() {
	local b=$1 log=$2 seen k done=${reset[$1]} base=${factory[$1]}
	seen=" $(sed -n 's/^DONE=//p' "$log" | sort -n | tr '\n' ' ')"
	grep -q '^BAD=' "$log" && anomaly "$b" "a generation marked done is not whole: $(grep '^BAD=' "$log" | tr '\n' ' ')" "$log"
	grep -q '^MARK-pending=no' "$log" || anomaly "$b" "a reset is still pending after a clean boot" "$log"
	if [ "$done" = maybe ]; then # a cut may have lost the request: old or factory
		done=yes
		for k in ${want[$b]}; do case $seen in *" $k "*) done=no ;; esac; done
	fi
	if [ "$done" = yes ]; then
		want[$b]=" " base=yes
	fi
	for k in ${want[$b]}; do
		case $seen in *" $k "*) ;; *) anomaly "$b" "generation $k, done before, is gone (seen '$seen')" "$log" ;; esac
	done
	for k in $seen; do
		case "${want[$b]}${extra[$b]}" in *" $k "*) ;; *) anomaly "$b" "generation $k should not be there (a reset: $done)" "$log" ;; esac
	done
	# a cut write may or may not have deleted the image's file
	[ "${extra[$b]}" = " " ] || base=either
	[ "$base" = either ] || grep -q "^FACTORY=$base" "$log" ||
		anomaly "$b" "the image's file: $(grep '^FACTORY=' "$log"), want $base (a reset: $done)" "$log"
	want[$b]=$seen reset[$b]=no extra[$b]=" "
	grep -q '^FACTORY=yes' "$log" && factory[$b]=yes || factory[$b]=no
}

while [ $boots -lt "$BOOTS" ]; do
	boots=$((boots + 1))
	b=overlay
	[ $((RANDOM % 2)) = 0 ] || b=copyup
	if [ $((RANDOM % 4)) = 0 ]; then op=reset cmd=$OP_RESET; else
		gen=$((gen + 1)) op=write cmd=$(op_write $gen)
	fi
	log=$T/boot$boots.log
	if [ $((RANDOM % 100)) -lt "$CUT" ]; then
		cuts=$((cuts + 1))
		delay=$(awk -v r="$RANDOM" -v w="$window" 'BEGIN { srand(r); printf "%.1f", 2 + w * rand() }')
		"$ROOT_DIR/board/$BOARD/run" "$OUTDIR" --data "$T/$b.img" --cache none --cmd "$PROBE
			$cmd" --timeout "$delay" --append "${appends[$b]}" --log "$log" >/dev/null 2>&1
		# what the cut may or may not have left: the model widens
		if [ $op = write ]; then
			extra[$b]+="$gen "
		elif [ "${reset[$b]}" = no ]; then
			reset[$b]=maybe
		fi
		echo "soak: boot $boots: $b $op, cut at $delay s" >&2
		continue
	fi
	t0=$(date +%s)
	if ! boot "$log" "$T/$b.img" "$PROBE
		$cmd" --cache none --append "${appends[$b]}" || ! grep -q '^MARK-op-done' "$log"; then
		anomaly "$b" "$op: no clean boot (timeout, oops, corruption, or the operation failed)" "$log"
		continue
	fi
	# QEMU's run of a clean boot bounds the cut window (seconds)
	window=$(($(date +%s) - t0))
	check "$b" "$log"
	if [ $op = write ]; then
		want[$b]+="$gen " factory[$b]=no
	else
		reset[$b]=yes
	fi
	echo "soak: boot $boots: $b $op, clean; generations kept:${want[$b]}" >&2
done
secs=$(($(date +%s) - t_start))
msg="$boots boots ($cuts cut) on overlay and copy-up, $FS, in $secs s, $anomalies anomalies (seed $SEED)"
echo "soak: $msg" >&2
if [ "$anomalies" = 0 ]; then
	pass "soak: $msg"
else
	fail "soak: $msg" "see the lines above and $KEEP/"
fi
