#!/bin/bash
# SPDX-License-Identifier: MIT
# The initramfs builder: the same inputs give the same bytes, and the archive
# carries /init, ext4 with everything it needs, and a consistent modules.dep.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
set -u
cd "$ROOT_DIR" || exit 1
B=$(cd "$BUILD" && pwd)
if [ ! -f "$B/kernel/amd64/version" ] || [ ! -x "$B/host/mkcpio" ]; then
	skip initramfs "no fetched kernel or mkcpio in $B (make kernel all)"
	exit 0
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/initramfs-test.XXXXXX")
trap 'rm -rf "$T"' EXIT

# Two build dirs sharing the fetched kernel and tools, built at different times.
for b in b1 b2; do
	mkdir -p "$T/$b/host"
	ln -s "$B/kernel" "$T/$b/kernel"
	ln -s "$B/busybox" "$T/$b/busybox"
	ln -s "$B/cache" "$T/$b/cache"
	ln -s "$B/host/mkcpio" "$T/$b/host/mkcpio"
	[ -x "$B/unionroot" ] && cp "$B/unionroot" "$T/$b/unionroot"
done

# The pruned modules.alias: device aliases of carried modules only, every
# driver of the board's pool has its own, and a module that is not carried
# (nouveau) has none.
check_aliases() { # NAME ALIAS-FILE ARCHIVE-LIST
	local name=$1 alias=$2 list=$3 stray
	if [ ! -s "$alias" ]; then
		fail "$name-modules-alias" "no modules.alias in the archive"
		return
	fi
	stray=$(awk '{ print $3 }' "$alias" | sort -u | while read -r m; do
		grep -qE "/${m//_/[-_]}\.ko$" "$list" || echo "$m"
	done)
	if [ -z "$stray" ] && ! awk '$1 != "alias" || $2 !~ /:/' "$alias" | grep -q .; then
		pass "$name-modules-alias-names-only-carried-modules"
	else
		fail "$name-modules-alias-names-only-carried-modules" \
			"not carried: $(echo "$stray" | tr '\n' ' '); other lines: $(awk '$1 != "alias" || $2 !~ /:/' "$alias" | head -n2)"
	fi
	if [ "$name" = initramfs-baseline ]; then
		# the bench's hand-written init carries what its boot needs only
		expect "$name-modules-alias-has-the-boot's-driver" "$alias" '^alias virtio:d00000002v\* virtio_blk$'
		expect_not "$name-modules-alias-has-no-pool" "$alias" ' ahci$' "the board's pool (ahci) is in it"
		return
	fi
	expect "$name-modules-alias-has-the-pool" "$alias" '^alias pci:v\*d\*sv\*sd\*bc01sc06i01\* ahci$'
	expect "$name-modules-alias-has-cpu-features" "$alias" '^alias cpu:type:x86,.* crct10dif_pclmul$'
	expect_not "$name-modules-alias-leaves-out-the-rest" "$alias" ' nouveau$' "nouveau's aliases are in it"
}

# The host programs in sbin/ are the board's TOOLS= and no more; the PC
# board (a live DVD or stick) carries none, nor the glibc they would drag in.
check_tools() { # ARCHIVE-LIST
	local want have
	# shellcheck disable=SC2016 # expanded by the inner bash
	want=$(bash -c 'TOOLS= && . "$1" && for t in $TOOLS; do echo "$t"; done' _ "board/$BOARD/build.conf" | sort | tr '\n' ' ')
	have=$(sed -n 's|^sbin/||p' "$1" | sort | tr '\n' ' ')
	if [ "$want" = "$have" ]; then
		pass "initramfs-carries-the-board's-TOOLS ($BOARD: ${want:-none})"
	else
		fail "initramfs-carries-the-board's-TOOLS" "$BOARD: TOOLS='$want', sbin/ holds '$have'"
	fi
	[ "$BOARD" = qemu-x86_64 ] || return 0
	expect "initramfs-pc-board-has-its-init" "$1" '^init$'
	expect_not "initramfs-pc-board-carries-no-glibc" "$1" '/libc\.so' \
		"$(grep -m1 '/libc\.so' "$1") in the PC board's initramfs"
}

