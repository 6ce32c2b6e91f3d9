#!/bin/bash
# SPDX-License-Identifier: MIT
# dracut's module for unionroot: the root is the union of a read-only image
# and a writable branch that `unionroot mount-root` builds, when the kernel
# command line has union.lower= (unionroot.cmdline(7)). Without systemd in
# the initrd, a cmdline hook and a mount hook; with it, unionroot.service
# before initrd-root-fs.target. Any other boot of the same initrd is dracut's.
# shellcheck disable=SC2154 # initdir, moddir, systemdsystemunitdir: dracut's

# In every initrd once unionroot is installed, as the initramfs-tools hook
# is: it does nothing on a boot without union.lower=.
check() {
	require_binaries unionroot || return 1
	return 0
}

depends() {
	echo base
}

# What a union needs beyond the disks' drivers (dracut's own): images and
# their file systems, the overlay, verity and LUKS, and the writable
# branch's file systems. The same list, in the same order, as the
# initramfs-tools hook; /etc/unionroot/modules names them for the hooks'
# modprobe and unionroot's own loader, and the kernel asks for the rest.
unionroot_modules() {
	echo loop squashfs isofs udf erofs overlay dm-verity dm-crypt xts ext4 f2fs vfat exfat \
		nls_cp437 nls_iso8859_1 nls_utf8
}

installkernel() {
	# hostonly='': a host-only build takes only the modules loaded on the
	# machine that builds it, which need not be running a union
	# shellcheck disable=SC2046 # a list of names
	hostonly='' instmods $(unionroot_modules)
}

install() {
	inst_simple "$(find_binary unionroot)" /usr/sbin/unionroot
	# the writable branch's check and first format, and LUKS, when the
	# system has the tools: unionroot runs them from the initrd (else from
	# the image)
	inst_multiple -o e2fsck mke2fs mkfs.ext4 fsck.f2fs mkfs.f2fs cryptsetup
	# the board defaults (union.upper=... and the like), when the system
	# has them
	[[ ! -f /etc/unionroot.conf ]] || inst_simple /etc/unionroot.conf
	mkdir -p "$initdir/etc/unionroot"
	# shellcheck disable=SC2046 # one name a line
	printf '%s\n' $(unionroot_modules) >"$initdir/etc/unionroot/modules"

	if dracut_module_included systemd; then
		inst_simple "$moddir/unionroot.service" "$systemdsystemunitdir/unionroot.service"
		# required, not wanted: a union that cannot be built fails
		# initrd-root-fs.target, whose failure is the emergency shell
		# (a boot without union.lower= skips the unit, which is no failure)
		mkdir -p "$initdir$systemdsystemunitdir/initrd-root-fs.target.requires"
		ln_r "$systemdsystemunitdir/unionroot.service" \
			"$systemdsystemunitdir/initrd-root-fs.target.requires/unionroot.service"
		# root= beside union.lower= mounts nothing at /sysroot
		inst_simple "$moddir/sysroot-unionroot.conf" "$systemdsystemunitdir/sysroot.mount.d/unionroot.conf"
	else
		# before rootfs-block's parse-block.sh (cmdline 95), which would
		# wait for root='s device
		inst_hook cmdline 90 "$moddir/unionroot-cmdline.sh"
		inst_hook mount 99 "$moddir/unionroot-mount.sh"
	fi
}
