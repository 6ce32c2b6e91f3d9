#!/bin/bash
# SPDX-License-Identifier: MIT
# A vendor's musl toolchain (make LIBC=musl CC=...-linux-musl-gcc; no root
# needed): a compiler whose own target is musl is taken as it is, with no
# Debian specs and no private kernel headers on its command line. The
# stand-in toolchain is Debian's gcc and musl behind a driver that says it
# targets x86_64-linux-musl, as a vendor's does, and refuses -specs; built
# from the same compiler and libc, the program must be the Debian build's,
# byte for byte, and record itself as musl.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
scratch musl-toolchain
need_tools musl-toolchain gcc || exit 0
MUSL=$BUILD/unionroot
if [ ! -x "$MUSL" ] || [ ! -f "$BUILD/musl-static-pie.specs" ] || [ ! -d "$BUILD/uapi" ]; then
	skip musl-toolchain "$MUSL or its specs missing (make)"
	exit 0
fi
# the driver carries what a musl toolchain has built in: its start files
# and libc (the specs), and its kernel headers
CC=$T/x86_64-linux-musl-gcc
cat >"$CC" <<EOF
#!/bin/sh
[ "\$1" = -dumpmachine ] && { echo x86_64-linux-musl; exit 0; }
for a; do case \$a in -specs*) echo "x86_64-linux-musl-gcc: no -specs for a native toolchain" >&2; exit 1 ;; esac; done
exec gcc -specs "$ROOT_DIR/$BUILD/musl-static-pie.specs" -isystem "$ROOT_DIR/$BUILD/uapi" "\$@"
EOF
chmod +x "$CC"
if ! make --no-print-directory -j2 V=1 LIBC=musl CC="$CC" BUILD="$T/b" "$T/b/unionroot" >"$T/make.log" 2>&1; then
	fail "musl-toolchain: make LIBC=musl CC=x86_64-linux-musl-gcc builds the program" "$(grep -m1 -e error -e 'no -specs' "$T/make.log")"
	exit 1
fi
pass "musl-toolchain: make LIBC=musl CC=x86_64-linux-musl-gcc builds the program, no -specs added"
expect_not "musl-toolchain: no private kernel headers on its command line" "$T/make.log" "isystem $T/b/uapi"
expect "musl-toolchain: it records itself as a musl static-pie build" "$T/b/unionroot.libc" '^musl -static-pie$'
if cmp -s "$T/b/unionroot" "$MUSL"; then
	pass "musl-toolchain: the same compiler and libc make the Debian build's binary, byte for byte"
else
	fail "musl-toolchain: the same compiler and libc make the Debian build's binary" \
		"$(stat -c %s "$T/b/unionroot") bytes versus $(stat -c %s "$MUSL")"
fi
