#!/bin/bash
# SPDX-License-Identifier: MIT
# The binary's size budget (no root needed): the shipped build, the
# overlay-only build (make COPYUP=0) and the smallest build (COPYUP=0
# VERITY=0 FLASH=0 PEERS=0) stay under their budgets and link neither musl's
# vfprintf nor its malloc (nor the strtol family, strstr or qsort, which own
# small code replaces, nor its stdio FILEs: the admin commands print through
# unionroot/cmd/out.c), and each plan says what its build leaves out. The
# sizes are printed on every run.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
scratch size
# Stripped bytes. The aim is 150 KiB and 100 KiB (what remains is spread over
# the boot's own code, see doc/measurements.md, "Size"). A budget is counted
# in 4 KiB pages, the step in which the file grows (its RELRO end is
# page-aligned). String tables as arrays, not pointers (tests/lint), paid
# for the status record's typed pair and the plan's steps; the live medium
# on a whole disk reached through its partition or a loop (init/reach.c,
# media_reach, the disk's own partition table) took 1.5 KB: one more page
# for the full and the smallest builds. Other live systems' parameters
# (conf/peers.c, 3.3 KB) took one more page in the overlay-only build; the
# smallest build leaves them out (PEERS=0). The clean shutdown
# (init/shutdown.c, /run/initramfs/shutdown; 4.3 KB) took one more page in
# each build: a router's branch needs it as much as a live stick's.
# The image's own tools (init/tool_place.c, 2.2 KB) took one more in the
# full and the overlay-only builds. The persistence partition made at the
# first boot (init/mkpart.c and probe/parttab_add.c) took one more
# page in the full and overlay-only builds, two in the smallest.
# A LUKS writable branch (init/unlock.c: cryptsetup with a key file or a
# passphrase asked on the consoles; media/dm.c now in every build, which
# closes it) took one more page in each build.
# mount-root, the plan run inside a distribution's initramfs (init/mountroot.c,
# the mode in the status, /dev/mapper/NAME; 1.5 KB) took one more page in
# the full and the overlay-only builds.
# LVM's /dev/VG/LV, floppy drives left out of the scan, and the plan's fact
# of OpenWrt's marker (224 bytes more loaded: 176,248) took one more page
# in the smallest build.
# OpenWrt's sysupgrade.tgz placed by union.upgrade (the plan's decision and
# its words, the branch's rename, the step: 1,632 bytes more loaded, 208,796
# of text and constants in the full build) took one more page in the full
# and the overlay-only builds; the smallest kept its page.
# The network medium (nbd: layers: the NIC by modalias, DHCP or ip=, the
# NBD handshake, the nbd device; init/net*.c, net/; 13.9 KB of text) took
# four more pages in the full and the overlay-only builds (sysupgrade.tgz's
# placement fits in them: 226,984 and 210,600 with both); the smallest
# build leaves the network out (NET=0) and stays as it was.
# http:// layers fetched to RAM (init/net_http.c, net/http.c: the GET,
# the response's head, the tmpfs and the loop; the plan's rule for plain
# HTTP) took two more pages in the full and the overlay-only builds (their
# code and constants end at 230,076 and 212,956 bytes); the smallest
# leaves them out with the network (NET=0) and keeps its page.
# nfs: layers (init/net_nfs.c, net/nfs.c: the SPEC's split, the mount
# options, the mount with its fallbacks and its one-line reasons, the tree
# bound or the image on a loop; the plan's row and refusal) took 3,440
# bytes of text (code and constants end at 234,428 bytes, from 230,972: the
# page held 1,396 of them) and one more page in the full and the
# overlay-only builds; the smallest leaves them out with the network
# (NET=0) and keeps its page (16 bytes less).
# A writable branch on an nbd: export (its connection in init/net_nbd.c,
# ${mac} and ${hostname} in conf/specvar.c, the plan's row; 2,401 bytes more
# text in the full build, 233,000) took one more page in the full and the
# overlay-only builds. The smallest leaves the network out, but keeps the
# plan's refusal of such a branch in one line, the row's name, and the
# shutdown's sysfs without which no nbd device ever left its server: 368
# bytes more text (179,079), where its last page had 20 bytes left: one
# more page.
# Both together (the full build's code and constants end at 237,144 bytes,
# the overlay-only build's at 220,056, the smallest's at 179,783), then one
# copy less of an image's loop set-up (236,760 and 219,672: the overlay-only
# build a page smaller):
BUDGET_FULL=${BUDGET_FULL:-243368}
BUDGET_OVERLAY=${BUDGET_OVERLAY:-222888}
BUDGET_MINIMAL=${BUDGET_MINIMAL:-186008}
FULL=$BUILD/unionroot
OVERLAY=$BUILD/overlay/unionroot
MINIMAL=$BUILD/minimal/unionroot

