#!/bin/bash
# SPDX-License-Identifier: MIT
# BR2_ROOTFS_POST_IMAGE_SCRIPT: the initramfs, BINARIES_DIR/unionroot.cpio.gz,
# from what the build made: unionroot (the package's build, its
# /usr/sbin/unionroot as /init), the kernel's modules in TARGET_DIR/lib/modules
# and the target's tools (BR2_PACKAGE_UNIONROOT_TOOLS, from TARGET_DIR with
# their libraries) by the source tree's tools/mkinitramfs: no Debian package,
# no host binary in it. The board's defaults and modules list are this
# directory's (board.conf, modules), or those of the directory
# BR2_ROOTFS_POST_SCRIPT_ARGS names.
# Buildroot runs it as: post-image.sh BINARIES_DIR [ARGS], with BUILD_DIR,
# TARGET_DIR, HOST_DIR and BR2_CONFIG in the environment.
set -euo pipefail
die() { echo "unionroot post-image: $*" >&2; exit 1; }
BIN=${1:?BINARIES_DIR}
BOARD_DIR=${2:-$(cd "$(dirname "$0")" && pwd)}
: "${BUILD_DIR:?} ${TARGET_DIR:?} ${HOST_DIR:?} ${BR2_CONFIG:?}"
# modprobe (host-kmod) and the host's readelf, which reads every architecture
export PATH=$HOST_DIR/bin:$HOST_DIR/sbin:$PATH

SRC=$(find "$BUILD_DIR" -mindepth 1 -maxdepth 1 -type d -name 'unionroot-*' | sort | tail -n 1)
[ -n "$SRC" ] || die "no unionroot build in $BUILD_DIR (BR2_PACKAGE_UNIONROOT=y)"
[ -x "$SRC/build/host/mkcpio" ] ||
	die "no unionroot build in $BUILD_DIR (BR2_PACKAGE_UNIONROOT=y)"
TOOLS=$(sed -n 's/^BR2_PACKAGE_UNIONROOT_TOOLS="\(.*\)"$/\1/p' "$BR2_CONFIG")
KERNEL=
for k in bzImage zImage Image vmlinux uImage; do
	[ -f "$BIN/$k" ] && { KERNEL=$BIN/$k; break; }
done
[ -n "$KERNEL" ] || die "no kernel image in $BIN (BR2_LINUX_KERNEL=y)"
[ -d "$TARGET_DIR/lib/modules" ] || die "no $TARGET_DIR/lib/modules: the kernel builds no modules (BR2_LINUX_KERNEL_INSTALL_TARGET, or a kernel with CONFIG_MODULES)"

"$SRC/tools/mkinitramfs" "$BOARD_DIR" "$SRC/build" \
	--unionroot "$TARGET_DIR/usr/sbin/unionroot" \
	--kernel "$KERNEL" --modules "$TARGET_DIR/lib/modules" \
	--sysroot "$TARGET_DIR" --tools "$TOOLS"
install -m 0644 "$SRC/build/${BOARD_DIR##*/}/initramfs.cpio.gz" "$BIN/unionroot.cpio.gz"
echo "unionroot post-image: $BIN/unionroot.cpio.gz"
