#!/bin/bash
# SPDX-License-Identifier: MIT
# The driver pool's one bound (no root, no fetched kernel): PID 1 reads each
# module index into memory of its size, up to INDEX_MAX in init/modules.c.
# tools/mkinitramfs, run on a kernel of a few made-up modules, builds a pool
# of 5000 aliases (more than any fixed table PID 1 had) and refuses one
# whose modules.alias is over the bound, in one line that names the file and
# the bound; its bound is PID 1's.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
set -u
cd "$ROOT_DIR" || exit 2
for t in gcc depmod modprobe cpio; do
	if ! PATH=$PATH:/usr/sbin:/sbin command -v "$t" >/dev/null; then
		skip modpool "$t not installed"
		exit 0
	fi
done
export PATH=$PATH:/usr/sbin:/sbin
scratch modpool
if ! make --no-print-directory -s BUILD="$BUILD" "$BUILD/host/mkcpio" >"$T/make.log" 2>&1; then
	fail "modpool: mkcpio builds" "$(tail -n1 "$T/make.log")"
	exit 1
fi

# the bound in both places
c=$(sed -n 's/^#define INDEX_MAX (\([0-9]*\) << 20)$/\1/p' init/modules.c)
# shellcheck disable=SC2016 # the script's text, not an expansion
sh=$(sed -n 's/^INDEX_MAX=\$((\([0-9]*\) << 20))$/\1/p' tools/mkinitramfs)
if [ -n "$c" ] && [ "$c" = "$sh" ]; then
	pass "modpool: tools/mkinitramfs refuses at PID 1's bound ($c MiB)"
else
	fail "modpool: tools/mkinitramfs refuses at PID 1's bound" \
		"INDEX_MAX is '${c:-?}' MiB in init/modules.c, '${sh:-?}' MiB in tools/mkinitramfs"
fi

# A kernel of three modules, each declaring one alias, as depmod indexes it.
VER=6.1.0-pool
K=$T/kernel/lib/modules/$VER
mkdir -p "$K/kernel/drivers/net"
for i in 0 1 2; do
	printf '__attribute__((section(".modinfo"), used)) static const char a[] = "alias=pci:v00008086d0000%04Xsv*sd*bc*sc*i*";\n' "$i" >"$T/m.c"
	gcc -c "$T/m.c" -o "$K/kernel/drivers/net/nic$i.ko" || { fail "modpool: a module builds" "gcc failed"; exit 1; }
done
depmod -b "$T/kernel" "$VER" 2>/dev/null

# A project tree of this script, with a board that carries the three.
R=$T/root
mkdir -p "$R/tools" "$R/board/pool" "$T/build/host"
cp tools/mkinitramfs "$R/tools/"
: >"$R/board/pool/build.conf"
: >"$R/board/pool/board.conf"
: >"$R/board/pool/modules"
echo 'nic*' >"$R/board/pool/drivers"
ln -s "$ROOT_DIR/$BUILD/host/mkcpio" "$T/build/host/mkcpio"
printf '#!/bin/sh\n' >"$T/build/unionroot"
chmod +x "$T/build/unionroot"

# aliases N: modules.alias with N lines, the last naming nic2
aliases() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "alias pci:v00001AF4d%08Xsv*sd*bc*sc*i* nic%d\n", i, i == n - 1 ? 2 : i % 3 }' \
		>"$K/modules.alias"
}

aliases 5000
if TMPDIR=$T "$R/tools/mkinitramfs" pool "$T/build" --modules "$T/kernel" >"$T/ok.out" 2>"$T/ok.err"; then
	gzip -dc "$T/build/pool/initramfs.cpio.gz" | (cd "$T" && mkdir x && cd x && cpio -id --quiet "lib/modules/$VER/modules.alias")
	n=$(wc -l <"$T/x/lib/modules/$VER/modules.alias")
	if [ "$n" = 5000 ] && tail -n1 "$T/x/lib/modules/$VER/modules.alias" | grep -q ' nic2$'; then
		pass "modpool: a pool of 5000 aliases is built whole ($(stat -c %s "$K/modules.alias") bytes)"
	else
		fail "modpool: a pool of 5000 aliases is built whole" "the archive's modules.alias has $n lines"
	fi
else
	fail "modpool: a pool of 5000 aliases is built" "$(tail -n1 "$T/ok.err")"
fi

# 17 MiB of aliases, all of carried modules: over the bound after pruning
aliases 400000
if TMPDIR=$T "$R/tools/mkinitramfs" pool "$T/build" --modules "$T/kernel" >"$T/big.out" 2>"$T/big.err"; then
	fail "modpool: a modules.alias over the bound is refused" "it was built: $(tail -n1 "$T/big.out")"
else
	expect "modpool: a modules.alias over the bound is refused, by name and bound" "$T/big.err" \
		"^mkinitramfs: lib/modules/$VER/modules\.alias is [0-9]+ bytes, over the 16 MiB a boot reads"
	n=$(wc -l <"$T/big.err")
	if [ "$n" = 1 ]; then
		pass "modpool: the refusal is one line"
	else
		fail "modpool: the refusal is one line" "$n lines: $(head -c 300 "$T/big.err")"
	fi
fi
