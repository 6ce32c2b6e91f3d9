# SPDX-License-Identifier: MIT
# unionroot: one plain GNU Makefile. Out-of-tree build in build/, V=1 for full commands.

BOARD   ?= qemu-x86_64
BUILD   ?= build
V       ?= 0
Q       := $(if $(filter 1,$(V)),,@)

MUSLARCH ?= $(shell uname -m)-linux-musl
CROSS_COMPILE ?=
# The target program's libc and toolchain: LIBC=musl (the default, what
# ships) or glibc; CC= names the compiler (the musl build wraps Debian's
# gcc in musl's specs; a compiler that targets musl itself is taken as it
# is), SYSROOT= its sysroot (--sysroot). A build directory keeps
# the libc it was built with (BUILD/unionroot.libc), so a later make there,
# a test's among them, does not mix in the other one's objects.
LIBC    ?= $(or $(firstword $(shell cat $(BUILD)/unionroot.libc 2>/dev/null)),musl)
SYSROOT ?=
ifeq ($(origin CC),default)
CC      := $(CROSS_COMPILE)gcc
endif
MUSLCC  ?= $(CC) -specs $(BUILD)/musl-static-pie.specs
UAPI_ASM ?= /usr/include/$(shell $(HOSTCC) -print-multiarch)/asm
HOSTCC  ?= gcc

WARN    := -Wall -Wextra -Werror -Wshadow -Wvla -Wformat=2 -Wimplicit-fallthrough \
           -Wmissing-prototypes -Wstrict-prototypes
# unionroot/ is one folder per role (lib, probe, conf, kmod, media, overlay,
# branch, plan, copyup, diff, cmd); an include names a header with its folder
# ("lib/sys.h"), so the include path is unionroot/ alone and a bare name
# resolves nowhere but beside the file that includes it.
INCS    := -Iunionroot
BASE    := -std=c11 -D_GNU_SOURCE $(WARN) $(INCS) -fstack-protector-strong

# The shipped binary: musl, static, small. No stdio: PID 1 logs and the
# admin commands print (unionroot/cmd/out.c) through unionroot/lib/fmt.c,
# never musl's vfprintf (10 KB, half of it floating point) nor its FILE
# machinery (3 KB). The kernel's UAPI headers come from
# a directory that holds only linux/, asm/, asm-generic/, mtd/ so that no glibc
# header can sneak into the musl build. -flto with one partition sees the
# whole program at once (inlines and drops across files: 4 KB); -Oz picks the
# shorter encoding where -Os would pick the faster (4 KB more; PID 1's loops
# wait on the disk, not the CPU). -mgeneral-regs-only: the project computes
# in integers only, so a variadic function (the log, the formatters) need not
# save the vector registers on entry (0.5 KB). The hardening stays, though it
# costs: the stack protector 6.4 KB, static-pie 8.5 KB (loaded bytes), RELRO's
# page alignment up to 4 KB of padding (tests/host/size.sh); musl's
# static-pie start never seals RELRO, so main() does (unionroot/lib/relro.c,
# tests/host/hardening.sh).
# No -D_FORTIFY_SOURCE: musl's headers have no checked variants (no
# __memcpy_chk), so it would change nothing; bounds are sbuf.c's and fmt.c's.
# -mstack-protector-guard=global (x86-64; arm64's default): the canary is
# read from musl's __stack_chk_guard, which __init_ssp fills from AT_RANDOM
# with the thread's, not from %fs:0x28: 4 bytes shorter at each of the 378
# checks (0.7 KB). Both live in .bss of a static binary.
# -fno-optimize-sibling-calls: under the stack protector a tail call repeats
# the canary check and the epilogue before its jump, where a call shares the
# function's one (398 canary checks against 378: 0.5 KB); a frame more on
# the stack is nothing to PID 1.
UAPI    := $(BUILD)/uapi
# A compiler whose own target is musl (a vendor's mipsel-openwrt-linux-musl-gcc,
# Buildroot's or Yocto's musl toolchain; -dumpmachine ends in -musl*) is
# taken as it is: its own headers, kernel headers and start files, no
# Debian specs; static-pie where it links one, else static.
CC_MUSL := $(if $(filter-out default,$(origin CC)),$(filter %-musl %-musleabi %-musleabihf %-muslsf %-muslhf,$(shell $(CC) -dumpmachine 2>/dev/null)))
ifeq ($(LIBC)$(if $(CC_MUSL),native),muslnative)
TCC     := $(CC)
TARCH   := $(CC_MUSL)
TDEPS   :=
TLIBC   :=
TSTACK  := $(if $(filter x86_64-%,$(CC_MUSL)),-mstack-protector-guard=global)
TLINK   := $(shell echo 'int main(void) { return 0; }' | $(CC) $(if $(SYSROOT),--sysroot=$(SYSROOT)) \
             -x c - -static-pie -o /dev/null >/dev/null 2>&1 && echo -static-pie || echo -static)
