#!/bin/bash
# SPDX-License-Identifier: MIT
# The Debian packages of debian/ (doc/packaging.md) as a user meets them:
# dpkg-buildpackage builds the three from a copy of the tree as a clean
# clone has it, lintian finds no error or warning, and in a copy of the
# bookworm chroot of tests/distro-root installing, upgrading and purging
# unionroot-initramfs-tools regenerates the initramfs with the union, once more,
# then without it, leaving one the kernel boots with; in the dracut chroot
# dracut-unionroot's module goes into dracut's initramfs and back out.
# Root: chroots and mounts. The chroots are made once (tests/distro-root,
# minutes) and copied for each run, so the cached ones stay as made.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
export LC_ALL=C DEBIAN_FRONTEND=noninteractive
need_root "deb: the Debian packages" || exit 0
need_tools "deb: the Debian packages" dpkg-buildpackage dh lintian git unshare || exit 0
if [ ! -f dist/dracut/95unionroot/module-setup.sh ]; then
	skip "deb: the Debian packages" "dist/dracut/95unionroot missing: dracut-unionroot (and so the build) needs the dracut module"
	exit 0
fi
W=$(realpath -m "$BUILD/deb")
OUT=$(realpath -m "$OUTDIR")
ARCH=$(dpkg --print-architecture)
VER=$(dpkg-parsechangelog -l debian/changelog -S Version)
L=$W/log
rm -rf "$W" && mkdir -p "$W/unionroot" "$L"
# a chroot copy goes when the script ends, unless something is still mounted
# in it (the mounts are in_root's namespace's, so never)
drop_root() {
	if [ -d "$1" ] && ! grep -qF " $1/" /proc/self/mountinfo; then rm -rf "$1"; fi
}
trap 'drop_root "$W/chroot"' EXIT

# deb NAME [VERSION]: the path of package NAME's .deb
deb() {
	local a=all
	[ "$1" != unionroot ] || a=$ARCH
	echo "$W/$1_${2:-$VER}_$a.deb"
}

# in_root ROOT COMMAND...: COMMAND in the chroot ROOT with /proc and /dev,
# mounted in a mount namespace that ends with it
in_root() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare -m bash -euc 'R=$1; shift
		mount -t proc proc "$R/proc"
		mount --rbind /dev "$R/dev"
		exec chroot "$R" "$@"' _ "$@"
}

# initrd_step ROOT NAME COMMAND...: COMMAND in ROOT (log $L/NAME.log), then
# the initramfs listed into $L/NAME.list; the initramfs is dated 2001
# before, so a later date says the step regenerated it. Returns COMMAND's
# status, or 1 when the initramfs was not regenerated.
initrd_step() {
	local root=$1 name=$2 lister rc
	shift 2
	touch -d 2001-01-01 "$root/boot/initrd.img-$KVER"
	in_root "$root" "$@" >"$L/$name.log" 2>&1
	rc=$?
	lister=lsinitramfs
	[ -x "$root/usr/bin/lsinitramfs" ] || lister=lsinitrd
	in_root "$root" "$lister" "/boot/initrd.img-$KVER" >"$L/$name.list" 2>&1
	[ "$rc" = 0 ] || return "$rc"
	[ "$(stat -c %Y "$root/boot/initrd.img-$KVER")" -gt "$(date -d 2001-01-02 +%s)" ] || {
		echo "the initramfs was not regenerated" >>"$L/$name.log"
		return 1
	}
}

# last LOG...: the last lines of each LOG on one line, a FAIL's reason
last() {
	tail -q -n 2 "$@" 2>/dev/null | tr -s '\n' ' '
}

# has LIST REGEX...: every extended regex matches a line of the listing
has() {
	local list=$1
	shift
	for re; do grep -qE -- "$re" "$list" || return 1; done
}

# 1. The build: a copy of what a clean clone holds (tracked files and new
# ones, nothing git ignores, so not build/).
git ls-files -coz --exclude-standard |
	tar -cf - --null --ignore-failed-read -T - 2>/dev/null | tar -xf - -C "$W/unionroot"
if (cd "$W/unionroot" && dpkg-buildpackage -b -us -uc) >"$L/build.log" 2>&1 &&
	[ -f "$(deb unionroot)" ] && [ -f "$(deb unionroot-initramfs-tools)" ] && [ -f "$(deb dracut-unionroot)" ]; then
	pass "deb: dpkg-buildpackage -b builds unionroot, unionroot-initramfs-tools and dracut-unionroot $VER"
else
	fail "deb: dpkg-buildpackage -b builds the three packages" "$(last "$L/build.log") (see $L/build.log)"
	exit 1
fi

