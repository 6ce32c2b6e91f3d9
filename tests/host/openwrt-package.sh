#!/bin/bash
# SPDX-License-Identifier: MIT
# dist/openwrt/Makefile, the OpenWrt feed package, run the way OpenWrt's
# build system runs a package: its Build/Compile in PKG_BUILD_DIR (the
# tree, as the git source unpacks) with the target's compiler, then
# Package/unionroot/install into the package's root. OpenWrt's buildroot
# cannot be fetched here: rules.mk and include/package.mk are stand-ins
# that give the variables and the BuildPackage call the package uses, and
# the target compiler is the host's gcc with the project's musl specs, a
# musl compiler as OpenWrt's toolchain is one (no root needed).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
scratch openwrt-package
SPECS=$ROOT_DIR/$BUILD/musl-static-pie.specs
UAPI=$ROOT_DIR/$BUILD/uapi
if [ ! -f "$SPECS" ] || [ ! -d "$UAPI" ]; then
	skip "OpenWrt package" "$SPECS or $UAPI missing (make)"
	exit 0
fi
TOP=$T/openwrt
mkdir -p "$TOP/include" "$TOP/build_dir" "$TOP/ipkg"
cat >"$TOP/rules.mk" <<RULES
INCLUDE_DIR:=\$(TOPDIR)/include
BUILD_DIR:=\$(TOPDIR)/build_dir
TARGET_CC:=gcc -specs $SPECS -isystem $UAPI
REAL_GNU_TARGET_NAME:=x86_64-openwrt-linux-musl
INSTALL_DIR:=install -d -m0755
INSTALL_BIN:=install -m0755
INSTALL_DATA:=install -m0644
LN:=ln -sf
RULES
cat >"$TOP/include/package.mk" <<'PKG'
PKG_BUILD_DIR:=$(BUILD_DIR)/$(PKG_NAME)-$(PKG_VERSION)
define BuildPackage
.PHONY: compile install
compile:
	$$(Build/Compile)
install: compile
	$$(call Package/$(1)/install,$$(IPKG_DIR))
endef
PKG
# the tree as OpenWrt unpacks its git source: the tracked files
mkdir -p "$TOP/build_dir/unionroot-0.1"
git ls-files -z | tar --null -T - -cf - | tar -C "$TOP/build_dir/unionroot-0.1" -xf -
if make -C dist/openwrt TOPDIR="$TOP" IPKG_DIR="$TOP/ipkg" install >"$T/make.log" 2>&1; then
	pass "OpenWrt package: Build/Compile and Package/unionroot/install run"
else
	fail "OpenWrt package: Build/Compile and Package/unionroot/install run" "$(tail -5 "$T/make.log")"
fi
# the package's own build directory's specs and headers are Debian's: a
# toolchain of OpenWrt's brings its own
if grep -q -- "-specs $SPECS" "$T/make.log" &&
	! grep -qE -- '-specs build/musl-static-pie.specs|-isystem build/uapi' "$T/make.log"; then
	pass "OpenWrt package: the toolchain's compiler as it is, with no specs or headers of Debian's"
else
	fail "OpenWrt package: the toolchain's compiler as it is, with no specs or headers of Debian's" "see $T/make.log"
fi
I=$TOP/ipkg
if [ "$(stat -c %a "$I/sbin/unionroot" 2>/dev/null)" = 755 ] &&
	file "$I/sbin/unionroot" | grep -qE 'static-pie|statically linked' &&
	"$I/sbin/unionroot" --version 2>&1 | grep -q '^unionroot [0-9]'; then
	pass "OpenWrt package: /sbin/unionroot, static, runs"
else
	fail "OpenWrt package: /sbin/unionroot, static, runs" "$(file "$I/sbin/unionroot" 2>&1)"
fi
ok=1
for f in 644:lib/preinit/80_mount_root_unionroot 644:lib/unionroot/openwrt.sh 755:usr/libexec/unionroot-factoryreset; do
	[ "$(stat -c %a "$I/${f#*:}" 2>/dev/null)" = "${f%%:*}" ] && cmp -s "$I/${f#*:}" "dist/openwrt/files/${f#*:}" || ok=0
done
for c in firstboot jffs2reset factoryreset; do
	[ "$(readlink "$I/usr/sbin/$c")" = ../libexec/unionroot-factoryreset ] && [ -x "$I/usr/sbin/$c" ] || ok=0
done
if [ $ok = 1 ]; then
	pass "OpenWrt package: the preinit shim and firstboot, jffs2reset, factoryreset land where OpenWrt looks"
else
	fail "OpenWrt package: the preinit shim and firstboot, jffs2reset, factoryreset land where OpenWrt looks" \
		"$(cd "$I" && find . -printf '%m %p %l\n' | sort)"
fi
