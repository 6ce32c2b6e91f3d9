#!/bin/bash
# SPDX-License-Identifier: MIT
# The Buildroot and Yocto recipes (dist/buildroot, dist/yocto), their build
# and install steps run as each system runs them, from their own text:
# - Buildroot: GNU make reads the br2-external tree's external.mk (which
#   includes package/unionroot/unionroot.mk) under a stand-in of the few
#   macros it uses (generic-package: BUILD_CMDS, then INSTALL_TARGET_CMDS,
#   with $(@D), TARGET_CC, TARGET_CFLAGS, TARGET_DIR, STAGING_DIR, HOSTCC,
#   TARGET_MAKE_ENV, INSTALL); the local source copied as Buildroot's local
#   site method copies it; then board/generic/post-image.sh, as
#   BR2_ROOTFS_POST_IMAGE_SCRIPT runs it, packs the initramfs from the
#   target's lib/modules and its mkfs.ext4 and e2fsck.
# - Yocto: the layer's layer.conf and unionroot_git.bb read by
#   tests/host/recipes-bb.py (assignments, ${VAR}, ${@...}); the source
#   cloned from the SRC_URI they give; do_compile and do_install run with
#   bitbake's CC, CFLAGS, LDFLAGS, BUILD_CC, B, S, D, WORKDIR, sbindir.
# Checked: what lands where, that the program is static and says its
# version, the license checksums, the external tree's and the defconfig's
# names. The build systems themselves are not here (nothing but Debian's
# mirror is reachable): their fetchers, QA and image assembly do not run.
# No root needed.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
scratch recipes
need_tools recipes gcc make python3 git readelf modprobe || exit 0
BR=dist/buildroot
Y=dist/yocto/meta-unionroot
KDIR=$BUILD/kernel/amd64

# static_runs NAME FILE: FILE is a static program that says its version.
static_runs() {
	if file -L "$2" | grep -Eq 'static(-pie)? linked' && "$2" --version 2>&1 | grep -q '^unionroot [0-9]'; then
		pass "$1: the installed program is static and says its version"
	else
		fail "$1: static, --version" "$(file -L "$2" 2>&1 | cut -c1-120)"
	fi
}
# source_copy DIR: the tree as a local site is copied (no .git, no build/)
source_copy() {
	mkdir -p "$1"
	tar -C "$ROOT_DIR" --exclude=./.git --exclude=./build --exclude='./build-*' -cf - . | tar -C "$1" -xf -
}

# ---- Buildroot ---------------------------------------------------------------
# The names Buildroot gives the tree: external.desc's, BR2_EXTERNAL_<name>_PATH.
name=$(sed -n 's/^name: *//p' "$BR/external.desc")
if [ "$name" = UNIONROOT ] && grep -q 'BR2_EXTERNAL_UNIONROOT_PATH' "$BR/external.mk" "$BR/Config.in"; then
	pass "buildroot: external.desc names the tree UNIONROOT, as its files call it"
else
	fail "buildroot: external.desc" "name '$name' does not match BR2_EXTERNAL_UNIONROOT_PATH in external.mk/Config.in"
fi
# shellcheck disable=SC2016 # Kconfig's $BR2_EXTERNAL_UNIONROOT_PATH, literally
missing=$(sed -n 's/^source "\$BR2_EXTERNAL_UNIONROOT_PATH\/\(.*\)"$/\1/p' "$BR/Config.in" |
	while read -r f; do [ -f "$BR/$f" ] || echo "$f"; done)
# shellcheck disable=SC2016
cfgs=$(grep -c 'source "\$BR2_EXTERNAL_UNIONROOT_PATH/' "$BR/Config.in")
if [ -z "$missing" ] && [ "$cfgs" -ge 1 ]; then
	pass "buildroot: Config.in sources the package's Config.in"
else
	fail "buildroot: Config.in sources" "missing: ${missing:-none sourced}"
fi
# every BR2_PACKAGE_UNIONROOT* of the defconfig is a symbol of the package
DEFCONFIG=$BR/configs/unionroot_qemu_x86_64_defconfig
bad=$(grep -o '^BR2_PACKAGE_UNIONROOT[A-Z_]*' "$DEFCONFIG" | while read -r s; do
	grep -q "^config ${s}\$" "$BR/package/unionroot/Config.in" || echo "$s"; done)
# shellcheck disable=SC2016 # make's $(BR2_EXTERNAL_UNIONROOT_PATH), literally
post=$(sed -n 's/^BR2_ROOTFS_POST_IMAGE_SCRIPT="\$(BR2_EXTERNAL_UNIONROOT_PATH)\/\(.*\)"$/\1/p' "$DEFCONFIG")
if [ -z "$bad" ] && [ -n "$post" ] && [ -x "$BR/$post" ] && grep -q '^BR2_PACKAGE_UNIONROOT=y' "$DEFCONFIG"; then
	pass "buildroot: the defconfig's symbols and post-image script exist"