# what each holds: its own files, besides usr/share/doc and lintian's
contents() {
	dpkg-deb -c "$(deb "$1")" | awk '$1 !~ /^d/ { print $6 }' |
		grep -vE '^\./usr/share/(doc|lintian)/' | sort
}
want_dracut=$(for f in dist/dracut/95unionroot/*; do echo "./usr/lib/dracut/modules.d/95unionroot/${f##*/}"; done | sort)
if [ "$(contents unionroot)" = "$(printf '%s\n' ./usr/sbin/unionroot \
	./usr/share/man/man7/unionroot.cmdline.7.gz ./usr/share/man/man8/unionroot.8.gz)" ] &&
	[ "$(contents unionroot-initramfs-tools)" = "$(printf '%s\n' \
		./usr/share/initramfs-tools/hooks/unionroot ./usr/share/initramfs-tools/scripts/unionroot)" ] &&
	[ "$(contents dracut-unionroot)" = "$want_dracut" ]; then
	pass "deb: each package holds its files (the tool and its pages; the hook and script; the dracut module)"
else
	fail "deb: each package holds its files" "$(for p in unionroot unionroot-initramfs-tools dracut-unionroot; do
		echo "$p: $(contents $p | tr '\n' ' ')"; done | tr '\n' ';')"
fi
mkdir -p "$W/x" && dpkg-deb -x "$(deb unionroot)" "$W/x"
got=$("$W/x/usr/sbin/unionroot" --version 2>&1)
if [ "$got" = "unionroot ${VER%-*}" ]; then
	pass "deb: the packaged tool says the package's upstream version ($got)"
else
	fail "deb: the packaged tool says the package's upstream version" "'$got', not ${VER%-*} (debian/changelog)"
fi

# 2. lintian, at its default level: no error, no warning (overrides in
# debian/*.lintian-overrides say why each is there).
lintian "$W/unionroot_${VER}_$ARCH.changes" >"$L/lintian.log" 2>&1
rc=$?
if [ "$rc" = 0 ] && ! grep -qE '^[EW]: ' "$L/lintian.log"; then
	pass "deb: lintian reports no error or warning"
else
	fail "deb: lintian reports no error or warning" "exit $rc: $(grep -E '^[EW]: ' "$L/lintian.log" | head -5 | tr '\n' ' ')"
fi

# 3. initramfs-tools: install, upgrade and purge in a copy of the chroot.
if ! tests/distro-root "$OUT" "$BUILD" initramfs-tools >"$L/distro-it.log" 2>&1; then
	skip "deb: initramfs-tools chroot" "tests/distro-root could not make it: $(last "$L/distro-it.log")"
	exit 0
fi
C=$W/chroot
# not while tests/distro-initrd puts the glue in it and runs update-initramfs
flock "$OUT/.initrd-initramfs-tools.lock" cp -a "$OUT/distro-initramfs-tools" "$C"
# MODULES=list: the initramfs holds only the modules asked for, so the
# hook's are seen to come and go with it, and each regeneration takes
# seconds (MODULES=most copies every driver: two minutes)
sed -i 's/^MODULES=.*/MODULES=list/' "$C/etc/initramfs-tools/initramfs.conf"
KVER=$(find "$C/boot" -name 'vmlinuz-*' -printf '%f\n' | sed 's/^vmlinuz-//' | sort | tail -n1)
mkdir -p "$C/tmp/deb" && cp "$(deb unionroot)" "$(deb unionroot-initramfs-tools)" "$C/tmp/deb/"
UNION_FILES=('(^|/)sbin/unionroot$' '^scripts/unionroot$' '^etc/unionroot/modules$'
	'/kernel/fs/overlayfs/overlay\.ko$' '/kernel/fs/squashfs/squashfs\.ko$')
# a bootable initramfs: its /init and the kernel's modules
BOOTABLE=('^init$' "lib/modules/$KVER/modules\.dep$" "lib/modules/$KVER/kernel/.*\.ko$")

# install: both packages from their files; the trigger regenerates it
if initrd_step "$C" it-install apt-get install -y -q --no-install-recommends \
	"/tmp/deb/unionroot_${VER}_$ARCH.deb" "/tmp/deb/unionroot-initramfs-tools_${VER}_all.deb" &&
	has "$L/it-install.list" "${UNION_FILES[@]}" "${BOOTABLE[@]}"; then
	pass "deb: installing unionroot-initramfs-tools regenerates the initramfs with unionroot, scripts/unionroot, etc/unionroot/modules and the hook's modules"
else
	fail "deb: installing unionroot-initramfs-tools regenerates the initramfs with unionroot" \
		"$(last "$L/it-install.log") (see $L/it-install.list)"
fi

