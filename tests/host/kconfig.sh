#!/bin/bash
# SPDX-License-Identifier: MIT
# configs/*.config versus the real thing: each fragment is merged into the
# config Debian built its kernel with (the way scripts/kconfig/merge_config.sh
# does: the fragment's symbols replace the base's, then "conf --olddefconfig"
# of the matching linux-source and linux-kbuild packages resolves the
# dependencies). Every line of the fragment must survive the resolution, and
# every module the x86 boards carry (with what modules.dep pulls in) must come
# out built in. No root needed; the source is fetched from Debian's archive.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
scratch kconfig
KDIR=$BUILD/kernel/amd64

if ! SRC=$(tools/fetch-kernel-source "$BUILD" amd64 2>"$T/fetch.log"); then
	fail "kconfig: the kernel source" "tools/fetch-kernel-source failed: $(tail -2 "$T/fetch.log")"
	exit 0
fi
VER=$(cat "$KDIR/version")
BASE=$KDIR/boot/config-$VER

# merge OUT FRAGMENT...: BASE with the fragments' symbols replaced, resolved.
merge() {
	local out=$1
	shift
	sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=.*/\1/p; s/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1/p' "$@" |
		sed 's/.*/^(# )?&[= ]/' >"$T/symbols"
	grep -Evf "$T/symbols" "$BASE" >"$out"
	grep -Eh '^(CONFIG_|# CONFIG_)' "$@" >>"$out"
	(cd "$SRC" && env srctree=. SRCARCH=x86 ARCH=x86 KERNELVERSION="${VER%%-*}" \
		CC=gcc LD=ld HOSTCC=gcc CC_VERSION_TEXT="$(gcc --version | head -n1)" \
		KCONFIG_CONFIG="$out" ./conf.bin --olddefconfig Kconfig) >"$T/conf.log" 2>&1
}

# survives NAME OUT FRAGMENT...: every fragment line is in the resolved config.
survives() {
	local name=$1 out=$2 lost
	shift 2
	lost=$(grep -Eh '^(CONFIG_|# CONFIG_)' "$@" | grep -Fxvf "$out")
	if [ -n "$lost" ]; then
		fail "$name" "dropped by the dependency resolution: $(echo "$lost" | tr '\n' ' ')"
	else
		pass "$name ($(cat "$@" | grep -Ec "^(CONFIG_|# CONFIG_)") lines kept)"
	fi
}

if merge "$T/builtin.config" configs/unionroot.config; then
	survives "kconfig: unionroot.config merges cleanly into Debian's $VER config" \
		"$T/builtin.config" configs/unionroot.config
else
	fail "kconfig: conf --olddefconfig" "$(tail -3 "$T/conf.log")"
fi
if merge "$T/rescue.config" configs/unionroot.config configs/rescue.config; then
	survives "kconfig: rescue.config merges cleanly on top" "$T/rescue.config" \
		configs/unionroot.config configs/rescue.config
else
	fail "kconfig: conf --olddefconfig with rescue.config" "$(tail -3 "$T/conf.log")"
fi

# The modules of the x86 boards and their modules.dep closure, as paths.
MODDIR=$KDIR/lib/modules/$VER
grep -hv '^#' board/qemu-x86_64/modules board/qemu-x86_64-flash/modules |
	awk '{ print $1 }' | grep . | sort -u >"$T/wanted"
awk -v list="$T/wanted" '
	BEGIN { while ((getline m < list) > 0) { gsub(/-/, "_", m); want[m] = 1 } }
	{
		sub(/:$/, "", $1); n = $1; sub(/.*\//, "", n); sub(/\.ko.*/, "", n); gsub(/-/, "_", n)
		if (n in want) for (i = 1; i <= NF; i++) { sub(/:$/, "", $i); print $i }
	}' "$MODDIR/modules.dep" | sort -u >"$T/paths"

# symbol_of PATH: the CONFIG_ symbol whose obj- line in that directory's
# Makefile (or Kbuild) builds the module.
symbol_of() {
	local dir name
	dir=$(dirname "${1#kernel/}")
	name=$(basename "$1" | sed 's/\.ko.*//')
	cat "$SRC/$dir/Makefile" "$SRC/$dir/Kbuild" 2>/dev/null |
		awk -v o="$name.o" '
			/\\$/ { sub(/\\$/, ""); line = line $0 " "; next }
			{ line = line $0
			  if (match(line, /^obj-\$\(CONFIG_[A-Za-z0-9_]+\)/))
				for (i = 2; i <= split(line, w, /[ \t]+/); i++) if (w[i] == o) {
					print substr(line, 7, RLENGTH - 7); exit }
			  line = "" }'
}

unmapped='' notbuiltin='' wasmod=0 n=0
while read -r p; do
	n=$((n + 1))
	s=$(symbol_of "$p")
	if [ -z "$s" ]; then
		unmapped="$unmapped $p"
		continue
	fi
	grep -qx "$s=m" "$BASE" && wasmod=$((wasmod + 1))
	grep -qx "$s=y" "$T/builtin.config" || notbuiltin="$notbuiltin $s($(basename "$p"))"
done <"$T/paths"
if [ "$n" -lt 20 ] || [ -n "$unmapped" ]; then
	fail "kconfig: the boards' modules map to config symbols" "$n modules; no obj- line for:$unmapped"
elif [ "$wasmod" -lt "$n" ]; then
	fail "kconfig: the boards' modules map to config symbols" "only $wasmod of $n are =m in Debian's config"
elif [ -n "$notbuiltin" ]; then
	fail "kconfig: every module the x86 boards carry is built in" "still modules:$notbuiltin"
else
	pass "kconfig: every module the x86 boards carry ($n, modules in Debian's config) is built in"
fi