else
	fail "buildroot: the defconfig" "unknown symbols: ${bad:-none}; post-image '${post:-unset}'"
fi

BRO=$T/br # Buildroot's output directory
mkdir -p "$BRO/target" "$BRO/staging" "$BRO/host/bin" "$BRO/images" "$BRO/build"
cat >"$T/buildroot.mk" <<'EOF'
# The part of Buildroot's package infrastructure the recipe uses.
BR2_EXTERNAL_UNIONROOT_PATH := $(SRCDIR)/dist/buildroot
INSTALL := install
TARGET_CC := gcc
TARGET_CFLAGS := -O2 -pipe -D_LARGEFILE_SOURCE -D_FILE_OFFSET_BITS=64
HOSTCC := gcc
TARGET_MAKE_ENV := PATH=$(HOST_DIR)/bin:$(PATH)
UPPERCASE = $(shell echo $(1) | tr a-z- A-Z_)
# generic-package: the package named after the directory of the .mk that
# calls it; its source under BUILD_DIR/NAME-VERSION; the stamps' $(@D).
define generic-package
$(eval PKG := $(call UPPERCASE,$(notdir $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST)))))))
$(eval $(PKG)_DIR := $(BUILD_DIR)/$(shell echo $(PKG) | tr A-Z_ a-z-)-$($(PKG)_VERSION))
$(eval PACKAGES += $(PKG))
$($(PKG)_DIR)/.stamp_built:
	$$($(PKG)_BUILD_CMDS)
	touch $$@
$($(PKG)_DIR)/.stamp_target_installed: $($(PKG)_DIR)/.stamp_built
	$$($(PKG)_INSTALL_TARGET_CMDS)
	touch $$@
endef
include $(BR2_EXTERNAL_UNIONROOT_PATH)/external.mk
all: $(UNIONROOT_DIR)/.stamp_target_installed
show:
	@echo 'PACKAGES=$(PACKAGES)'
	@echo 'SITE=$(realpath $(UNIONROOT_SITE))'
	@echo 'METHOD=$(UNIONROOT_SITE_METHOD)'
	@echo 'DIR=$(UNIONROOT_DIR)'
	@echo 'DEPS=$(UNIONROOT_DEPENDENCIES)'
	@echo 'LICENSE_FILES=$(UNIONROOT_LICENSE_FILES)'
EOF
MKV=(SRCDIR="$ROOT_DIR" BUILD_DIR="$BRO/build" TARGET_DIR="$BRO/target" STAGING_DIR="$BRO/staging" HOST_DIR="$BRO/host")
if ! make --no-print-directory -f "$T/buildroot.mk" "${MKV[@]}" show >"$T/br.vars" 2>"$T/br.err"; then
	fail "buildroot: make reads external.mk and unionroot.mk" "$(head -n 2 "$T/br.err")"
	exit 0
fi
v() { sed -n "s/^$1=//p" "$T/br.vars"; }
if [ "$(v PACKAGES | xargs)" = UNIONROOT ]; then
	pass "buildroot: external.mk brings in the unionroot package"
else
	fail "buildroot: external.mk" "packages '$(v PACKAGES)'"
fi
if [ "$(v SITE)" = "$ROOT_DIR" ] && [ "$(v METHOD)" = local ]; then
	pass "buildroot: the site is this source tree, copied as a local site"
else
	fail "buildroot: the site" "'$(v SITE)' by '$(v METHOD)', not $ROOT_DIR by local"
fi
if [[ " $(v DEPS) " == *" host-kmod "* ]]; then
	pass "buildroot: host-kmod is a dependency (the post-image's modprobe)"
else
	fail "buildroot: dependencies" "'$(v DEPS)' lacks host-kmod"
fi
# the hash file's lines for the license files match them
hashed=0
for f in $(v LICENSE_FILES); do
	want=$(awk -v f="$f" '$1 == "sha256" && $3 == f { print $2 }' "$BR/package/unionroot/unionroot.hash")
	if [ -n "$want" ] && [ "$want" = "$(sha256sum <"$f" | cut -d' ' -f1)" ]; then
		hashed=$((hashed + 1))
	else
		fail "buildroot: unionroot.hash" "no matching sha256 for $f"
	fi
done
[ "$hashed" -ge 1 ] && pass "buildroot: unionroot.hash holds the license files' sha256 ($hashed)"

source_copy "$(v DIR)"
if make --no-print-directory -f "$T/buildroot.mk" "${MKV[@]}" all >"$T/br.log" 2>&1; then
	pass "buildroot: BUILD_CMDS and INSTALL_TARGET_CMDS run"
else
	fail "buildroot: BUILD_CMDS, INSTALL_TARGET_CMDS" "$(tail -n 3 "$T/br.log" | tr '\n' '|')"
