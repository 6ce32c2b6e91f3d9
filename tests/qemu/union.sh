#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# User stories of the union root, each detected from what the guest prints:
# it boots on overlay, changes persist, deletions stay deleted, a reset brings
# the factory state back, tmpfs forgets, a missing writable disk still boots.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-union || exit 0
scratch qemu
DATA=$T/data.img
new_data "$DATA"

# 1. first boot: overlay root, the real init runs, the runtime copy works
# The initramfs is freed by a child after the switch: within 10 s of the
# real init's start the pages of the in-memory file systems (Shmem: the
# initramfs is a tmpfs; Unevictable: a ramfs one) fall below a quarter of
# its unpacked size; kept, they would hold all of it. MemFree's gain is
# reported, not judged: what the real init takes meanwhile (its pages, the
# page cache of what it reads) varied by 2.5 MiB from boot to boot.
unpacked=$(($("$ROOT_DIR"/tools/initramfs-cat "$OUTDIR/initramfs.cpio.gz" | wc -c) / 1024))
if boot "$T/1.log" "$DATA" "$(change_root hello)"'
	kib() { sed -n "s/^$1: *\([0-9]*\) kB$/\1/p" /proc/meminfo; }
	for i in $(seq 100); do
		held=$(($(kib Shmem) + $(kib Unevictable)))
		[ "$held" -le '"$((unpacked / 4))"' ] && break
		sleep 0.1
	done
	echo "MARK-memory-held=$held"
	before=$(sed -n "s/.* memfree_before_kib=\([0-9]*\)$/\1/p" /run/unionroot/status)
	[ -z "$before" ] || echo "MARK-memfree-gained=$(($(kib MemFree) - before))"
	/run/unionroot/bin/unionroot status | sed "s/^/STATUS: /"
	echo "MARK-redirect-max=$(cat /sys/module/overlay/parameters/redirect_max)"
	for m in virtio_blk loop; do
		[ -d /sys/module/$m ] && echo "MARK-module-$m=loaded" || echo "MARK-module-$m=left"
	done
	echo MARK-written' --append 'overlay.redirect_max=1000 union.mode=fast'; then
	expect "the real init runs on an overlay root" "$T/1.log" '^real-init: root: overlay / overlay rw'
	expect "PID 1 logs what it mounted where" "$T/1.log" 'unionroot: writable branch: LABEL=data is /dev/vdb \(ext4'
	# PID 1's own /proc /sys /dev /run go with it into the real system
	expect "PID 1 switches to the real init" "$T/1.log" 'unionroot: switching to /sbin/init on overlay root'
	expect_not "... having moved its early mounts into the new root" "$T/1.log" \
		'moving /[a-z]+ into the new root failed' "an early mount was missing at the switch"
	expect "/run/unionroot/bin/unionroot runs in the booted system" "$T/1.log" '^STATUS: backend=overlay$'
	expect "status names the persistent writable branch" "$T/1.log" '^STATUS: upper_state=persistent on /dev/vdb \(ext4\)'
	expect "modname.param=value reaches the module" "$T/1.log" '^MARK-redirect-max=1000'
	# the board lists loop: it waits for a boot that has an image file (or
	# wants a module from the board's module pack: hardware.sh)
	expect "the media's driver is loaded" "$T/1.log" '^MARK-module-virtio_blk=loaded'
	expect "loop waits for an image file" "$T/1.log" '^MARK-module-loop=left'
	expect "a bad value is named and the default kept" "$T/1.log" 'unionroot: kernel command line: ignoring union.mode="fast": want auto\|overlay\|copyup; keeping the default'
	# A PC has no raw flash: the archive the kernel unpacks at every boot
	# carries no MTD stack (flash.sh boots it on the flash board), packed
	# or not
	carried=$("$ROOT_DIR"/tools/initramfs-ls "$OUTDIR/initramfs.cpio.gz")
	if grep -q '/loop\.ko$' <<<"$carried" && ! grep -E '/(mtd|ubi|jffs2|ubifs)\.ko$' <<<"$carried"; then
		pass "the PC board carries loop but no MTD, UBI or jffs2"
	else
		fail "the PC board carries loop but no MTD, UBI or jffs2" "$(grep -E '/(loop|mtd|ubi|jffs2|ubifs)\.ko$' <<<"$carried" | tr '\n' ' ')"
	fi
	# The initramfs's memory comes back (above).
	held=$(sed -n 's/^MARK-memory-held=\([0-9]*\)$/\1/p' "$T/1.log")
	if [ -n "$held" ] && [ "$held" -le $((unpacked / 4)) ]; then
		pass "the initramfs memory is returned after the hand-off ($held KiB in memory file systems of $unpacked KiB unpacked; MemFree +$(sed -n 's/^MARK-memfree-gained=//p' "$T/1.log") KiB)"
	else
		fail "the initramfs memory is returned after the hand-off" "${held:-no figure} KiB still in memory file systems of $unpacked KiB unpacked"
	fi
else
	fail "first boot" "no clean boot (see $T/1.log)"
	keep_log "$T/1.log"
fi