# PACK= in build.conf: every module is in modules.pack but loop and squashfs
# (which mount it), PACK_OUTSIDE= and what those need (modules.dep and
# modules.softdep); without PACK= there is no pack.
check_pack() { # NAME ARCHIVE VERSION
	local name=$1 a=$2 ver=$3 conf pack want plain
	# shellcheck disable=SC2016 # expanded by the inner bash
	conf=$(bash -c 'PACK= PACK_OUTSIDE= && . "$1" && echo "$PACK:$PACK_OUTSIDE"' _ "board/$BOARD/build.conf")
	pack=${conf%%:*}
	if [ -z "$pack" ] || [ "$name" != initramfs ]; then
		expect_not "$name-has-no-module-pack" "$T/$name.list" '/modules\.pack$' \
			"a pack in $a, where build.conf says PACK=${pack:-nothing}"
		return
	fi
	want=$(awk -v want="loop squashfs ${conf#*:}" '
		function norm(p) { sub(".*/", "", p); sub("\\.ko.*", "", p); gsub("-", "_", p); return p }
		FNR == 1 { f++ }
		f == 1 { m = norm($1); for (i = 2; i <= NF; i++) dep[m] = dep[m] " " norm($i) }
		f == 2 && $1 == "softdep" { for (i = 3; i <= NF; i++) if ($i !~ /:$/) dep[$2] = dep[$2] " " norm($i) }
		END {
			n = split(want, q, " ")
			for (i = 1; i <= n; i++) {
				m = norm(q[i]); if (m in seen) continue; seen[m] = 1; print m
				k = split(dep[m], d, " "); for (j = 1; j <= k; j++) q[++n] = d[j]
			}
		}' "$T/$name.x/lib/modules/$ver/modules.dep" "$T/$name.x/lib/modules/$ver/modules.softdep" |
		sort | tr '\n' ' ')
	plain=$(tools/initramfs-cat "$a" | cpio -it --quiet |
		sed -n 's|^lib/modules/[^/]*/kernel/.*/\([^/]*\)\.ko$|\1|p' | tr - _ | sort | tr '\n' ' ')
	if [ "$plain" = "$want" ] && grep -q "^lib/modules/$ver/kernel/.*/f2fs\.ko$" "$T/$name.list" &&
		file -b "$T/$name.x/lib/modules/$ver/modules.pack" | grep -q "^Squashfs filesystem.* $pack compressed"; then
		pass "$name-packs-its-modules ($pack squashfs; outside: $plain)"
	else
		fail "$name-packs-its-modules" "outside the pack: ${plain:-none}; want: $want; pack: $(file -b "$T/$name.x/lib/modules/$ver/modules.pack" 2>&1)"
	fi
}

check_archive() { # NAME ARCHIVE
	local name=$1 a=$2 list ver dep missing=0
	list=$T/$name.list
	# with a board's module pack, the modules in it are listed too
	if ! tools/initramfs-ls "$a" >"$list" 2>"$T/cpio.err"; then
		fail "$name-lists" "listing it failed: $(head -n1 "$T/cpio.err")"
		return
	fi
	ver=$(cat "$B/kernel/amd64/version")
	for f in init etc/unionroot.conf etc/unionroot/modules dev/console dev/null \
		newroot "lib/modules/$ver/modules.dep" "lib/modules/$ver/modules.softdep" \
		"lib/modules/$ver/modules.builtin"; do
		grep -qxF "$f" "$list" || { fail "$name-has-$f" "not in $a"; missing=1; }
	done
	for m in ext4 jbd2 mbcache crc16; do
		grep -q "/$m\.ko$" "$list" || { fail "$name-has-$m" "$m.ko not in $a"; missing=1; }
	done
	grep -qE '/crc32c(_generic|-intel)\.ko$' "$list" ||
		{ fail "$name-has-crc32c" "no crc32c implementation in $a"; missing=1; }
	[ "$missing" = 0 ] && pass "$name-has-init-ext4-and-its-dependencies"
	[ "$name" = initramfs ] && check_tools "$list"

	mkdir -p "$T/$name.x"
	(cd "$T/$name.x" && "$ROOT_DIR/tools/initramfs-cat" "$a" | cpio -id --quiet "lib/modules/$ver/modules.*")
	dep=$T/$name.x/lib/modules/$ver/modules.dep
	missing=0
	for f in $(tr -d ':' <"$dep"); do
		grep -qxF "lib/modules/$ver/$f" "$list" ||
			{ fail "$name-modules-dep" "modules.dep names $f, not in the archive"; missing=1; }
	done
	[ "$missing" = 0 ] && pass "$name-modules-dep-names-only-included-files"
	check_pack "$name" "$a" "$ver"
	check_aliases "$name" "$T/$name.x/lib/modules/$ver/modules.alias" "$list"
	if grep -q '^softdep ext4 pre: .*crc32c' "$T/$name.x/lib/modules/$ver/modules.softdep" &&
		! grep -q 'crypto-' "$T/$name.x/lib/modules/$ver/modules.softdep"; then
		pass "$name-softdep-aliases-resolved"
	else
		fail "$name-softdep-aliases-resolved" "modules.softdep: $(tr '\n' ';' <"$T/$name.x/lib/modules/$ver/modules.softdep")"
	fi
}

build_twice() { # NAME FILE [mkinitramfs options]
	local name=$1 file=$2
	shift 2
	for b in b1 b2; do
		if ! TMPDIR=$T tools/mkinitramfs "$BOARD" "$T/$b" "$@" >"$T/$b.log" 2>&1; then
			fail "$name-builds" "$(tail -n1 "$T/$b.log")"
			return
		fi
		sleep 1 # different mtimes for everything staged
	done
	if cmp -s "$T/b1/$BOARD/$file" "$T/b2/$BOARD/$file"; then
		pass "$name-reproducible"
	else
		fail "$name-reproducible" "two builds of $file differ"
	fi
	check_archive "$name" "$T/b1/$BOARD/$file"
}

if [ -x "$B/unionroot" ]; then
	build_twice initramfs initramfs.cpio.gz
else
	skip initramfs "$B/unionroot not built"
fi
build_twice initramfs-baseline initramfs-baseline.cpio.gz --init tests/bench/baseline-init baseline \
	--only tests/bench/boot-modules --busybox