fi
B1=$BRO/target/usr/sbin/unionroot
if [ -x "$B1" ] && [ "$(find "$BRO/target" -type f | wc -l)" = 1 ]; then
	pass "buildroot: the target gets usr/sbin/unionroot, nothing else"
	static_runs buildroot "$B1"
else
	fail "buildroot: the target's files" "$(cd "$BRO/target" && find . -type f | head -n 5 | tr '\n' ' ')"
fi
if grep -q -- "-static" "$(v DIR)/build/unionroot.libc" 2>/dev/null && [ -x "$(v DIR)/build/host/mkcpio" ]; then
	pass "buildroot: the build is \$(@D)'s, with the host's mkcpio"
else
	fail "buildroot: \$(@D)" "no build/unionroot.libc or build/host/mkcpio under $(v DIR)"
fi

# The post-image script on a target of a kernel's modules and e2fsprogs.
if [ -f "$KDIR/version" ]; then
	VER=$(cat "$KDIR/version")
	mkdir -p "$BRO/target/lib/modules"
	cp -as "$(cd "$KDIR/lib/modules/$VER" && pwd)" "$BRO/target/lib/modules/$VER"
	# e2fsprogs as Buildroot's target holds it: its programs in usr/sbin,
	# the libraries in lib (lib64 a link to it), no ld.so.conf (the host's
	# files, of the same architecture)
	tools/sysroot-libs / /sbin/mke2fs /sbin/e2fsck | while read -r p f; do
		case $p in
		/sbin/*) p=/usr$p ;;
		*) p=/lib/${p##*/} ;;
		esac
		install -D "$f" "$BRO/target$p"
	done
	ln -s mke2fs "$BRO/target/usr/sbin/mkfs.ext4"
	ln -s usr/sbin "$BRO/target/sbin"
	ln -s lib "$BRO/target/lib64"
	cp "$BUILD/$BOARD/vmlinuz" "$BRO/images/bzImage"
	grep '^BR2_' "$DEFCONFIG" >"$BRO/.config"
	if BUILD_DIR="$BRO/build" TARGET_DIR="$BRO/target" HOST_DIR="$BRO/host" BR2_CONFIG="$BRO/.config" \
		TMPDIR=$T "$BR/$post" "$BRO/images" >"$T/post.log" 2>&1; then
		pass "buildroot: the post-image script runs"
	else
		fail "buildroot: the post-image script" "$(tail -n 2 "$T/post.log" | tr '\n' '|')"
	fi
	mkdir -p "$T/br.x"
	(cd "$T/br.x" && "$ROOT_DIR/tools/initramfs-cat" "$BRO/images/unionroot.cpio.gz" 2>/dev/null | cpio -id --quiet)
	if cmp -s "$T/br.x/init" "$B1" && cmp -s "$T/br.x/sbin/mkfs.ext4" "$BRO/target/usr/sbin/mke2fs" &&
		[ -f "$T/br.x/sbin/e2fsck" ] && cmp -s "$T/br.x/etc/unionroot.conf" "$BR/board/generic/board.conf" &&
		[ -n "$(find "$T/br.x/lib/modules/$VER" -name 'overlay.ko*')" ]; then
		pass "buildroot: images/unionroot.cpio.gz holds the target's unionroot, tools, board.conf and modules"
	else
		fail "buildroot: the initramfs" "$(cd "$T/br.x" 2>/dev/null && find init sbin etc -maxdepth 1 2>/dev/null | tr '\n' ' ')"
	fi
else
	skip "buildroot: post-image" "no kernel in $KDIR (make kernel)"
fi

# ---- Yocto -------------------------------------------------------------------
YW=$T/yocto/work
bb() { # NAME...: the recipe's variables and functions as bitbake sees them
	python3 tests/host/recipes-bb.py PN=unionroot CC="gcc -m64" CFLAGS="-O2 -pipe" \
		LDFLAGS="-Wl,-O1 -Wl,--hash-style=gnu" BUILD_CC=gcc WORKDIR="$YW" B="$YW/git" \
		D="$YW/image" bindir=/usr/bin sbindir=/usr/sbin mandir=/usr/share/man sysconfdir=/etc \
		MAKE=make -- "$Y/conf/layer.conf" "$Y/recipes-core/unionroot/unionroot_git.bb" -- "$@"
}
if ! bb SRC_URI LIC_FILES_CHKSUM S B EXTRA_OEMAKE FILES:unionroot-init 'do_compile()' 'do_install()' >"$T/bb.sh" 2>"$T/bb.err"; then
	fail "yocto: the recipe reads" "$(tail -n 1 "$T/bb.err")"
	exit 0
