#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# User stories of the image's own tools, on the PC board, whose initramfs
# carries no mkfs and no e2fsck: a persistence file made at the first boot
# with the image's mkfs.ext4 (a dynamically linked one, with its libraries,
# in a merged-/usr root: /sbin -> usr/sbin), then checked with the image's
# e2fsck, while a mkfs.ext4 and an e2fsck planted on the writable branch
# never run; and an image without them, where one line says so. Then a
# persistence partition made at the first boot behind a dd'd ISO's own, in
# an MBR and in a GPT, with a power cut while it is made.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-image-tools || exit 0
need_tools qemu-image-tools mkfs.vfat mcopy unsquashfs mksquashfs ldd xorriso sfdisk blkid || exit 0
need_isohybrid qemu-image-tools || exit 0
scratch image-tools
U=/run/unionroot/bin/unionroot
TEST_INITRD=$OUTDIR/initramfs-test.cpio.gz

# The test root with the host's e2fsprogs, in a merged-/usr root
"$TESTS_DIR/tools-image" "$OUTDIR/rootfs.squashfs" "$T/tools.squashfs"

# The planted tools write a marker the console would show, split in the
# source so that only a run of them prints it whole.
PLANT='for t in mkfs.ext4 e2fsck; do
		rm -f /usr/sbin/$t
		printf "#!/bin/sh\necho PLANTED-\"\"RAN-\$0\nexit 0\n" >/usr/sbin/$t && chmod 755 /usr/sbin/$t
	done; sync; echo MARK-planted'
TOOLS_LINES='grep "^tools=" /run/unionroot/status | sed "s/^/MARK-status: /"
	grep -E "lower/0/(dev|proc) " /proc/self/mountinfo | sed "s/^/MARK-left: /"
	grep "^tools " /run/unionroot/plan | sed "s/^/MARK-boot-plan: /"
	'$U' plan | grep "^tools " | sed "s/^/MARK-cmd-plan: /"'
STICK=(--lower "$T/tools.squashfs" --usb "$T/stick.img")
ARGS='union.upper=LABEL=STICK:/persistence.img union.persist.size=32M union.wait=30'

# plan_lines CMDLOG BOOTLOG WHAT: the plan lines `unionroot plan` printed in
# one boot (MARK-cmd-plan) are those the boot of BOOTLOG wrote (MARK-boot-plan)
plan_lines() {
	local boot cmd
	cmd=$(sed -n 's/^MARK-cmd-plan: //p' "$1")
	boot=$(sed -n 's/^MARK-boot-plan: //p' "$2")
	if [ -n "$boot" ] && [ "$boot" = "$cmd" ]; then
		pass "$3"
	else
		fail "$3" "boot '$boot', command '$cmd'"
	fi
}

# ---- 1. the first boot makes the file with the image's mkfs.ext4 -----------
stick "$T/stick.img" STICK 64
if boot "$T/1.log" none "$(change_root kept-in-made-file); $PLANT; $TOOLS_LINES" "${STICK[@]}" \
	--append "$ARGS"; then
	expect "no mkfs in the initramfs: the image's runs, confined to its layer" "$T/1.log" \
		'unionroot: /sbin/mkfs.ext4: none in this initramfs; running read-only layer 1.s own, confined to it'
	expect "the image's mkfs.ext4 makes the persistence file" "$T/1.log" \
		'unionroot: writable branch: persistence file /persistence.img on /dev/sda made in'
	expect "the made file is the writable branch" "$T/1.log" \
		'^real-init: status: upper_image=/dev/sda:/persistence.img'
	expect "the status says which mkfs ran and from where" "$T/1.log" \
		'^MARK-status: tools=/sbin/mkfs.ext4 \(read-only layer 1\)'
	expect "the boot's plan says which mkfs ran" "$T/1.log" \
		'^MARK-boot-plan: tools .*; ran: /sbin/mkfs.ext4 \(read-only layer 1\)'
	plan_lines "$T/1.log" "$T/1.log" "the first boot: unionroot plan says the same tools line as the boot's plan"
	expect "the tools are planted on the writable branch" "$T/1.log" '^MARK-planted'
	expect_not "the tool's /dev and /proc on the layer ended with it" "$T/1.log" '^MARK-left: ' "still mounted"
