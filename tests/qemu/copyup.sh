#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# User stories of the copy-up backend (a union without overlayfs): changes
# persist, deletions stay deleted with no marker in upper/, resets restore the
# factory state, an image upgrade keeps the user's files and brings the new
# ones, and an initramfs without overlay.ko falls back to it by itself.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-copyup || exit 0
scratch copyup
DATA=$T/data.img
new_data "$DATA"
CU=union.mode=copyup

# 1. first boot: the image is copied into upper/, the root is a bind of it
if boot "$T/1.log" "$DATA" "$(change_root hello)"'
	/run/unionroot/bin/unionroot status | sed "s/^/STATUS: /"
	echo MARK-written' --append "$CU"; then
	expect "union.mode=copyup boots with the copy-up backend" "$T/1.log" '^STATUS: backend=copyup \(union.mode=copyup\)$'
	expect "the first boot copies the image" "$T/1.log" 'copy-up: first boot: copying the read-only image: copied [1-9]'
	expect "the real init runs on the writable device itself" "$T/1.log" '^real-init: root: /dev/vdb / ext4 rw'
else
	fail "copy-up first boot" "no clean boot (see $T/1.log)"
	keep_log "$T/1.log"
fi

# 2. same image: nothing to copy; the write and the deletion persist
if boot "$T/2.log" "$DATA" "$SHOW_CHANGES"'
	ls -la /run/unionroot/rw/upper/etc/ | grep -c factory | sed "s/^/MARK-upper-entries=/"
	/run/unionroot/bin/unionroot diff | sed "s/^/DIFF: /"' --append "$CU"; then
	expect "copy-up: a file written survives the next boot" "$T/2.log" '^MARK-persist=hello'
	expect "copy-up: a file of the image deleted stays deleted" "$T/2.log" '^MARK-factory-gone'
	expect "copy-up: no marker file in upper/ records the deletion" "$T/2.log" '^MARK-upper-entries=0'
	expect "copy-up: a boot with the same image copies nothing" "$T/2.log" 'copy-up: same image as the last boot: copied 0'
	expect "unionroot diff lists the deletion from the manifest" "$T/2.log" '^DIFF: D /etc/factory-file$'
	expect "unionroot diff lists the user's file" "$T/2.log" '^DIFF: A /root/persist$'
else
	fail "copy-up second boot" "no clean boot (see $T/2.log)"
	keep_log "$T/2.log"
fi

# 3. an image upgrade: the user's changes stay, the new file appears
U=$T/upgrade
if unsquashfs -q -n -d "$U" "$OUTDIR/rootfs.squashfs" >/dev/null 2>&1; then
	echo "new in the upgrade" >"$U/etc/upgrade-file"
	echo "changed by the upgrade" >"$U/etc/hostname"
	mksquashfs "$U" "$T/upgrade.squashfs" -noappend -quiet -no-progress -all-root >/dev/null
fi
if [ -f "$T/upgrade.squashfs" ] && boot "$T/3.log" "$DATA" '
	echo "MARK-persist=$(cat /root/persist)"
	echo "MARK-new=$(cat /etc/upgrade-file)"
	[ -e /etc/factory-file ] && echo MARK-factory-back || echo MARK-factory-gone' \
	--append "$CU" --lower "$T/upgrade.squashfs"; then
	expect "an image upgrade is merged" "$T/3.log" 'copy-up: the image changed: merging'
	expect "after an upgrade the user's file is still there" "$T/3.log" '^MARK-persist=hello'
	expect "after an upgrade a new image file appears" "$T/3.log" '^MARK-new=new in the upgrade'
	expect "after an upgrade a deleted file stays deleted" "$T/3.log" '^MARK-factory-gone'
else
	fail "copy-up upgrade boot" "no clean boot (see $T/3.log)"
	keep_log "$T/3.log"
fi

# 4. union.reset=1: the factory state, restored from the manifest
if boot "$T/4.log" "$DATA" '
	[ -e /root/persist ] && echo MARK-persist-kept || echo MARK-persist-gone
	echo "MARK-factory=$(cat /etc/factory-file)"' --append "$CU" --reset; then
	expect "copy-up: union.reset=1 brings the factory file back" "$T/4.log" '^MARK-factory=factory'
	expect "copy-up: union.reset=1 drops the user's files" "$T/4.log" '^MARK-persist-gone'
	expect "copy-up: the reset restores only what differs" "$T/4.log" 'factory reset \(copy-up, union.reset\): restored [1-9][0-9]?, removed [1-9]'
else
	fail "copy-up reset boot" "no clean boot (see $T/4.log)"
	keep_log "$T/4.log"
fi

# 5. unionroot reset --yes at run time, applied by the next boot
if boot "$T/5a.log" "$DATA" '
	echo second >/root/persist
	/run/unionroot/bin/unionroot reset --yes --keep /root/persist && echo MARK-requested' --append "$CU" &&
	boot "$T/5b.log" "$DATA" '[ -e /root/persist ] && echo MARK-kept || echo MARK-reset-done' --append "$CU"; then
	expect "copy-up: the next boot applies a requested reset" "$T/5b.log" '^MARK-reset-done'
	expect "copy-up: PID 1 says the reset came from the request" "$T/5b.log" "factory reset \(copy-up, requested by 'unionroot reset'\)"
	expect "copy-up: keep paths are said to be unsupported, not dropped silently" "$T/5b.log" \
		'factory reset in copy-up mode: keep paths are not supported there yet; restoring the whole factory tree'
else
	fail "copy-up runtime reset" "no clean boot (see $T/5a.log, $T/5b.log)"
fi

# 6. an initramfs without overlay.ko: auto falls back to copy-up and says so
NOOV=$OUTDIR/initramfs-without-overlay.cpio.gz
if [ ! -f "$NOOV" ] || [ "$NOOV" -ot "$OUTDIR/initramfs.cpio.gz" ]; then
	"$ROOT_DIR/tools/mkinitramfs" "$BOARD" "$BUILD" --without overlay >/dev/null
fi
new_data "$T/data2.img"
if boot "$T/6.log" "$T/data2.img" '
	echo kept >/root/persist
	/run/unionroot/bin/unionroot status | sed "s/^/STATUS: /"' --initrd "$NOOV"; then
	expect "without overlay.ko, auto chooses copy-up" "$T/6.log" '^STATUS: backend=copyup \(no overlayfs in this kernel, the initramfs or the image\)$'
	expect "... and says so on the console" "$T/6.log" 'union backend: copy-up, because no overlayfs'
	expect "... after looking in the image's /lib/modules" "$T/6.log" 'no overlay module in the image either \(the last tried: /lib/modules/.*/overlay\.ko\.zst\)'
else
	fail "auto without overlay.ko" "no clean boot (see $T/6.log)"
	keep_log "$T/6.log"
fi