# A build of another libc (make LIBC=glibc; BUILD/unionroot.libc says which)
# has its size reported: the budgets and the link map's members are musl's.
if read -r libc link <"$FULL.libc" 2>/dev/null && [ "$libc" != musl ]; then
	size=$(stat -c %s "$FULL")
	echo "size: $libc $FULL: $size bytes ($link)"
	skip "size: the budgets" "they are musl's; this $libc build ($link) is $size bytes"
	exit 0
fi

if ! make --no-print-directory -s BUILD="$BUILD" "$FULL" "$OVERLAY" "$MINIMAL" >"$T/make.log" 2>&1; then
	fail "size: the three builds" "make failed: $(tail -3 "$T/make.log")"
	exit 1
fi

# budget NAME BINARY BYTES
budget() {
	local size
	size=$(stat -c %s "$2")
	echo "size: $1 $2: $size bytes, budget $3 bytes"
	if [ "$size" -le "$3" ]; then
		pass "size: the $1 build is within its budget ($size <= $3 bytes)"
	else
		fail "size: the $1 build is within its budget" "$size bytes > $3 (see the link map $2.map)"
	fi
}
budget full "$FULL" "$BUDGET_FULL"
budget overlay-only "$OVERLAY" "$BUDGET_OVERLAY"
budget minimal "$MINIMAL" "$BUDGET_MINIMAL"

# libc members come from the link map; formatting and allocation are the
# project's own (unionroot/lib/fmt.c, mmap'd tables)
for bin in "$FULL" "$OVERLAY" "$MINIMAL"; do
	if [ ! -s "$bin.map" ]; then
		fail "size: $bin links no vfprintf or malloc" "no link map $bin.map"
		continue
	fi
	expect "size: $bin's link map names the libc members" "$bin.map" 'libc\.a\(__libc_start_main\.lo\)'
	expect_not "size: $bin links neither musl's vfprintf nor its malloc" "$bin.map" \
		'libc\.a\((vfprintf|malloc|realloc|free|calloc)\.lo\)' \
		"$(grep -oE 'libc\.a\((vfprintf|malloc|realloc|free|calloc)\.lo\)' "$bin.map" | sort -u | tr '\n' ' ')"
	# each pulled in kilobytes for a handful of callers (unionroot/strnum.c)
	expect_not "size: $bin links neither musl's number scanner, strstr nor qsort" "$bin.map" \
		'libc\.a\((intscan|strtol|atoi|strstr|qsort)\.lo\)' \
		"$(grep -oE 'libc\.a\((intscan|strtol|atoi|strstr|qsort)\.lo\)' "$bin.map" | sort -u | tr '\n' ' ')"
	# FILE buffers, locks and flushing at exit: 3.5 KB for what write(2) does
	expect_not "size: $bin links none of musl's stdio" "$bin.map" \
		'libc\.a\((stdout|stderr|stdin|fwrite|fflush|fgets|__stdio_write|__stdio_exit)\.lo\)' \
		"$(grep -oE 'libc\.a\((stdout|stderr|stdin|fwrite|fflush|fgets|__stdio_write|__stdio_exit)\.lo\)' "$bin.map" | sort -u | tr '\n' ' ')"
done

# the same command line, planned by each build
CMD='union.lower=/dev/vda union.upper=tmpfs union.mode=copyup'
"$FULL" plan "$CMD" >"$T/full.plan" 2>&1
"$OVERLAY" plan "$CMD" >"$T/overlay.plan" 2>&1
expect "size: the full build plans copy-up where asked" "$T/full.plan" '^backend +copy-up: union.mode=copyup$'
expect "size: the overlay-only build plans a read-only root there, and says why" "$T/overlay.plan" \
	'^backend +read-only: copy-up is needed, and this build has no copy-up backend'
expect_not "size: the overlay-only build never plans copy-up" "$T/overlay.plan" '^backend +copy-up' \
	"it planned a backend it does not have"
