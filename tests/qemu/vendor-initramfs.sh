#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# An initramfs made the way a vendor's build makes it, with no Debian
# package on tools/mkinitramfs's path: the kernel's modules in a plain
# directory of another layout (one VERSION directory named vendor-kernel,
# beside a second kernel's, picked by the release the --kernel image shows)
# and the target's mkfs.ext4 and e2fsck from a foreign sysroot (e2fsprogs
# and its libraries unpacked with dpkg-deb -x, laid out merged-/usr, its
# loader reached through an absolute symbolic link), their libraries found
# from their ELF headers inside it. It boots on the PC board into a union
# whose blank writable branch the sysroot's mkfs.ext4 formats; the next
# boot keeps the user's file. The same inputs give the same bytes.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu vendor-initramfs || exit 0
need_tools vendor-initramfs apt-get dpkg-deb readelf || exit 0
scratch vendor
KDIR=$BUILD/kernel/amd64
[ -f "$KDIR/version" ] || { skip vendor-initramfs "$KDIR missing (make kernel)"; exit 0; }
VER=$(cat "$KDIR/version")

# The sysroot: the packages' files only (no libc-bin, no ld.so.conf),
# fetched into BUILD/cache once as tools/fetch-busybox fetches.
PKGS="e2fsprogs libext2fs2 libcom-err2 libblkid1 libuuid1 libc6"
mkdir -p "$BUILD/cache"
SYS=$T/sysroot
mkdir -p "$SYS"
for p in $PKGS; do
	deb=$(find "$BUILD/cache" -maxdepth 1 -name "${p}_*_amd64.deb" | sort | tail -n1)
	if [ -z "$deb" ]; then
		(cd "$BUILD/cache" && apt-get download -q -o APT::Sandbox::User=root "$p:amd64" >/dev/null 2>&1)
		deb=$(find "$BUILD/cache" -maxdepth 1 -name "${p}_*_amd64.deb" | sort | tail -n1)
	fi
	[ -n "$deb" ] || { skip vendor-initramfs "$p:amd64 could not be fetched (apt-get download)"; exit 0; }
	dpkg-deb -x "$deb" "$SYS"
done
# merged /usr, as Buildroot and Yocto lay a target out
mkdir -p "$SYS/usr/lib"
cp -a "$SYS/lib/." "$SYS/usr/lib/"
rm -rf "${SYS:?}/lib"
ln -s usr/lib "$SYS/lib"
if [ "$(readlink "$SYS/lib64/ld-linux-x86-64.so.2")" = /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 ]; then
	pass "vendor: the sysroot's loader is an absolute link, read inside the sysroot"
else
	fail "vendor: the sysroot's loader" "lib64/ld-linux-x86-64.so.2 is not the absolute link libc6 ships"
fi

# The modules: hard links (or symbolic ones across file systems) of the
# kernel's, under a directory name that is not the release.
M=$T/modules
mkdir -p "$M/old"
cp -al "$KDIR/lib/modules/$VER" "$M/vendor-kernel" 2>/dev/null ||
	{ rm -rf "$M/vendor-kernel"; cp -as "$(cd "$KDIR/lib/modules/$VER" && pwd)" "$M/vendor-kernel"; }
echo 'kernel/old.ko:' >"$M/old/modules.dep"
cp "$OUTDIR/vmlinuz" "$T/bzImage"

# mkinitramfs without Debian: a build directory of its own holding only the
# program and mkcpio (no kernel/, no cache/), fetch-kernel's path unused.
mk() { # BUILD-DIR [options]: 0 when mkinitramfs built BUILD-DIR/BOARD/initramfs.cpio.gz
	local b=$1
	shift
	mkdir -p "$b/host"
	cp "$BUILD/unionroot" "$b/" && cp "$BUILD/host/mkcpio" "$b/host/" &&
		TMPDIR=$T "$ROOT_DIR/tools/mkinitramfs" "$BOARD" "$b" --modules "$M" --kernel "$T/bzImage" \
			--sysroot "$SYS" --tools "mkfs.ext4 e2fsck" "$@" >"$b.log" 2>&1
}
if ! mk "$T/b1"; then
	fail "vendor: mkinitramfs --modules --kernel --sysroot" "$(tail -n 2 "$T/b1.log" | tr '\n' '|')"
	exit 0
fi
pass "vendor: mkinitramfs builds from a plain modules tree and a foreign sysroot"
A=$T/b1/$BOARD/initramfs.cpio.gz
expect "vendor: the release comes from the modules, not the directory's name" "$T/b1.log" "kernel $VER\$"
if [ -e "$T/b1/kernel" ] || [ -e "$T/b1/cache" ]; then
	fail "vendor: no Debian package" "mkinitramfs made $(ls -d "$T"/b1/kernel "$T"/b1/cache 2>/dev/null)"
