#!/bin/bash
# SPDX-License-Identifier: MIT
# "make initramfs KERNEL=… MODULES=…": a kernel and a modules tree of your own
# (laid out as "make modules_install INSTALL_MOD_PATH=DIR" leaves it) give
# the same archive, byte for byte, as the board's Debian package path gives
# for the same kernel, so every boot test of the board speaks for it too.
# Trees it cannot use are refused with one clear line. No root needed.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
scratch ownkernel
KDIR=$BUILD/kernel/amd64
OUT=$BUILD/$BOARD
if [ ! -f "$KDIR/version" ] || [ ! -f "$OUT/initramfs.cpio.gz.sum" ]; then
	fail "own kernel" "run make initramfs first ($KDIR, $OUT)"
	exit 0
fi
VER=$(cat "$KDIR/version")

# The user's tree: the same modules, elsewhere, as symlinks (no 400 MB copy).
mkdir -p "$T/mods/lib/modules/$VER"
cp -as "$(cd "$KDIR/lib/modules/$VER" && pwd)/." "$T/mods/lib/modules/$VER/"
cp "$KDIR/boot/vmlinuz-$VER" "$T/bzImage"
before=$(cat "$OUT/initramfs.cpio.gz.sum")
if make --no-print-directory -s initramfs BOARD="$BOARD" BUILD="$BUILD" \
	KERNEL="$T/bzImage" MODULES="$T/mods" >"$T/make.log" 2>&1; then
	if [ "$(cat "$OUT/initramfs.cpio.gz.sum")" = "$before" ] && cmp -s "$T/bzImage" "$OUT/vmlinuz"; then
		pass "own kernel: KERNEL= MODULES= give the Debian path's archive, byte for byte"
	else
		fail "own kernel: same archive" "the archive or vmlinuz differs: $(tail -2 "$T/make.log")"
	fi
else
	fail "own kernel: make initramfs KERNEL= MODULES=" "$(tail -3 "$T/make.log")"
fi

# refused NAME DIR PATTERN: mkinitramfs --modules DIR fails with a line matching PATTERN.
refused() {
	if tools/mkinitramfs "$BOARD" "$BUILD" --modules "$2" >"$T/err" 2>&1; then
		fail "$1" "accepted"
	elif [ "$(wc -l <"$T/err")" = 1 ] && grep -Eq -- "$3" "$T/err"; then
		pass "$1"
	else
		fail "$1" "expected one line matching /$3/, got: $(head -3 "$T/err")"
	fi
}
refused "own kernel: a missing directory is named" "$T/nowhere" 'no such directory'
mkdir -p "$T/empty"
refused "own kernel: a tree without lib/modules says what to run" "$T/empty" 'modules_install INSTALL_MOD_PATH'
mkdir -p "$T/nodep/lib/modules/6.6.6"
refused "own kernel: a tree without modules.dep says to run depmod" "$T/nodep" 'run depmod -b'
mkdir -p "$T/mods/lib/modules/6.6.6"
refused "own kernel: two kernels in one tree are refused" "$T/mods" 'several kernels'
