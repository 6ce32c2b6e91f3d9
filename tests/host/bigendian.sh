#!/bin/bash
# SPDX-License-Identifier: MIT
# Big-endian (no root needed): the unit tests (unit-tests, unit-init) and
# every fuzz target's corpus, built for s390x by Debian's cross compiler
# (make bigendian) and run under qemu-user. The unit tests assert the values
# read from superblocks, partition tables, UBI and MTD headers, the manifest
# and the state files, so passing them on s390x shows the on-disk formats
# are read alike on either byte order; the corpus replay runs each parser's
# own checks over its inputs. SKIP when the cross compiler or qemu-user is
# missing (tools/packages: gcc-s390x-linux-gnu, libc6-dev-s390x-cross,
# qemu-user-static); any failed case fails. Then the program itself, built
# for s390x, probes the images of probe-vs-blkid.sh.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
scratch bigendian
need_tools bigendian s390x-linux-gnu-gcc || exit 0
QEMU=$(command -v qemu-s390x-static || command -v qemu-s390x) ||
	{ skip bigendian "qemu-s390x-static not installed (tools/packages: qemu-user-static)"; exit 0; }
BE=$BUILD/s390x/host
start=$(date +%s)

if ! make --no-print-directory -s -j"$(nproc)" BUILD="$BUILD" bigendian >"$T/make.log" 2>&1; then
	fail "bigendian: the s390x build (make bigendian)" "$(tail -3 "$T/make.log")"
	exit 1
fi
if ! file -L "$BE/unit-tests" | grep -q 'MSB executable'; then
	fail "bigendian: the unit tests are a big-endian program" "$(file -L "$BE/unit-tests")"
	exit 1
fi

foreign_units "$QEMU" "$BE" "bigendian: s390x"

# the corpus in the tree, and the one the fuzz group grew (BUILD/fuzz/)
for src in tests/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c)
	dirs=("tests/fuzz/corpus/$t")
	[ -d "$BUILD/fuzz/corpus-$t" ] && dirs+=("$BUILD/fuzz/corpus-$t")
	if "$QEMU" "$BE/fuzz-replay/$t" "${dirs[@]}" >"$T/$t.out" 2>&1; then
		n=$(sed -n 's/^replayed \([0-9]*\) inputs$/\1/p' "$T/$t.out")
		if [ "${n:-0}" -gt 0 ]; then
			pass "bigendian: s390x fuzz/$t replays its corpus ($n inputs)"
		else
			fail "bigendian: s390x fuzz/$t replays its corpus" "no input replayed: $(tail -2 "$T/$t.out")"
		fi
	else
		fail "bigendian: s390x fuzz/$t replays its corpus" "an input failed its checks (exit $?): $(tail -2 "$T/$t.out")"
	fi
done
# the program itself, built for s390x with glibc by the same cross compiler
# (make LIBC=glibc CC=...: static, as that libc has no static-pie), probes
# the images of probe-vs-blkid.sh under qemu-user: the same TYPE, UUID and
# LABEL as blkid, the same partitions as sfdisk
PROG=$BUILD/s390x/prog/unionroot
if ! make --no-print-directory -s -j"$(nproc)" LIBC=glibc CC=s390x-linux-gnu-gcc \
	BUILD="$BUILD/s390x/prog" "$PROG" >"$T/make-prog.log" 2>&1; then
	fail "bigendian: the s390x program (make LIBC=glibc CC=s390x-linux-gnu-gcc)" "$(tail -3 "$T/make-prog.log")"
else
	printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$QEMU" "$(realpath "$PROG")" >"$T/unionroot-s390x"
	chmod +x "$T/unionroot-s390x"
	"$T/unionroot-s390x" --version >"$T/version" 2>&1
	expect "bigendian: the s390x program runs ($(file -L "$PROG" | grep -o 'MSB [a-z]*'))" "$T/version" '^unionroot [0-9]'
	UR_BIN=$T/unionroot-s390x bash tests/host/probe-vs-blkid.sh >"$T/probe.out" 2>&1
	sed -nE 's/^(PASS|FAIL|SKIP) /\1 bigendian: s390x /p' "$T/probe.out"
	n=$(grep -c '^PASS ' "$T/probe.out")
	[ "$n" -ge 10 ] || fail "bigendian: the s390x program probes the images" "$n passed: $(tail -3 "$T/probe.out" | tr '\n' ' ')"
fi
echo "bigendian: $(( $(date +%s) - start )) s"