# upgrade: the same tree rebuilt as the next version (the objects are
# kept, -nc: only the packages are made anew)
UP=$VER.1
{
	printf 'unionroot (%s) unstable; urgency=medium\n\n  * The upgrade of tests/qemu/debian-package.sh.\n\n' "$UP"
	printf ' -- unionroot developers <unionroot@example.org>  %s\n\n' "$(date -R)"
	cat "$W/unionroot/debian/changelog"
} >"$W/changelog" && mv "$W/changelog" "$W/unionroot/debian/changelog"
if (cd "$W/unionroot" && dpkg-buildpackage -b -nc -us -uc) >"$L/build-up.log" 2>&1 &&
	cp "$(deb unionroot "$UP")" "$(deb unionroot-initramfs-tools "$UP")" "$C/tmp/deb/" &&
	initrd_step "$C" it-upgrade apt-get install -y -q --no-install-recommends \
		"/tmp/deb/unionroot_${UP}_$ARCH.deb" "/tmp/deb/unionroot-initramfs-tools_${UP}_all.deb" &&
	grep -q "Unpacking unionroot-initramfs-tools (${UP}) over (${VER})" "$L/it-upgrade.log" &&
	has "$L/it-upgrade.list" "${UNION_FILES[@]}" "${BOOTABLE[@]}"; then
	pass "deb: upgrading to $UP regenerates the initramfs, unionroot still in it"
else
	fail "deb: upgrading to $UP regenerates the initramfs" \
		"$(last "$L/build-up.log" "$L/it-upgrade.log") (see $L/it-upgrade.list)"
fi

# purge: both gone, and the initramfs regenerated without them
left=
if initrd_step "$C" it-purge apt-get purge -y -q unionroot-initramfs-tools unionroot; then
	for p in unionroot unionroot-initramfs-tools; do
		# shellcheck disable=SC2016 # dpkg-query's format
		in_root "$C" dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null | grep -qvx not-installed && left="$left $p"
	done
	[ ! -e "$C/usr/share/initramfs-tools/hooks/unionroot" ] || left="$left hooks/unionroot"
	if [ -z "$left" ] && ! grep -qE '(^|/)unionroot(/|$)|/overlay\.ko$|/squashfs\.ko$' "$L/it-purge.list" &&
		has "$L/it-purge.list" "${BOOTABLE[@]}"; then
		pass "deb: purging regenerates the initramfs without unionroot or its modules, with init and the kernel's modules"
	else
		fail "deb: purging regenerates the initramfs without unionroot" \
			"left:${left:- none}; in it: $(grep -E 'unionroot|/overlay\.ko$|/squashfs\.ko$' "$L/it-purge.list" | head -3 | tr '\n' ' ')"
	fi
else
	fail "deb: purging regenerates the initramfs" "$(last "$L/it-purge.log")"
fi
drop_root "$C"

# 4. dracut: the module in dracut's initramfs, and back out of it.
if ! tests/distro-root "$OUT" "$BUILD" dracut >"$L/distro-dracut.log" 2>&1; then
	skip "deb: dracut chroot" "tests/distro-root could not make it: $(last "$L/distro-dracut.log")"
	exit 0
fi
cp -a "$OUT/distro-dracut" "$C"
# without dracut's kernel-modules (every storage driver), as MODULES=list
# above: the image holds the modules others ask for, with fewer files to copy
echo 'omit_dracutmodules+=" kernel-modules kernel-modules-extra "' >"$C/etc/dracut.conf.d/90-test.conf"
mkdir -p "$C/tmp/deb" && cp "$(deb unionroot)" "$(deb dracut-unionroot)" "$C/tmp/deb/"
if initrd_step "$C" dracut-install apt-get install -y -q --no-install-recommends \
	"/tmp/deb/unionroot_${VER}_$ARCH.deb" "/tmp/deb/dracut-unionroot_${VER}_all.deb" &&
	in_root "$C" dracut --list-modules --kver "$KVER" 2>&1 | grep -qx unionroot &&
	has "$L/dracut-install.list" 'usr/sbin/unionroot$' 'etc/unionroot/modules$' \
		'/kernel/fs/squashfs/squashfs\.ko$' '/kernel/fs/erofs/erofs\.ko$'; then
	pass "deb: installing dracut-unionroot regenerates dracut's initramfs with the unionroot module, the tool and its modules"
else
	fail "deb: installing dracut-unionroot regenerates dracut's initramfs with the module" \
		"$(last "$L/dracut-install.log") (see $L/dracut-install.list)"
fi
if initrd_step "$C" dracut-purge apt-get purge -y -q dracut-unionroot unionroot &&
	! grep -qE 'unionroot|/squashfs\.ko$|/erofs\.ko$' "$L/dracut-purge.list" &&
	has "$L/dracut-purge.list" "lib/modules/$KVER/modules\.dep$" '/kernel/.*\.ko$'; then
	pass "deb: purging dracut-unionroot regenerates dracut's initramfs without it or its modules"
else
	fail "deb: purging dracut-unionroot regenerates dracut's initramfs without it" \
		"$(last "$L/dracut-purge.log") (see $L/dracut-purge.list)"
fi