else ifeq ($(LIBC),musl)
TCC     := $(MUSLCC)
TARCH   := $(MUSLARCH)
TDEPS    = $(UAPI)/.stamp $(BUILD)/musl-static-pie.specs
TLIBC   := -isystem $(UAPI)
TSTACK  := $(if $(filter x86_64-%,$(MUSLARCH)),-mstack-protector-guard=global)
TLINK   := -static-pie
else ifeq ($(LIBC),glibc)
# glibc: its own kernel headers (the toolchain's), the canary where glibc
# keeps it (the thread's, %fs:0x28), its checked memcpy and the like
# (_FORTIFY_SOURCE), 64-bit off_t and time_t on a 32-bit target too (as
# musl has them; no-ops on 64-bit), and static-pie where the toolchain has glibc's
# rcrt1.o (Debian's amd64 and arm64; not its s390x cross libc), else static.
TCC     := $(CC)
TARCH   := $(shell $(CC) -dumpmachine)
TDEPS   :=
TLIBC   := -D_FORTIFY_SOURCE=2 -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64
TSTACK  :=
TLINK   := $(shell echo 'int main(void) { return 0; }' | $(CC) $(if $(SYSROOT),--sysroot=$(SYSROOT)) \
             -x c - -static-pie -o /dev/null >/dev/null 2>&1 && echo -static-pie || echo -static)
else
$(error LIBC=$(LIBC): musl or glibc)
endif
TCC     += $(if $(SYSROOT),--sysroot=$(SYSROOT))
TCFLAGS := $(BASE) -Oz -flto -flto-partition=one -ffunction-sections -fdata-sections \
           -fno-asynchronous-unwind-tables -fno-unwind-tables -fno-optimize-sibling-calls \
           $(TLIBC) -fPIE \
           $(if $(filter x86_64-% aarch64-%,$(TARCH)),-mgeneral-regs-only) \
           $(TSTACK)
# PAGE=: the target kernel's page size, where the toolchain's default
# alignment is larger (MIPS aligns segments to 64 KiB, for kernels of any
# page size; arm64 too): the file then pads to that page, not to 64 KiB.
# The mipsel and arm64 boards' kernels have 4 KiB pages; a kernel of 16 KiB
# pages needs PAGE=16384.
PAGE_LD := -Wl,-z,max-page-size=$(PAGE) -Wl,-z,common-page-size=$(PAGE)
TLDFLAGS:= $(TLINK) -Wl,--gc-sections -Wl,-z,noexecstack -Wl,-z,relro -Wl,-z,now \
           -Wl,-z,noseparate-code -Wl,--build-id=none -s \
           $(if $(PAGE),$(PAGE_LD))

# Host builds (unit tests, fuzz replay, build tools): glibc, sanitizers.
SAN     ?= -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
HCFLAGS := $(BASE) -O1 -g $(SAN) -DUNIONROOT_TEST
HLDFLAGS:= $(SAN)

# COPYUP=0 leaves the copy-up backend out (boards whose writable branch is
# always an overlay upper); the three *_none.c files answer for it. The plan knows
# (UNIONROOT_NO_COPYUP): a branch that needs copy-up falls to union.onfail.
COPYUP   ?= 1
COPYUP_SRC := $(addprefix unionroot/copyup/,copyup.c copyup_land.c copyup_gone.c copyup_note.c copyup_apply.c copyup_rec.c \
              manifest.c manifest_write.c) unionroot/diff/copyup_diff.c unionroot/cmd/cmd_copyup.c