else
	pass "vendor: no Debian package fetched"
fi
if cmp -s "$T/bzImage" "$T/b1/$BOARD/vmlinuz"; then
	pass "vendor: --kernel is the board's vmlinuz"
else
	fail "vendor: --kernel" "$T/b1/$BOARD/vmlinuz is not the image given"
fi

mkdir -p "$T/x"
(cd "$T/x" && "$ROOT_DIR/tools/initramfs-cat" "$A" | cpio -id --quiet)
if cmp -s "$T/x/sbin/mkfs.ext4" "$SYS/sbin/mke2fs" && cmp -s "$T/x/sbin/e2fsck" "$SYS/sbin/e2fsck" &&
	cmp -s "$T/x/lib64/ld-linux-x86-64.so.2" "$SYS/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" &&
	cmp -s "$T/x/lib/x86_64-linux-gnu/libext2fs.so.2" "$(readlink -f "$SYS/usr/lib/x86_64-linux-gnu/libext2fs.so.2")"; then
	pass "vendor: the tools, their loader and libraries are the sysroot's files"
else
	fail "vendor: the sysroot's files" "$(cd "$T/x" && find sbin lib lib64 -maxdepth 2 -type f | grep -v modules | tr '\n' ' ')"
fi
if [ -d "$T/x/lib/modules/$VER" ]; then
	pass "vendor: the modules are under lib/modules/$VER"
else
	fail "vendor: the modules' directory" "no lib/modules/$VER in the archive"
fi

# Reproducible: a second build in another directory, a second later.
sleep 1
if mk "$T/b2" && cmp -s "$A" "$T/b2/$BOARD/initramfs.cpio.gz"; then
	pass "vendor: the same inputs give the same bytes"
else
	fail "vendor: reproducible" "a second build differs or failed: $(tail -n 1 "$T/b2.log")"
fi

# Refusals, one line each.
refused() { # NAME PATTERN mk-options...
	local name=$1 pat=$2
	shift 2
	if mk "$T/r" "$@"; then
		fail "$name" "accepted"
	elif [ "$(wc -l <"$T/r.log")" = 1 ] && grep -Eq -- "$pat" "$T/r.log"; then
		pass "$name"
	else
		fail "$name" "expected one line matching /$pat/, got: $(head -n 3 "$T/r.log" | tr '\n' '|')"
	fi
}
refused "vendor: a kernel the modules do not name is refused" 'no kernel 9\.9\.9 in it' -k 9.9.9
mv "$SYS/usr/lib/x86_64-linux-gnu/libext2fs.so.2" "$T/"
refused "vendor: a library missing from the sysroot is named" 'needs libext2fs\.so\.2.*none of its directories'
mv "$T/libext2fs.so.2" "$SYS/usr/lib/x86_64-linux-gnu/"

# The boots: a blank disk, formatted by the sysroot's mkfs.ext4.
D=$T/blank.img
truncate -s 64M "$D"
ARGS=(--kernel "$T/b1/$BOARD/vmlinuz" --initrd "$A" --append 'union.upper=/dev/vdb union.format=ext4')
if boot "$T/v1.log" "$D" 'echo vendor >/root/vendor; echo MARK-written' "${ARGS[@]}"; then
	expect "vendor: the blank branch is formatted by the carried mkfs.ext4" "$T/v1.log" \
		'writable branch /dev/vdb is blank; formatting it as ext4'
	expect "vendor: the formatted branch is the persistent writable branch" "$T/v1.log" \
		'^real-init: status: upper_state=persistent on /dev/vdb \(ext4\)'
	expect "vendor: the first boot writes into the union" "$T/v1.log" '^MARK-written'
	if [ "$(blkid -o value -s TYPE "$D" 2>/dev/null)" = ext4 ]; then
		pass "vendor: the disk holds ext4 after the boot"
	else
		fail "vendor: the disk holds ext4" "blkid finds $(blkid -o value -s TYPE "$D" 2>/dev/null || echo nothing)"
	fi
else
	fail "vendor: first boot" "no clean boot (see $T/v1.log)"
	keep_log "$T/v1.log"
fi
if boot "$T/v2.log" "$D" 'echo "MARK-file=$(cat /root/vendor)"' "${ARGS[@]}"; then
	expect "vendor: the next boot keeps the user's file" "$T/v2.log" '^MARK-file=vendor'
	expect_not "vendor: the next boot formats nothing" "$T/v2.log" 'formatting it' "the second boot formatted the branch"
else
	fail "vendor: second boot" "no clean boot (see $T/v2.log)"
	keep_log "$T/v2.log"
fi
