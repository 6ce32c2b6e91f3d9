# SPDX-License-Identifier: MIT
# An initramfs whose /init is unionroot, in the pattern of
# core-image-minimal-initramfs: no init system, no shell; the modules
# unionroot-init's list names, with the e2fsprogs that format and check
# the writable branch. Bundle or pass it as the kernel's initramfs
# (INITRAMFS_IMAGE = "unionroot-initramfs"; doc/vendors.md).
DESCRIPTION = "Initramfs whose /init is unionroot: the root as an overlayfs union of a read-only image and a writable branch"
LICENSE = "MIT"

UNIONROOT_KERNEL_MODULES ??= "kernel-module-virtio-blk kernel-module-squashfs kernel-module-ext4 kernel-module-overlay"
PACKAGE_INSTALL = "unionroot-init ${UNIONROOT_KERNEL_MODULES}"

# Do not pollute the initramfs image with rootfs features
IMAGE_FEATURES = ""
IMAGE_LINGUAS = ""
NO_RECOMMENDATIONS = "1"

export IMAGE_BASENAME = "${MLPREFIX}unionroot-initramfs"
IMAGE_NAME_SUFFIX ?= ""
IMAGE_FSTYPES = "${INITRAMFS_FSTYPES}"

inherit core-image

IMAGE_ROOTFS_SIZE = "8192"
IMAGE_ROOTFS_EXTRA_SPACE = "0"
# no package manager's database in an initramfs
ROOTFS_BOOTSTRAP_INSTALL = ""