# 2. second boot: the write survived, the deletion too (whiteout)
if boot "$T/2.log" "$DATA" "$SHOW_CHANGES"'
	ls -la /run/unionroot/rw/upper/etc/factory-file | sed "s/^/UPPER: /"'; then
	expect "a file written survives the next boot" "$T/2.log" '^MARK-persist=hello'
	expect "a file of the image deleted stays deleted after reboot" "$T/2.log" '^MARK-factory-gone'
	expect "the deletion is an overlay whiteout in upper/" "$T/2.log" '^UPPER: c---------.* 0, +0 '
else
	fail "second boot" "no clean boot (see $T/2.log)"
fi

# 3. union.reset=1: factory state, old tree deleted after the switch
if boot "$T/3.log" "$DATA" '
	[ -e /root/persist ] && echo MARK-persist-kept || echo MARK-persist-gone
	echo "MARK-factory=$(cat /etc/factory-file)"
	# the idle cleaner empties it while the real init waits: up to 10 s
	for i in $(seq 100); do
		[ -z "$(ls /run/unionroot/rw/.unionroot/trash)" ] && break
		sleep 0.1
	done
	echo "MARK-trash=$(ls /run/unionroot/rw/.unionroot/trash | wc -l)"' --reset; then
	expect "union.reset=1 brings the factory state back" "$T/3.log" '^MARK-factory=factory'
	expect "union.reset=1 drops the user's files" "$T/3.log" '^MARK-persist-gone'
	expect "the old tree is deleted after the switch" "$T/3.log" '^MARK-trash=0'
else
	fail "reset boot" "no clean boot (see $T/3.log)"
fi

# 4. unionroot reset --yes at run time, applied by the next boot
if boot "$T/4a.log" "$DATA" '
	echo second >/root/persist
	/run/unionroot/bin/unionroot reset --yes && /run/unionroot/bin/unionroot status | grep reset_pending' &&
	boot "$T/4b.log" "$DATA" '[ -e /root/persist ] && echo MARK-kept || echo MARK-reset-done'; then
	expect "'unionroot reset --yes' records a pending reset" "$T/4a.log" '^reset_pending=yes'
	expect "the next boot applies a requested reset" "$T/4b.log" '^MARK-reset-done'
	expect "PID 1 says the reset came from the request" "$T/4b.log" "requested by 'unionroot reset'"
else
	fail "runtime reset" "no clean boot (see $T/4a.log, $T/4b.log)"
fi

# 5. union.upper=tmpfs: a volatile root, nothing reaches the disk
if boot "$T/5a.log" "$DATA" 'echo volatile >/root/tmpfile; echo "MARK-wrote=$(cat /root/tmpfile)"' --append union.upper=tmpfs &&
	boot "$T/5b.log" "$DATA" '[ -e /root/tmpfile ] && echo MARK-still-there || echo MARK-forgotten' --append union.upper=tmpfs; then
	expect "union.upper=tmpfs boots a volatile root" "$T/5a.log" '^real-init: status: upper_state=volatile'
	expect "a tmpfs root takes writes" "$T/5a.log" '^MARK-wrote=volatile'
	expect "union.upper=tmpfs loses changes on reboot" "$T/5b.log" '^MARK-forgotten'
else
	fail "tmpfs boots" "no clean boot (see $T/5a.log, $T/5b.log)"
fi

# 6. the writable disk is missing: volatile boot after the deadline, and why
if boot "$T/6.log" none 'echo MARK-booted' --append union.wait=2; then
	expect "a missing writable device still boots" "$T/6.log" '^MARK-booted'
	expect "the boot says why it is volatile" "$T/6.log" 'writable device LABEL=data not found; booting with a volatile writable branch'
	expect "status records the fallback" "$T/6.log" '^real-init: status: upper_state=volatile: writable device LABEL=data not found'
else
	fail "missing writable device" "no clean boot (see $T/6.log)"
fi

# 7. root= on the command line beats the board's union.lower=/dev/vda, with
# the kernel's rootfstype=; rootdelay= is a pause before the device wait
if command -v unsquashfs >/dev/null && command -v mksquashfs >/dev/null; then
	unsquashfs -q -n -d "$T/alt" "$OUTDIR/rootfs.squashfs" >/dev/null
	echo "alternative" >"$T/alt/etc/alt-root"
	mksquashfs "$T/alt" "$T/alt.squashfs" -noappend -all-root -quiet -no-progress >/dev/null
	if boot "$T/7.log" "$DATA" 'echo "MARK-alt=$(cat /etc/alt-root 2>/dev/null)"' \
		--disk "$T/alt.squashfs" --append 'root=/dev/vdc rootfstype=squashfs rootdelay=2 union.wait=1'; then
		expect "root= on the command line beats the board's union.lower" "$T/7.log" '^MARK-alt=alternative$'
		expect "... and PID 1 mounts it with rootfstype=" "$T/7.log" 'unionroot: read-only layer 1: /dev/vdc \(squashfs\) on '
		expect "rootdelay=2 pauses before the device wait" "$T/7.log" 'unionroot: rootdelay=2: pausing 2 s before looking for the devices'
		expect "... and the deadline stays union.wait's" "$T/7.log" 'unionroot: configured: .* deadline 1s$'
		expect_not "rootdelay= is no deadline" "$T/7.log" 'deadline 2s' "the device deadline became rootdelay's 2 s"
	else
		fail "root= on the command line" "no clean boot (see $T/7.log)"
		keep_log "$T/7.log"
	fi
else
	skip "root= on the command line" "unsquashfs or mksquashfs not installed"
fi
