#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# User stories of the image's own tools, on the PC board, whose initramfs
# carries no mkfs and no e2fsck: a persistence file made at the first boot
# with the image's mkfs.ext4 (a dynamically linked one, with its libraries,
# in a merged-/usr root: /sbin -> usr/sbin), then checked with the image's
# e2fsck, while a mkfs.ext4 and an e2fsck planted on the writable branch
# never run; and an image without them, where one line says so.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-image-tools || exit 0
need_tools qemu-image-tools mkfs.vfat mcopy unsquashfs mksquashfs ldd || exit 0
scratch image-tools
U=/run/unionroot/bin/unionroot

# The test root with the host's e2fsprogs: the binaries, the libraries ldd
# names and the dynamic loader, at the host's paths; sbin merged into usr/sbin.
R=$T/root
unsquashfs -q -d "$R" "$OUTDIR/rootfs.squashfs" >/dev/null
cp -a "$R/sbin/." "$R/usr/sbin/"
rm -rf "$R/sbin"
ln -s usr/sbin "$R/sbin"
rm -f "$R/usr/sbin/mke2fs" "$R/usr/sbin/e2fsck" "$R/usr/sbin/mkfs.ext4" # busybox's, if any
cp /sbin/mke2fs /sbin/e2fsck "$R/usr/sbin/"
ln -s mke2fs "$R/usr/sbin/mkfs.ext4"
cp /etc/mke2fs.conf "$R/etc/" 2>/dev/null || true
for lib in $(ldd /sbin/mke2fs /sbin/e2fsck | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u); do
	mkdir -p "$R$(dirname "$lib")"
	cp -L "$lib" "$R$lib"
done
mksquashfs "$R" "$T/tools.squashfs" -noappend -all-root -quiet >/dev/null

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

# plan_lines LOG: the boot's and the command's plan line on tools, the same
plan_lines() {
	local boot cmd
	boot=$(sed -n 's/^MARK-boot-plan: //p' "$1")
	cmd=$(sed -n 's/^MARK-cmd-plan: //p' "$1")
	if [ -n "$boot" ] && [ "$boot" = "$cmd" ]; then
		pass "$2: unionroot plan says the same tools line as the boot's plan"
	else
		fail "$2: unionroot plan says the same tools line as the boot's plan" "boot '$boot', command '$cmd'"
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
	plan_lines "$T/1.log" "the first boot"
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
	plan_lines "$T/2.log" "the checked boot"
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