else
	fail "a persistence file made with the image's mkfs" "no clean boot (see $T/1.log)"
	keep_log "$T/1.log"
fi

# ---- 2. union.fsck: the image's e2fsck checks it, the planted one never runs
if boot "$T/2.log" none "$SHOW_CHANGES; $TOOLS_LINES" "${STICK[@]}" --append "$ARGS union.fsck=1"; then
	expect "union.fsck: the image's e2fsck checks the file" "$T/2.log" \
		'unionroot: writable branch /dev/loop[0-9]+: /sbin/e2fsck: clean'
	expect "the status says the e2fsck was the image's" "$T/2.log" \
		'^MARK-status: tools=/sbin/e2fsck \(read-only layer 1\)'
	plan_lines "$T/2.log" "$T/2.log" "the checked boot: unionroot plan says the same tools line as the boot's plan"
	expect "changes of the first boot are in the file made" "$T/2.log" '^MARK-persist=kept-in-made-file'
	expect_not "a tool planted on the writable branch never runs" "$T/2.log" 'PLANTED-RAN' \
		"the planted tool ran"
else
	fail "union.fsck with the image's e2fsck" "no clean boot (see $T/2.log)"
	keep_log "$T/2.log"
fi
expect_not "a tool planted on the writable branch never runs at the first boot" "$T/1.log" 'PLANTED-RAN' \
	"the planted tool ran"

# ---- 3. no mkfs anywhere: one line, then union.onfail ----------------------
stick "$T/empty.img" STICK 64
if boot "$T/3.log" none 'echo hello >/root/x && echo MARK-volatile-root-writable' --usb "$T/empty.img" \
	--append "$ARGS"; then
	expect "no mkfs in the initramfs nor the image: one line says so" "$T/3.log" \
		'unionroot: /dev/loop[0-9]+: no mkfs for ext4 in this initramfs or in the image \(/sbin/mkfs.ext4 or /usr/sbin/mkfs.ext4\)'
	expect "no mkfs anywhere: union.onfail's volatile branch" "$T/3.log" \
		'^real-init: status: upper_state=volatile: writable branch: making persistence file /persistence.img on /dev/sda failed: formatting it'
	expect "no mkfs anywhere: the volatile root takes writes" "$T/3.log" '^MARK-volatile-root-writable'
else
	fail "no mkfs anywhere" "no clean boot (see $T/3.log)"
	keep_log "$T/3.log"
fi

# ---- 4. a persistence partition made at the first boot --------------------
# The image with the tools as a dd'd ISO: an isohybrid one (MBR, partition 1
# over the ISO from sector 0) and tools/mkiso's (GPT; its partitions cover
# the ISO, with the backup table at its end, not the stick's).
mkdir -p "$T/iso/live"
cp "$T/tools.squashfs" "$T/iso/live/filesystem.squashfs"
hybrid_iso "$T/iso" LIVETOOLS "$T/mbr.iso"
if ! "$ROOT_DIR/tools/mkiso" --rootfs "$T/tools.squashfs" --kernel "$OUTDIR/vmlinuz" \
	--initrd "$OUTDIR/initramfs-live.cpio.gz" --output "$T/gpt.iso" >"$T/mkiso.log" 2>&1; then
	fail "tools/mkiso writes the ISO with the tools" "$(tail -n 3 "$T/mkiso.log" | tr '\n' ' ')"
fi
PART_ARGS='union.lower=auto union.upper=LABEL=persistence@3 union.persist.size=48M union.scan=removable'
PART_PLAN='for f in /run/unionroot/plan; do grep -E "^(writable|persistence) " $f | sed "s/^/MARK-boot-plan: /"; done
	'$U' plan | sed -n "/^--- plan/,\$p" | grep -E "^(writable|persistence) " | sed "s/^/MARK-cmd-plan: /"'

# parts IMG: the partitions of its table, as sfdisk reads it
parts() { sfdisk -d "$1" 2>/dev/null | grep -c '^/'; }

