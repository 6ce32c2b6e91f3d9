# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# host_vm MODULES SCRIPT [ARGS...]: runs a host test inside a QEMU guest (TCG)
# that boots the build's Debian kernel with this machine's / read-only over
# 9p, for the host tests that need kernel parts the running kernel lacks
# (device-mapper targets, f2fs, vfat). The guest loads MODULES (and their
# dependencies) first, has tmpfs on /tmp and /run, and runs SCRIPT as root
# with HOSTVM=1 and the assignments in the array HOSTVM_ENV; its output
# comes on stdout, its exit status is returned. HOSTVM_DISK=FILE gives the
# guest FILE as its disk vda (virtio_blk among MODULES), written through.

# host_vm_ready: 0 when the build's kernel and QEMU are there.
host_vm_ready() {
	local k=$ROOT_DIR/$BUILD/kernel/amd64
	HOSTVM_KVER=$(find "$k/lib/modules" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null | head -1)
	HOSTVM_KDIR=$k
	[ -n "$HOSTVM_KVER" ] && [ -f "$k/boot/vmlinuz-$HOSTVM_KVER" ] &&
		[ -x "$ROOT_DIR/$BUILD/busybox/amd64/bin/busybox" ] &&
		command -v qemu-system-x86_64 >/dev/null && command -v cpio >/dev/null
}

host_vm() {
	local mods="virtio_pci 9pnet_virtio 9p $1" script=$2 dir ko n=0 rc
	shift 2
	host_vm_ready || return 125
	dir=$(mktemp -d "${TMPDIR:-/tmp}/unionroot-hostvm.XXXXXX")
	mkdir -p "$dir/root/bin" "$dir/root/m" "$dir/root/host"
	cp "$ROOT_DIR/$BUILD/busybox/amd64/bin/busybox" "$dir/root/bin/"
	# insmod order: dependencies first, each module once
	for ko in $(for m in $mods; do
		modprobe -d "$HOSTVM_KDIR" -S "$HOSTVM_KVER" --show-depends "$m" | sed -n 's/^insmod \([^ ]*\).*/\1/p'
	done | awk '!seen[$0]++'); do
		n=$((n + 1))
		cp "$ko" "$dir/root/m/$(printf %03d "$n")-$(basename "$ko")"
	done
	# the guest's command line: the script and its arguments, quoted
	{
		printf 'cd %q || exit 2\n' "$PWD"
		printf '%q ' exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root HOSTVM=1 \
			BUILD="$BUILD" TMPDIR=/tmp ${HOSTVM_ENV[@]+"${HOSTVM_ENV[@]}"} bash "$script" "$@"
	} >"$dir/root/cmd"
	cat >"$dir/root/init" <<-EOF
		#!/bin/busybox sh
		/bin/busybox mount -t proc proc /proc 2>/dev/null || { /bin/busybox mkdir /proc; /bin/busybox mount -t proc proc /proc; }
		for m in /m/*.ko; do /bin/busybox insmod "\$m"; done
		/bin/busybox mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,ro host /host
		/bin/busybox mount -t proc proc /host/proc
		/bin/busybox mount -t sysfs sysfs /host/sys
		/bin/busybox mount -t devtmpfs devtmpfs /host/dev
		/bin/busybox mount -t tmpfs -o mode=1777 tmpfs /host/tmp
		/bin/busybox mount -t tmpfs tmpfs /host/run
		/bin/busybox cp /cmd /host/tmp/.hostvm-cmd
		/bin/busybox chroot /host /bin/bash /tmp/.hostvm-cmd </dev/console >/dev/console 2>&1
		echo "HOSTVM-EXIT=\$?" >/dev/console
		/bin/busybox poweroff -f
	EOF
	chmod 0755 "$dir/root/init"
	(cd "$dir/root" && find . | cpio -o -H newc --quiet | gzip -1 >"$dir/initrd")
	# the kernel unpacked (tools/fetch-kernel) skips its xz stub under TCG
	local kernel=$HOSTVM_KDIR/boot/vmlinux-$HOSTVM_KVER
	[ -f "$kernel" ] || kernel=$HOSTVM_KDIR/boot/vmlinuz-$HOSTVM_KVER
	timeout "${HOSTVM_TIMEOUT:-1800}" qemu-system-x86_64 -machine pc -cpu max -accel tcg -m 2048 -smp 1 \
		-kernel "$kernel" -initrd "$dir/initrd" \
		-append "console=ttyS0 quiet loglevel=1 panic=-1 rdinit=/init" \
		-virtfs local,path=/,mount_tag=host,security_model=passthrough,readonly=on,multidevs=remap \
		${HOSTVM_DISK:+-drive "file=$HOSTVM_DISK,format=raw,if=virtio"} \
		-display none -serial stdio -monitor none -no-reboot </dev/null |
		sed -u 's/\r$//' | tee "$dir/out" | grep --line-buffered -v -e '^HOSTVM-EXIT=' -e 'reboot: Power down'
	rc=$(sed -n 's/^HOSTVM-EXIT=//p' "$dir/out" | tail -1)
	rm -rf "$dir"
	return "${rc:-124}"
}
