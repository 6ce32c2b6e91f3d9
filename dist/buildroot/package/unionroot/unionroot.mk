################################################################################
#
# unionroot
#
################################################################################

# The source is the tree this br2-external lives in (its dist/buildroot/).
UNIONROOT_VERSION = 0.1
UNIONROOT_SITE = $(BR2_EXTERNAL_UNIONROOT_PATH)/../..
UNIONROOT_SITE_METHOD = local
UNIONROOT_LICENSE = MIT
UNIONROOT_LICENSE_FILES = debian/copyright
# modprobe on the host: board/generic/post-image.sh's tools/mkinitramfs
# resolves the modules' dependencies with it.
UNIONROOT_DEPENDENCIES = host-kmod

# The toolchain's own libc and kernel headers, TARGET_CC as it is (no
# musl-gcc specs): LIBC=musl for a musl toolchain (the Makefile sees it
# targets musl, and the size budget is musl's), LIBC=glibc for glibc and
# uClibc-ng (doc/vendors.md). The program's flags are its own
# (-Oz, static-pie, its hardening): TARGET_CFLAGS would change what the
# size budget and the hardening test measure. mkcpio, which packs the
# initramfs on the host, is built by HOSTCC without sanitizers.
UNIONROOT_MAKE_OPTS = \
	LIBC=$(if $(BR2_TOOLCHAIN_USES_MUSL),musl,glibc) \
	CC="$(TARGET_CC)" \
	HOSTCC="$(HOSTCC)" \
	SAN= \
	BUILD=$(@D)/build

define UNIONROOT_BUILD_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) -C $(@D) $(UNIONROOT_MAKE_OPTS) \
		$(@D)/build/unionroot $(@D)/build/host/mkcpio
endef

# The admin tool in the root; the post-image script packs the same
# binary as the initramfs's /init.
define UNIONROOT_INSTALL_TARGET_CMDS
	$(INSTALL) -D -m 0755 $(@D)/build/unionroot $(TARGET_DIR)/usr/sbin/unionroot
endef

$(eval $(generic-package))
