# SPDX-License-Identifier: MIT
SUMMARY = "Static PID 1 for an initramfs: an overlayfs union of a read-only image and a writable branch"
DESCRIPTION = "unionroot builds the root as an overlayfs union of a read-only \
image and a writable branch, formats a blank branch on first boot, keeps it \
across upgrades and resets it on request. ${PN} is the admin tool; \
${PN}-init makes it the initramfs's /init with the board's defaults."
HOMEPAGE = "https://example.org/unionroot"
LICENSE = "MIT"
LIC_FILES_CHKSUM = "file://debian/copyright;md5=9c7fe5d20959dacae819eb41e76f8cd5"

SRC_URI = "${UNIONROOT_GIT};branch=${UNIONROOT_BRANCH} \
           file://unionroot.conf"
UNIONROOT_BRANCH ??= "main"
SRCREV ??= "${AUTOREV}"
PV = "0.1+git"
S = "${WORKDIR}/git"

# The modules /init loads at every boot (each a kernel-module-* of the
# image's kernel, see unionroot-initramfs.bb); /etc/unionroot/modules.
UNIONROOT_MODULES ??= "virtio_blk squashfs ext4 overlay"

# The toolchain's own libc and kernel headers, CC as it is (no musl-gcc
# specs): LIBC=musl where TCLIBC is musl (the libc-musl override), else
# glibc. The
# program's flags are its own (-Oz, static-pie, its hardening, stripped):
# CFLAGS and LDFLAGS would change what its size budget and hardening test
# measure, so they are not passed, and the QA checks for them are skipped.
UNIONROOT_LIBC = "glibc"
UNIONROOT_LIBC:libc-musl = "musl"
EXTRA_OEMAKE = "LIBC=${UNIONROOT_LIBC} 'CC=${CC}' 'HOSTCC=${BUILD_CC}' SAN= BUILD=${B}/build"

do_compile() {
	oe_runmake ${B}/build/unionroot
}

do_install() {
	install -d ${D}${sbindir} ${D}${mandir}/man8 ${D}${mandir}/man7
	install -m 0755 ${B}/build/unionroot ${D}${sbindir}/unionroot
	install -m 0644 ${S}/doc/unionroot.8 ${D}${mandir}/man8/unionroot.8
	install -m 0644 ${S}/doc/unionroot.cmdline.7 ${D}${mandir}/man7/unionroot.cmdline.7
	# the initramfs's /init: the same binary, the board's defaults, its modules
	install -m 0755 ${B}/build/unionroot ${D}/init
	install -d ${D}${sysconfdir}/unionroot
	install -m 0644 ${WORKDIR}/unionroot.conf ${D}${sysconfdir}/unionroot.conf
	printf '%s\n' ${UNIONROOT_MODULES} >${D}${sysconfdir}/unionroot/modules
	chmod 0644 ${D}${sysconfdir}/unionroot/modules
}

PACKAGES =+ "${PN}-init"
FILES:${PN}-init = "/init ${sysconfdir}/unionroot.conf ${sysconfdir}/unionroot"
# what the first boot formats and checks the writable branch with
RDEPENDS:${PN}-init = "e2fsprogs-mke2fs e2fsprogs-e2fsck"
INSANE_SKIP:${PN} = "already-stripped ldflags"
INSANE_SKIP:${PN}-init = "already-stripped ldflags"