"$OVERLAY" copyup --id x / / >"$T/copyup.out" 2>&1
expect "size: the overlay-only build's copyup command says it is left out" "$T/copyup.out" \
	'^unionroot copyup: this build has no copy-up backend'

# the smallest build: dm-verity and raw flash are not in it (their code's
# own words are not in the file), and its plan says what a command line
# that asks for them gets: a layer to verify is refused as a failed verity
# setup is, raw flash is never found (union.onfail for the writable branch)
strings -a "$FULL" >"$T/full.strings"
strings -a "$MINIMAL" >"$T/minimal.strings"
expect "size: the full build carries dm-verity" "$T/full.strings" 'unionroot-verity-%u'
expect "size: the full build attaches UBI" "$T/full.strings" '^UBI: attached mtd:%s'
expect_not "size: the smallest build carries no dm-verity" "$T/minimal.strings" 'unionroot-verity-%u' \
	"init/verity.c's device name is in it"
expect_not "size: the smallest build carries no raw flash" "$T/minimal.strings" '^UBI: attached mtd:%s' \
	"init/flash.c's UBI message is in it"
# plans NAME CMDLINE: the full and the smallest build's plans, $T/{full,minimal}-NAME.plan
plans() {
	"$FULL" plan "$2" >"$T/full-$1.plan" 2>&1
	"$MINIMAL" plan "$2" >"$T/minimal-$1.plan" 2>&1
}
plans verity "union.lower=/dev/vda union.upper=tmpfs union.verity=$(printf '%064d' 1)"
expect "size: the full build plans dm-verity where asked" "$T/full-verity.plan" \
	'^verity +layer 1: root hash 0+1, hash tree appended to the image'
expect "size: the smallest build says it has no dm-verity, and the boot stops" "$T/minimal-verity.plan" \
	'^backend +none, the boot stops: a read-only layer is to be verified, and this build has no dm-verity \(VERITY=0\)'
expect "size: the smallest build refuses the layer as a failed verity setup" "$T/minimal-verity.plan" \
	'refused as a verity setup that fails: reboot'
expect_not "size: the full build plans no stop for dm-verity" "$T/full-verity.plan" 'VERITY=0' \
	"the full build says it has no dm-verity"
plans flash 'union.lower=/dev/vda union.upper=ubi:data union.ubi=mtd:ubi'
expect "size: the full build plans the UBI branch where asked" "$T/full-flash.plan" \
	'^writable +ubi:data, persistent'
expect "size: the smallest build says it has no raw flash" "$T/minimal-flash.plan" \
	'^raw flash +not in this build \(FLASH=0\)'
expect "size: the smallest build gives a branch on raw flash to union.onfail" "$T/minimal-flash.plan" \
	'^writable +writable branch ubi:data needs raw flash .*\(FLASH=0\); union.onfail=tmpfs: tmpfs \(volatile\)'
expect_not "size: the full build plans raw flash" "$T/full-flash.plan" 'FLASH=0' \
	"the full build says it has no raw flash"
"$MINIMAL" plan 'union.lower=mtd:rootfs union.upper=tmpfs' >"$T/minimal-lower.plan" 2>&1
expect "size: the smallest build stops on a read-only layer on raw flash" "$T/minimal-lower.plan" \
	'^backend +none, the boot stops: a read-only layer needs raw flash, which this build leaves out \(FLASH=0\)'

# other live systems' parameters: said by the shipped build, left out of the smallest
plans peers 'union.compat=live-boot boot=live union.upper=tmpfs'
expect "size: the full build says what boot=live means here" "$T/full-peers.plan" \
	'^peer parameters +boot=live \(live-boot\) acts as union.lower=auto \(union.compat=live-boot\)$'
expect "size: the smallest build says it leaves other live systems' parameters out" "$T/minimal-peers.plan" \
	"^peer parameters +union.compat: this build leaves other live systems' parameters out$"

# an nfs: layer: planned by the shipped build, one line and a stop in the
# smallest, which leaves the network out (NET=0)
plans nfs 'union.lower=nfs:10.0.2.100:/srv:/rootfs.squashfs union.upper=tmpfs'
expect "size: the full build plans the nfs: layer's mount" "$T/full-nfs.plan" \
	'^ +3 mount the nfs export of layer 1'
expect "size: the smallest build stops on an nfs: layer, in one line" "$T/minimal-nfs.plan" \
	'^backend +none, the boot stops: a read-only layer is on the network \(nbd:, http://, nfs:\), which this build leaves out \(NET=0\)'