NOCOPYUP_SRC := unionroot/copyup/copyup_none.c unionroot/diff/copyup_diff_none.c unionroot/cmd/cmd_copyup_none.c
# VERITY=0 leaves dm-verity out (boards that boot unverified images): a
# layer union.verity= names is refused as a failed verity setup is, and the
# plan says so (UNIONROOT_NO_VERITY). union.verity='s parser stays, for the
# plan names the layers. 4.3 KB of loaded bytes (doc/measurements.md, "Size").
# media/dm.c stays: a LUKS branch's device is closed with it.
VERITY   ?= 1
VERITY_SRC := init/verity.c unionroot/media/verity_sb.c unionroot/media/verity_table.c
NOVERITY_SRC := init/verity_none.c
# FLASH=0 leaves the raw-flash stack out (boards on block devices only): an
# mtd: or ubi: SPEC is never found, so a read-only layer on it stops the
# boot and a writable branch on it takes union.onfail; union.ubi= is
# ignored (UNIONROOT_NO_FLASH). 7.1 KB of loaded bytes.
FLASH    ?= 1
FLASH_SRC := init/flash.c unionroot/media/mtd.c unionroot/media/ubi.c unionroot/media/ubiblock.c
NOFLASH_SRC := init/flash_none.c
# PEERS=0 leaves out other live systems' parameters (boot=live, root=live:,
# ...): they are then unknown words, as on any kernel command line, and
# union.compat= says it acts on nothing. 3.3 KB of loaded bytes.
PEERS    ?= 1
NOPEERS_SRC := unionroot/conf/peers_none.c
# NET=0 leaves the network medium out (nbd:, http:// and nfs: layers: the
# NIC, DHCP or ip=, the NBD handshake, the fetch to RAM, the NFS mount;
# init/net*.c): a layer on the network stops the boot, and the plan says
# so (UNIONROOT_NO_NET). unionroot/net/ stays in the library for the unit
# tests and the fuzzers; --gc-sections and LTO leave out what no step calls.
NET      ?= 1
NET_SRC  := init/net.c init/net_dhcp.c init/net_nbd.c init/net_http.c init/net_nfs.c
NONET_SRC := init/net_none.c
LIB_SRC  := $(filter-out $(NOCOPYUP_SRC) $(NOPEERS_SRC),$(sort $(wildcard unionroot/*/*.c)))
INIT_SRC := $(filter-out $(NOVERITY_SRC) $(NOFLASH_SRC) $(NONET_SRC),$(sort $(wildcard init/*.c)))
T_SRC    := $(LIB_SRC) $(INIT_SRC)
ifeq ($(COPYUP),0)
T_SRC    := $(filter-out $(COPYUP_SRC),$(T_SRC)) $(NOCOPYUP_SRC)
TCFLAGS  += -DUNIONROOT_NO_COPYUP
endif
ifeq ($(VERITY),0)
T_SRC    := $(filter-out $(VERITY_SRC),$(T_SRC)) $(NOVERITY_SRC)
TCFLAGS  += -DUNIONROOT_NO_VERITY
endif
ifeq ($(PEERS),0)
T_SRC    := $(filter-out unionroot/conf/peers.c,$(T_SRC)) $(NOPEERS_SRC)
endif
ifeq ($(FLASH),0)
T_SRC    := $(filter-out $(FLASH_SRC),$(T_SRC)) $(NOFLASH_SRC)
TCFLAGS  += -DUNIONROOT_NO_FLASH
endif
ifeq ($(NET),0)
T_SRC    := $(filter-out $(NET_SRC),$(T_SRC)) $(NONET_SRC)
TCFLAGS  += -DUNIONROOT_NO_NET
endif
# tests/unit/init_*.c test init/ files against fake_sys.c in unit-init
INIT_TEST_SRC := tests/unit/fake_sys.c $(sort $(wildcard tests/unit/init_*.c))
UNIT_SRC := $(filter-out $(INIT_TEST_SRC),$(sort $(wildcard tests/unit/*.c)))
TOOL_SRC := $(filter-out tools/mkcpio.c,$(sort $(wildcard tools/*.c)))
HDRS     := $(wildcard unionroot/*/*.h init/*.h tests/unit/*.h tools/*.h)

T_OBJ := $(patsubst %.c,$(BUILD)/target/%.o,$(T_SRC))
H_LIB := $(patsubst %.c,$(BUILD)/host/%.o,$(LIB_SRC))
# init/ files whose work the unit tests run for real (processes, no root)
UNIT_INIT := init/tool.c init/tool_place.c init/watchdog.c
H_UNIT:= $(patsubst %.c,$(BUILD)/host/%.o,$(UNIT_SRC) $(TOOL_SRC) $(UNIT_INIT))

.PHONY: all deps kernel kernel-builtin initramfs images iso demo check test unit lint bench bench-reset clean install install-initramfs-tools install-dracut deb live-build fuzz soak fleet bigendian mipsel32
all: $(BUILD)/unionroot $(BUILD)/unionroot-test $(BUILD)/host/mkcpio $(BUILD)/host/unionroot-san

deps:
	$(Q)tools/install-deps

$(UAPI)/.stamp:
	$(Q)mkdir -p $(UAPI)
	$(Q)for d in linux asm-generic mtd; do ln -sfn /usr/include/$$d $(UAPI)/$$d; done
	$(Q)ln -sfn $(UAPI_ASM) $(UAPI)/asm
	$(Q)touch $@

# Debian's musl-gcc.specs links static-pie binaries with Scrt1.o and an
# interpreter (they would need ld-musl in the initramfs): teach it rcrt1.o.
$(BUILD)/musl-static-pie.specs: /usr/lib/$(MUSLARCH)/musl-gcc.specs
	$(Q)mkdir -p $(BUILD)
	$(Q)sed -e 's|%{!shared: \(/usr/lib/[^ ]*/\)Scrt1.o}|%{static-pie: \1rcrt1.o} %{!static-pie:%{!shared: \1Scrt1.o}}|' \
	        -e 's|^-dynamic-linker \([^ ]*\) |%{!static-pie:-dynamic-linker \1} %{static-pie:-static -pie --no-dynamic-linker -z text} |' $< >$@

$(BUILD)/target/%.o: %.c $(HDRS) $(TDEPS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(TCC) $(TCFLAGS) -c $< -o $@

# The link map (unionroot.map) names every libc member linked: the size
# test reads it (no vfprintf, no malloc). unionroot.libc says which libc
# and link (musl -static-pie): the size and hardening tests read it.
$(BUILD)/unionroot: $(T_OBJ)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(TCC) $(TCFLAGS) $(TLDFLAGS) -Wl,-Map=$@.map $^ -o $@
	$(Q)echo "$(LIBC) $(TLINK)" >$@.libc
	$(Q)size=$$(stat -c %s $@); echo "  SIZE    $@ $$size bytes ($(LIBC) $(TLINK))"

# The test build: the same binary plus crash points (union.test.crashafter)
# and the test-reset command; only these files differ. Never shipped: it goes
# into initramfs-test.cpio.gz only.
TEST_ONLY := unionroot/branch/crashpoint.c unionroot/cmd/cli.c unionroot/cmd/cmd_test_reset.c
T_TEST_OBJ := $(filter-out $(patsubst %.c,$(BUILD)/target/%.o,$(TEST_ONLY)),$(T_OBJ)) \
              $(patsubst %.c,$(BUILD)/target-test/%.o,$(TEST_ONLY))

$(BUILD)/target-test/%.o: %.c $(HDRS) $(TDEPS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $< (test build)")
	$(Q)$(TCC) $(TCFLAGS) -DUNIONROOT_CRASHPOINTS -c $< -o $@

$(BUILD)/unionroot-test: $(T_TEST_OBJ)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(TCC) $(TCFLAGS) $(TLDFLAGS) $^ -o $@

# A board of another architecture names its binary in build.conf
# (UNIONROOT=aarch64/unionroot, mipsel/unionroot): a sub-make builds it with
# Debian's cross compiler, musl for that architecture and the cross UAPI
# headers (mipsel: its test build too, for the power cuts of the reset story).
BOARD_BIN := $(shell sed -n 's/^UNIONROOT=\([^ \#]*\).*/\1/p' board/$(BOARD)/build.conf 2>/dev/null)
BOARD_BIN := $(BUILD)/$(or $(BOARD_BIN),unionroot)
BOARD_TEST_BIN := $(dir $(BOARD_BIN))unionroot-test

# The two sub-makes share their objects: the test build's waits for the
# other's, else under -j both compile, and link, the same files at once.
.PHONY: $(BUILD)/aarch64/unionroot $(BUILD)/aarch64/unionroot-test
$(BUILD)/aarch64/unionroot-test: $(BUILD)/aarch64/unionroot
$(BUILD)/aarch64/unionroot $(BUILD)/aarch64/unionroot-test:
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/aarch64 MUSLARCH=aarch64-linux-musl \
		CROSS_COMPILE=aarch64-linux-gnu- UAPI_ASM=/usr/aarch64-linux-gnu/include/asm PAGE=4096 $@

.PHONY: $(BUILD)/mipsel/unionroot $(BUILD)/mipsel/unionroot-test
$(BUILD)/mipsel/unionroot-test: $(BUILD)/mipsel/unionroot
$(BUILD)/mipsel/unionroot $(BUILD)/mipsel/unionroot-test:
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/mipsel MUSLARCH=mipsel-linux-musl \
		CROSS_COMPILE=mipsel-linux-gnu- UAPI_ASM=/usr/mipsel-linux-gnu/include/asm PAGE=4096 $@

# The overlay-only build (COPYUP=0) in a build directory of its own, as its
# objects differ; a board names it with UNIONROOT=overlay/unionroot.
.PHONY: $(BUILD)/overlay/unionroot
$(BUILD)/overlay/unionroot:
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/overlay LIBC=$(LIBC) COPYUP=0 $@

# The smallest build: overlay only, no dm-verity, no raw flash, no other
# live systems' parameters, no network medium, for a PC or eMMC board that
# boots an unverified image (UNIONROOT=minimal/unionroot).
.PHONY: $(BUILD)/minimal/unionroot
$(BUILD)/minimal/unionroot:
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/minimal LIBC=$(LIBC) COPYUP=0 VERITY=0 FLASH=0 PEERS=0 NET=0 $@

$(BUILD)/host/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  HOSTCC  $<")
	$(Q)$(HOSTCC) $(HCFLAGS) -c $< -o $@

# the JSON checker the status fuzzer and the unit tests share
$(BUILD)/host/tests/unit/test_json.o: tests/fuzz/jsoncheck.h

$(BUILD)/host/unit-tests: $(H_UNIT) $(H_LIB)
	$(Q)$(HOSTCC) $(HLDFLAGS) $^ -o $@

# unit-init: init/ files with the fake syscall edge (tests/unit/fake_sys.h)
# in place of lib/sysx.c, the system calls; lib/sys.c's file helpers run
# over it. The rest comes from an archive, so only what the tested files
# reach is linked, and a test may stand in for an
# init/ function (fsck's test answers tool_run) by defining it.
H_SEAM := unionroot/lib/sysx.c
H_INIT_AR := $(patsubst %.c,$(BUILD)/host/%.o,$(filter-out $(H_SEAM),$(LIB_SRC)) \
             $(filter-out init/main.c,$(INIT_SRC)))
$(BUILD)/host/unit-init.a: $(H_INIT_AR)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/host/unit-init-main.o: tests/unit/main.c $(HDRS)
	$(Q)$(HOSTCC) $(HCFLAGS) -DUNIT_SUITES='"init_suites.h"' -c $< -o $@

$(BUILD)/host/unit-init: $(BUILD)/host/unit-init-main.o \
		$(patsubst %.c,$(BUILD)/host/%.o,$(INIT_TEST_SRC)) $(BUILD)/host/unit-init.a
	$(Q)$(HOSTCC) $(HLDFLAGS) $^ -o $@

# The whole program under ASan+UBSan (glibc), with the test build's crash
# points: the host integration tests run it too (tests/run's "host-san").
H_SAN_OBJ := $(patsubst %.c,$(BUILD)/host-san/%.o,$(LIB_SRC) $(INIT_SRC))
$(BUILD)/host-san/%.o: %.c $(HDRS) $(UAPI)/.stamp
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  HOSTCC  $< (sanitizers)")
	$(Q)$(HOSTCC) $(HCFLAGS) -DUNIONROOT_CRASHPOINTS -c $< -o $@

$(BUILD)/host/unionroot-san: $(H_SAN_OBJ)
	@mkdir -p $(dir $@)
	$(Q)$(HOSTCC) $(HLDFLAGS) $^ -o $@

$(BUILD)/host/mkcpio: $(BUILD)/host/tools/mkcpio.o $(patsubst %.c,$(BUILD)/host/%.o,$(TOOL_SRC))
	$(Q)$(HOSTCC) $(HLDFLAGS) $^ -o $@

unit: $(BUILD)/host/unit-tests $(BUILD)/host/unit-init
	$(Q)$(BUILD)/host/unit-tests
	$(Q)$(BUILD)/host/unit-init

# The fuzz corpus replayed without libFuzzer: each target of tests/fuzz/
# linked with tests/fuzz/replay.c and the library, by HOSTCC, so any C
# compiler builds it (the big-endian test's cross compiler among them).
FUZZ_TGT  := $(patsubst tests/fuzz/%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
$(BUILD)/host/libunionroot.a: $(H_LIB)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/host/tests/fuzz/fuzz_status.o: tests/fuzz/jsoncheck.h

$(BUILD)/host/fuzz-replay/fuzz_%: $(BUILD)/host/tests/fuzz/fuzz_%.o $(BUILD)/host/tests/fuzz/replay.o \
		$(BUILD)/host/libunionroot.a
	@mkdir -p $(dir $@)
	$(Q)$(HOSTCC) $(HLDFLAGS) $^ -o $@

# make bigendian: the unit tests (unit-tests, unit-init) and the corpus
# replay of every fuzz target, built for s390x (big-endian) by Debian's
# cross compiler, static and without sanitizers, in BUILD/s390x/host/;
# tests/host/bigendian.sh runs them under qemu-user. The on-disk formats
# are read byte by byte (unionroot/lib/bytes.h); this is where that is held.
BE_CC   ?= s390x-linux-gnu-gcc
BE_PROGS = unit-tests unit-init $(addprefix fuzz-replay/,$(FUZZ_TGT))
bigendian:
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/s390x HOSTCC=$(BE_CC) SAN= HLDFLAGS=-static \
		$(addprefix $(BUILD)/s390x/host/,$(BE_PROGS))

# make mipsel32: the unit tests (unit-tests, unit-init) built for 32-bit
# little-endian MIPS by Debian's cross compiler with glibc's 64-bit off_t
# and time_t (as musl has them everywhere), static and without sanitizers,
# in BUILD/mipsel32/host/; tests/host/mipsel32.sh runs them under qemu-user:
# the system calls and struct layouts that differ on a 32-bit target.
M32_CC  ?= mipsel-linux-gnu-gcc
mipsel32:
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/mipsel32 SAN= HLDFLAGS=-static \
		HOSTCC="$(M32_CC) -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64" \
		$(BUILD)/mipsel32/host/unit-tests $(BUILD)/mipsel32/host/unit-init

# Your own kernel: KERNEL=path/to/bzImage MODULES=INSTALL_MOD_PATH (the
# directory "make modules_install INSTALL_MOD_PATH=…" filled); without them
# the board's Debian kernel package is fetched.
KERNEL  ?=
MODULES ?=
kernel:
ifeq ($(KERNEL),)
	$(Q)tools/fetch-kernel $(BOARD) $(BUILD)
else
	$(Q)install -D -m 0644 $(KERNEL) $(BUILD)/$(BOARD)/vmlinuz
	$(Q)tools/unpack-vmlinux $(KERNEL) $(BUILD)/$(BOARD)/vmlinux || rm -f $(BUILD)/$(BOARD)/vmlinux
endif

# The board's own kernel with every driver built in (board/BOARD/kernel.config
# on tinyconfig, from Debian's linux-source), for booting without an initramfs.
kernel-builtin: kernel
	$(Q)tools/build-kernel $(BOARD) $(BUILD) >/dev/null

initramfs: $(BOARD_BIN) $(BOARD_TEST_BIN) $(BUILD)/host/mkcpio kernel
	$(Q)tools/mkinitramfs $(BOARD) $(BUILD) $(if $(MODULES),--modules $(MODULES))
	$(Q)tools/mkinitramfs $(BOARD) $(BUILD) --test $(if $(MODULES),--modules $(MODULES))
	$(Q)$(if $(wildcard board/$(BOARD)/live.conf),tools/mkinitramfs $(BOARD) $(BUILD) --conf board/$(BOARD)/live.conf live $(if $(MODULES),--modules $(MODULES)))

images: all $(BOARD_BIN)
	$(Q)board/$(BOARD)/images $(BUILD)/$(BOARD) $(ROOTFS)

# make iso [ROOTFS=DIR|SQUASHFS]: a hybrid live ISO of the board's kernel and
# initramfs with the live profile (board/BOARD/live.conf; BIOS and UEFI
# with Secure Boot; a DVD, or written raw to a USB stick),
# BUILD/BOARD/live.iso; the root is the demo image unless ROOTFS names a
# root directory or a squashfs (doc/live-media.md).
ISO_ROOT = $(if $(ROOTFS),$(ROOTFS),$(BUILD)/$(BOARD)/rootfs.squashfs)
iso: deps
	$(Q)$(MAKE) --no-print-directory initramfs images BOARD=$(BOARD) ROOTFS=
	$(Q)tools/mkiso --rootfs $(ISO_ROOT) --kernel $(BUILD)/$(BOARD)/vmlinuz \
		--initrd $(BUILD)/$(BOARD)/initramfs-live.cpio.gz --output $(BUILD)/$(BOARD)/live.iso

demo: deps
	$(Q)$(MAKE) --no-print-directory initramfs images BOARD=$(BOARD)
	$(Q)board/$(BOARD)/run $(BUILD)/$(BOARD) $(if $(ROOTFS),--rootfs $(ROOTFS)) $(if $(LOWER),--lower $(LOWER)) $(if $(RESET),--reset) $(if $(CMD),--cmd "$(CMD)") $(if $(APPEND),--append "$(APPEND)")

# Boards whose QEMU stories make check runs besides BOARD's own.
CHECK_BOARDS ?= qemu-x86_64-flash qemu-aarch64 qemu-x86_64-emmc qemu-mipsel

# The boards with a kernel of their own (board/B/kernel.config): make check
# builds those kernels in the background while the tests run
# (tools/build-kernels, at the lowest priority), the boots that need one
# last, waiting for it.
KB_BOARDS = $(foreach b,$(BOARD) $(CHECK_BOARDS),$(if $(wildcard board/$(b)/kernel.config),$(b)))

check: deps
	$(Q)$(MAKE) --no-print-directory all $(BUILD)/host/unit-tests $(BUILD)/host/unit-init initramfs images BOARD=$(BOARD)
	$(Q)for b in $(CHECK_BOARDS); do \
		$(MAKE) --no-print-directory initramfs images BOARD=$$b || exit 1; \
	done
	$(Q)tools/build-kernels $(BUILD) $(KB_BOARDS)
	$(Q)tests/run $(BUILD) $(BOARD)

test: check

lint:
	$(Q)tests/lint

# The bench's limit contender: a static /init with no checks (tests/bench).
# LIMIT_DEFS: its devices on a board of another layout (the mipsel one's).
$(BUILD)/bench/limit-init: tests/bench/limit-init.c $(TDEPS)
	@mkdir -p $(dir $@)
	$(Q)$(TCC) $(TCFLAGS) $(LIMIT_DEFS) $(TLDFLAGS) $< -o $@

.PHONY: $(BUILD)/mipsel/bench/limit-init
$(BUILD)/mipsel/bench/limit-init:
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/mipsel MUSLARCH=mipsel-linux-musl \
		CROSS_COMPILE=mipsel-linux-gnu- UAPI_ASM=/usr/mipsel-linux-gnu/include/asm PAGE=4096 \
		LIMIT_DEFS=-DLIMIT_ONE_DISK $@

bench: deps
	$(Q)$(MAKE) --no-print-directory all $(BUILD)/bench/limit-init initramfs images BOARD=$(BOARD)
	$(Q)$(MAKE) --no-print-directory initramfs images BOARD=qemu-x86_64-flash
	$(Q)$(MAKE) --no-print-directory $(BUILD)/mipsel/bench/limit-init initramfs images BOARD=qemu-mipsel
	$(Q)tests/bench/run $(BUILD) $(BOARD)

bench-reset: all
	$(Q)tests/bench/reset $(BUILD)

# make soak [SOAK_BOOTS=200 SOAK_SEED=N SOAK_FS=ext4|f2fs|ubifs]: random
# operations and power cuts over hundreds of boots on both backends; not part
# of make check (hours). ubifs boots the flash board, f2fs the eMMC board.
soak: deps
	$(Q)$(MAKE) --no-print-directory all initramfs images \
		BOARD=$(if $(filter ubifs,$(SOAK_FS)),qemu-x86_64-flash,$(if $(filter f2fs,$(SOAK_FS)),qemu-x86_64-emmc,$(BOARD)))
	$(Q)BUILD=$(BUILD) BOARD=$(BOARD) bash tests/soak/soak.sh

# make fleet [FLEET_SIZES='1 2 4 8' FLEET_SERVERS='nbd nfs' FLEET_TIMEOUT=SECONDS]:
# N clients boot at once from one server's image on 127.0.0.1, each its own
# QEMU with a tmpfs branch; per N the time to the real init, the bytes the
# server sent and every client that failed (tests/bench/fleet). Not part of
# make check: eight TCG guests on two cores take minutes.
fleet: deps
	$(Q)$(MAKE) --no-print-directory all initramfs images BOARD=$(BOARD)
	$(Q)tests/bench/fleet $(BUILD) $(BOARD)

# make install [DESTDIR=…] [PREFIX=/usr]: the admin tool and its man pages,
# the tool's (section 8) and its kernel command line's (section 7).
# (The initramfs carries its own copy as /init: make initramfs.)
PREFIX  ?= /usr
DESTDIR ?=
install: $(BUILD)/unionroot
	install -D -m 0755 $(BUILD)/unionroot $(DESTDIR)$(PREFIX)/sbin/unionroot
	install -D -m 0644 doc/unionroot.8 $(DESTDIR)$(PREFIX)/share/man/man8/unionroot.8
	install -D -m 0644 doc/unionroot.cmdline.7 $(DESTDIR)$(PREFIX)/share/man/man7/unionroot.cmdline.7

# The glue of the distributions' own initramfs generators (doc/distributions.md):
# initramfs-tools' hook and boot=unionroot script, dracut's module.
install-initramfs-tools:
	install -D -m 0755 dist/initramfs-tools/hooks/unionroot $(DESTDIR)$(PREFIX)/share/initramfs-tools/hooks/unionroot
	install -D -m 0644 dist/initramfs-tools/scripts/unionroot $(DESTDIR)$(PREFIX)/share/initramfs-tools/scripts/unionroot
install-dracut:
	install -d $(DESTDIR)$(PREFIX)/lib/dracut/modules.d/95unionroot
	install -m 0755 dist/dracut/95unionroot/*.sh $(DESTDIR)$(PREFIX)/lib/dracut/modules.d/95unionroot/
	install -m 0644 dist/dracut/95unionroot/*.service dist/dracut/95unionroot/*.conf \
		$(DESTDIR)$(PREFIX)/lib/dracut/modules.d/95unionroot/

# make deb: the Debian packages (doc/packaging.md) in $(BUILD)/deb;
# make live-build: a Debian live ISO by live-build whose initramfs uses
# unionroot (tools/live-build-iso; the mirror and some 15 minutes).
deb: deps
	$(Q)rm -rf $(BUILD)/deb && mkdir -p $(BUILD)/deb/unionroot
	$(Q)git ls-files -coz --exclude-standard | tar -cf - --null --ignore-failed-read -T - 2>/dev/null | \
		tar -xf - -C $(BUILD)/deb/unionroot
	$(Q)cd $(BUILD)/deb/unionroot && dpkg-buildpackage -b -us -uc >../build.log 2>&1 || \
		{ tail -n 20 ../build.log; exit 1; }
	$(Q)ls $(BUILD)/deb/*.deb
live-build: deb
	$(Q)tools/live-build-iso $(BUILD)/live-build $(BUILD)/deb/unionroot_*.deb \
		$(BUILD)/deb/unionroot-initramfs-tools_*.deb

clean:
	rm -rf $(BUILD)

# ---------------------------------------------------------------------------
# Fuzzing: libFuzzer targets tests/fuzz/<target>.c over the parsers of
# untrusted input (superblocks, partition tables, config and command line,
# modules.dep, the copy-up manifest, the control state files, /proc/mtd and
# raw flash's eraseblock heads), and the status record with its JSON.
# "make fuzz FUZZTIME=10" runs each target that many seconds from its corpus
# (tests/fuzz/corpus/<target>/; new inputs go to build/fuzz/corpus-<target>).
FUZZCC    ?= clang
FUZZTIME  ?= 10
FUZZLEN   ?= 32768
FUZZBASE  := -std=c11 -D_GNU_SOURCE $(WARN) $(INCS) -isystem $(UAPI) -O1 -g \
             -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# The library once, instrumented for coverage; each target links what it uses.
FUZZ_OBJ  := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(LIB_SRC))

$(BUILD)/fuzz/obj/%.o: %.c $(HDRS) $(UAPI)/.stamp
	@mkdir -p $(dir $@)
	$(Q)$(FUZZCC) $(FUZZBASE) -fsanitize=fuzzer-no-link -c $< -o $@

$(BUILD)/fuzz/libunionroot.a: $(FUZZ_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD)/fuzz/libunionroot.a $(HDRS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  FUZZCC  $@")
	$(Q)$(FUZZCC) $(FUZZBASE) -fsanitize=fuzzer $< $(BUILD)/fuzz/libunionroot.a -o $@

$(BUILD)/fuzz/fuzz_status: tests/fuzz/jsoncheck.h

fuzz: $(addprefix $(BUILD)/fuzz/,$(FUZZ_TGT))
	$(Q)for t in $(FUZZ_TGT); do \
		mkdir -p $(BUILD)/fuzz/corpus-$$t tests/fuzz/corpus/$$t; \
		echo "  FUZZ    $$t ($(FUZZTIME) s)"; \
		$(BUILD)/fuzz/$$t -max_total_time=$(FUZZTIME) -max_len=$(FUZZLEN) \
			-artifact_prefix=$(BUILD)/fuzz/$$t- \
			$(BUILD)/fuzz/corpus-$$t tests/fuzz/corpus/$$t || exit 1; \
	done