# part_story NAME ISO NUM CUT: the ISO dd'd to a 192 MiB stick; a first boot
# (the test initramfs) stopped dead after CUT while it makes the partition
# leaves the old table; the next boot makes partition NUM labelled
# persistence with the image's mkfs.ext4; the third keeps its changes there
part_story() {
	local name=$1 img=$T/$1.img num=$3 cut=$4 before start label
	[ -s "$2" ] || return 0
	cp "$2" "$img"
	truncate -s 192M "$img"
	before=$(parts "$img")
	boot "$T/$name.cut.log" none 'echo MARK-survived-the-cut' --lower none --usb "$img" \
		--initrd "$TEST_INITRD" --append "$PART_ARGS union.test.crashafter=$cut" || true
	expect "$name: the first boot stops dead after $cut" "$T/$name.cut.log" \
		"test crash point: stopping dead after step \"$cut\""
	expect_not "$name: the cut boot goes no further" "$T/$name.cut.log" '^MARK-survived-the-cut' \
		"it went on"
	if [ "$(parts "$img")" = "$before" ]; then
		pass "$name: the cut leaves the stick's table as it was ($before partitions)"
	else
		fail "$name: the cut leaves the stick's table as it was ($before partitions)" \
			"$(sfdisk -d "$img" 2>&1 | tr '\n' '|')"
	fi
	if ! boot "$T/$name.1.log" none "$(change_root in-the-partition); $PART_PLAN" \
		--lower none --usb "$img" --append "$PART_ARGS"; then
		fail "$name: the boot after the cut" "no clean boot (see $T/$name.1.log)"
		keep_log "$T/$name.cut.log" "$T/$name.1.log"
		return 1
	fi
	expect "$name: the boot after the cut makes partition $num" "$T/$name.1.log" \
		"unionroot: writable branch: persistence partition persistence made as /dev/sda$num in "
	expect "$name: the image's mkfs.ext4 formats it" "$T/$name.1.log" \
		'unionroot: /sbin/mkfs.ext4: none in this initramfs; running read-only layer 1.s own'
	expect "$name: the partition made is the writable branch" "$T/$name.1.log" \
		"^real-init: status: upper_state=persistent on /dev/sda$num \\(ext4\\)"
	start=$(sfdisk -d "$img" 2>/dev/null | sed -n "s|^$img$num : start= *\\([0-9]*\\),.*|\\1|p")
	label=$([ -n "$start" ] && blkid -p -O $((start * 512)) -s LABEL -o value "$img")
	if [ "$(parts "$img")" = $((before + 1)) ] && [ "$label" = persistence ]; then
		pass "$name: the stick's table has partition $num, an ext4 labelled persistence"
	else
		fail "$name: the stick's table has partition $num, an ext4 labelled persistence" \
			"label '$label': $(sfdisk -d "$img" 2>&1 | tr '\n' '|')"
	fi
	if ! boot "$T/$name.2.log" none "$SHOW_CHANGES; $PART_PLAN" --lower none --usb "$img" \
		--append "$PART_ARGS"; then
		fail "$name: the boot after" "no clean boot (see $T/$name.2.log)"
		keep_log "$T/$name.1.log" "$T/$name.2.log"
		return 1
	fi
	expect "$name: the change is kept in the partition made" "$T/$name.2.log" '^MARK-persist=in-the-partition'
	expect "$name: the boot after finds it by its label" "$T/$name.2.log" \
		"^real-init: status: upper_state=persistent on /dev/sda$num \\(ext4\\)"
	expect_not "$name: the boot after makes nothing" "$T/$name.2.log" 'making one of|made as' "it made one"
	expect "$name: the boot that made it plans it as made" "$T/$name.1.log" \
		'^MARK-boot-plan: persistence +partition persistence, .*: missing: made now, 48M as ext4'
	plan_lines "$T/$name.1.log" "$T/$name.2.log" "$name: unionroot plan printed what the boot after planned"
	keep_log "$T/$name.cut.log" "$T/$name.1.log" "$T/$name.2.log"
}

# an MBR: the cut after the file system is made, before the table
part_story part-mbr "$T/mbr.iso" 2 partformatted
# a GPT: the cut after its backup at the stick's end, before the primary
part_story part-gpt "$T/gpt.iso" 4 partbackup