fi
FILES_unionroot_init= # set by bb.sh
# shellcheck source=/dev/null
. "$T/bb.sh"
git_uri=${SRC_URI%% *}
repo=${git_uri#git://}
repo=${repo%%;*}
branch=$(sed -n 's/.*;branch=\([^; ]*\).*/\1/p' <<<"$git_uri")
if [ "$(cd "$repo" 2>/dev/null && pwd -P)" = "$(pwd -P)" ] && [[ $git_uri == *";protocol=file"* ]]; then
	pass "yocto: SRC_URI is the git repository the layer lives in"
else
	fail "yocto: SRC_URI" "'$git_uri' is not $ROOT_DIR by protocol=file"
fi
# bitbake's git fetcher: the branch cloned into S
mkdir -p "$YW"
if git clone -q --shared -b "$branch" "$repo" "$S" 2>"$T/clone.err"; then
	pass "yocto: the branch SRC_URI names ($branch) clones"
else
	fail "yocto: clone $branch" "$(head -n 1 "$T/clone.err")"
	exit 0
fi
for u in ${SRC_URI#* }; do
	[[ $u == file://* ]] && cp "$Y/recipes-core/unionroot/files/${u#file://}" "$YW/"
done
lic=${LIC_FILES_CHKSUM#file://}
if [ "$(md5sum <"$S/${lic%%;*}" | cut -d' ' -f1)" = "${lic#*;md5=}" ]; then
	pass "yocto: LIC_FILES_CHKSUM matches ${lic%%;*}"
else
	fail "yocto: LIC_FILES_CHKSUM" "${lic%%;*}'s md5 differs"
fi

oe_runmake() { eval "make $EXTRA_OEMAKE \"\$@\"" || { echo "oe_runmake failed" >&2; return 1; }; }
if (cd "$B" && set -e && do_compile) >"$T/yocto.log" 2>&1 && (cd "$B" && set -e && do_install) >>"$T/yocto.log" 2>&1; then
	pass "yocto: do_compile and do_install run"
else
	fail "yocto: do_compile, do_install" "$(tail -n 3 "$T/yocto.log" | tr '\n' '|')"
fi
D=$YW/image
if [ -x "$D/usr/sbin/unionroot" ] && cmp -s "$D/init" "$D/usr/sbin/unionroot" &&
	[ -f "$D/usr/share/man/man8/unionroot.8" ] && [ -f "$D/usr/share/man/man7/unionroot.cmdline.7" ]; then
	pass "yocto: D gets sbindir/unionroot, /init, the man pages"
	static_runs yocto "$D/usr/sbin/unionroot"
else
	fail "yocto: D's files" "$(cd "$D" 2>/dev/null && find . -type f | tr '\n' ' ')"
fi
if cmp -s "$D/etc/unionroot.conf" "$Y/recipes-core/unionroot/files/unionroot.conf" &&
	[ "$(xargs <"$D/etc/unionroot/modules" 2>/dev/null)" = "virtio_blk squashfs ext4 overlay" ]; then
	pass "yocto: /etc/unionroot.conf and the modules list, one a line"
else
	fail "yocto: the defaults" "$(tr '\n' ' ' <"$D/etc/unionroot/modules" 2>/dev/null)"
fi
# every file D holds is in a package: FILES of unionroot-init, or the main one's
left=$(cd "$D" && find . -type f | sed 's|^\.||' | while read -r f; do
	case $f in /usr/sbin/* | /usr/share/man/*) continue ;; esac
	hit=0
	for p in $FILES_unionroot_init; do [[ $f == "$p" || $f == "$p"/* ]] && hit=1; done
	[ "$hit" = 1 ] || echo "$f"
done)
if [ -z "$left" ]; then
	pass "yocto: FILES of unionroot-init hold /init and its defaults"
else
	fail "yocto: FILES" "in no package: $left"
fi
if grep -q '^inherit core-image$' "$Y/recipes-core/images/unionroot-initramfs.bb" &&
	grep -q '^PACKAGE_INSTALL = "unionroot-init ' "$Y/recipes-core/images/unionroot-initramfs.bb"; then
	pass "yocto: the initramfs image installs unionroot-init"
else
	fail "yocto: the initramfs image" "no core-image with unionroot-init"
fi
if grep -Eq '^part .*--part-name rootfs( |$)' "$Y/wic/unionroot.wks.in" &&
	grep -Eq '^part --part-name rootfs_data ' "$Y/wic/unionroot.wks.in" &&
	! grep -E '^part --part-name rootfs_data ' "$Y/wic/unionroot.wks.in" | grep -q -- '--fstype' &&
	grep -q '^union.upper=PARTLABEL=rootfs_data' "$Y/recipes-core/unionroot/files/unionroot.conf"; then
	pass "yocto: the wic layout's rootfs and blank rootfs_data are what unionroot.conf names"
else
	fail "yocto: the wic layout" "rootfs/rootfs_data partitions and union.lower/upper disagree"
fi
