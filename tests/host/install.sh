#!/bin/bash
# SPDX-License-Identifier: MIT
# make install and the man pages: the files land under DESTDIR/PREFIX with
# the right modes, the installed tool runs, both pages render without a
# warning and name each other, unionroot(8) documents every command the tool
# offers and unionroot.cmdline(7) every parameter the configuration parser
# accepts (no root needed).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
scratch install
BIN=$BUILD/unionroot
MAN=doc/unionroot.8
MAN7=doc/unionroot.cmdline.7

if make --no-print-directory -s install BUILD="$BUILD" DESTDIR="$T/dest" PREFIX=/opt/ur >"$T/make.log" 2>&1 &&
	[ "$(stat -c %a "$T/dest/opt/ur/sbin/unionroot")" = 755 ] &&
	[ "$(stat -c %a "$T/dest/opt/ur/share/man/man8/unionroot.8")" = 644 ] &&
	[ "$(stat -c %a "$T/dest/opt/ur/share/man/man7/unionroot.cmdline.7")" = 644 ] &&
	cmp -s "$BIN" "$T/dest/opt/ur/sbin/unionroot" &&
	cmp -s "$MAN7" "$T/dest/opt/ur/share/man/man7/unionroot.cmdline.7"; then
	pass "install: binary (0755) and both man pages (0644) under DESTDIR/PREFIX"
else
	fail "install: files under DESTDIR/PREFIX" "$(tail -3 "$T/make.log"; find "$T/dest" -printf '%m %p\n' 2>/dev/null)"
fi
if "$T/dest/opt/ur/sbin/unionroot" --version 2>&1 | grep -q '^unionroot [0-9]'; then
	pass "install: the installed tool runs"
else
	fail "install: the installed tool runs" "--version printed no version"
fi

# renders PAGE SECTION: no groff warning, and the page has that section
renders() {
	local warn
	warn=$(LC_ALL=C.UTF-8 groff -t -man -ww -z "$1" 2>&1) # -t: tbl, as man runs it for a '\" t page
	if [ -z "$warn" ] && LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$1" 2>/dev/null | grep -q "^$2"; then
		pass "man: $1 renders with no groff warning"
	else
		fail "man: $1 renders with no groff warning" "${warn:-no $2 section in the output}"
	fi
}
renders "$MAN" COMMANDS
renders "$MAN7" PARAMETERS
# each page's SEE ALSO names the other
if sed -n '/^\.SH SEE ALSO/,$p' "$MAN" | grep -q '^\.BR unionroot\.cmdline (7)' &&
	sed -n '/^\.SH SEE ALSO/,$p' "$MAN7" | grep -q '^\.BR unionroot (8)'; then
	pass "man: unionroot(8) and unionroot.cmdline(7) name each other in SEE ALSO"
else
	fail "man: the two pages name each other in SEE ALSO" "see the SEE ALSO of $MAN and $MAN7"
fi

# Every command of --help: described in the page, and "help CMD" answers.
cmds=$("$BIN" --help | sed -n 's/^  unionroot \([a-z][a-z-]*\).*/\1/p' | grep -v '^help$')
missing=
for c in $cmds; do
	"$BIN" help "$c" >/dev/null 2>&1 || missing="$missing help-$c"
	awk '/^\.SH COMMANDS/ { on = 1; next } /^\.SH/ { on = 0 } on && /^\.B[IR]* / { gsub(/\\-/, "-", $2); print $2 }' "$MAN" |
		grep -qx "$c" || missing="$missing $c"
done
if [ -n "$cmds" ] && [ -z "$missing" ]; then
	pass "man: documents every command ($(echo "$cmds" | tr "\n" " "))"
else
	fail "man: documents every command" "missing:${missing:- (no command found in --help)}"
fi

# A usage error prints the very usage line "help CMD" prints: one text each.
bad=
for c in status reset diff boot-ok copyup probe; do
	want=$("$BIN" help "$c" | head -1)
	if [ "$c" = probe ]; then
		got=$("$BIN" probe 2>&1 >/dev/null)
	else
		got=$("$BIN" "$c" --no-such-option 2>&1 >/dev/null)
	fi
	rc=$?
	{ [ "$rc" = 2 ] && [ "${got#*; }" = "$want" ]; } || bad="$bad [$c: exit $rc, '$got' versus '$want']"
done
if [ -z "$bad" ] && [ -n "$want" ]; then
	pass "cli: a command's usage error names the usage its help gives"
else
	fail "cli: usage errors match the help" "$bad"
fi

# Every parameter the parser knows (tests-only ones aside), and every one of
# the README's table, has its entry in unionroot.cmdline(7).
params=$( (sed -n 's/^\t[A-Z]*("\(union\.[a-z.]*\)".*/\1/p; s/^\t{ "\(union\.[a-z.]*\)".*/\1/p' unionroot/conf/config.c
	sed -n 's/^| `\(union\.[a-z.]*\).*/\1/p' README.md) | grep -v '^union\.test\.' | sort -u)
missing=
for p in $params; do
	grep -q "^\.B[IR]* *${p//./\\.}" "$MAN7" || missing="$missing $p"
done
if [ "$(echo "$params" | wc -w)" -ge 20 ] && [ -z "$missing" ]; then
	pass "man: unionroot.cmdline(7) documents every union.* parameter ($(echo "$params" | wc -w))"
else
	fail "man: unionroot.cmdline(7) documents every union.* parameter" "missing:${missing:- (found only: $params)}"
fi
