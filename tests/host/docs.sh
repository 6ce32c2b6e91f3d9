#!/bin/bash
# SPDX-License-Identifier: MIT
# The documents hold to the code (no root needed): the README stays short and
# its table of documents names files that exist, every file of doc/ is in
# that table, and what a document shows is real: each union.* parameter is
# one the configuration parser knows, each `unionroot COMMAND` a command of
# the tool, each `make TARGET` a target of the Makefile, each path of the
# tree a file or folder that exists, each "section" it points to a heading
# of that document, and each command line it shows parses whole. The bench's writer puts a results table between the
# marks of doc/measurements.md and leaves the rest as it was.
# shellcheck disable=SC2016 # Markdown backticks, not commands
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
scratch docs
DOCS=(README.md doc/*.md)
MANS=(doc/*.[1-8])

# 1. The README: at most 300 lines, and its table of documents.
n=$(wc -l <README.md)
if [ "$n" -le 300 ]; then
	pass "docs: README.md is $n lines, at most 300"
else
	fail "docs: README.md is at most 300 lines" "$n lines: move the detail into doc/"
fi
# the rows of the table under "## Documents": | [doc/x](doc/x) | for |
sed -n '/^## Documents$/,/^## /p' README.md | sed -n 's/^| \[\([^]]*\)\](\([^)]*\)) |.*/\1 \2/p' >"$T/listed"
bad=
while read -r name link; do
	[ "$name" = "$link" ] || bad="$bad [$name links to $link]"
	[ -f "$link" ] || bad="$bad [$link does not exist]"
done <"$T/listed"
if [ -s "$T/listed" ] && [ -z "$bad" ]; then
	pass "docs: every document of the README's table exists ($(wc -l <"$T/listed"))"
else
	fail "docs: every document of the README's table exists" "${bad:- no table under '## Documents'}"
fi
unlisted=
for f in doc/*; do
	grep -q "^$f " "$T/listed" || unlisted="$unlisted $f"
done
if [ -z "$unlisted" ]; then
	pass "docs: every file of doc/ is in the README's table"
else
	fail "docs: every file of doc/ is in the README's table" "not listed:$unlisted"
fi

# 2. union.* parameters: every one a document names, the parser knows.
sed -n 's/^\t[A-Z]*("\(union\.[a-z.]*\)".*/\1/p; s/^\t{ "\(union\.[a-z.]*\)".*/\1/p' unionroot/conf/config.c |
	sort -u >"$T/params"
# a name not inside a path or a file name (init/union.c is a file)
grep -ohE '(^|[^a-z_/.-])union\.[a-z]+(\.[a-z]+)*' "${DOCS[@]}" "${MANS[@]}" |
	sed 's/^.*\(union\.\)/\1/' | grep -vxE 'union\.[ch]' | sort -u >"$T/named"
# a family's name (union.test.NAME) is known when a parameter is in it
while read -r p; do
	grep -qxF "$p" "$T/params" || grep -qF "$p." "$T/params" || echo "$p"
done <"$T/named" >"$T/unknown"
if [ "$(wc -l <"$T/params")" -ge 20 ] && [ ! -s "$T/unknown" ]; then
	pass "docs: every union.* parameter the documents name is parsed ($(wc -l <"$T/named") names)"
else
	fail "docs: every union.* parameter the documents name is parsed" "unknown: $(tr '\n' ' ' <"$T/unknown")"
fi

# 3. unionroot COMMAND: in `code`, at the start of a code line, or in a man
# page's bold text; every one is in the command table (or is help).
{
	sed -n 's/^\t{ "\([a-z-]*\)", cmd_.*/\1/p' unionroot/cmd/cli.c
	echo help
} | sort -u >"$T/commands"
{
	grep -ohE '`unionroot [a-z][a-z-]*' "${DOCS[@]}" | cut -d' ' -f2
	awk '/^```/ { code = !code; next } code && /^unionroot [a-z]/ { print $2 }' "${DOCS[@]}"
	sed -n 's/\\-/-/g; s/^\.B[IR]* "\{0,1\}unionroot \([a-z][a-z-]*\).*/\1/p' "${MANS[@]}"
} | sort -u >"$T/shown"
comm -23 "$T/shown" "$T/commands" >"$T/unknown"
if grep -qx reset "$T/shown" && [ ! -s "$T/unknown" ]; then
	pass "docs: every 'unionroot COMMAND' shown is a command ($(tr '\n' ' ' <"$T/shown"))"
else
	fail "docs: every 'unionroot COMMAND' shown is a command" "unknown: $(tr '\n' ' ' <"$T/unknown")"
fi

# 4. make TARGET, in `code` or a code line: a target of the Makefile; a
# kernel tree's own targets (make -C, tinyconfig, ...) aside.
sed -n 's/^\.PHONY: *//p' Makefile | tr ' ' '\n' | grep . | sort -u >"$T/targets"
{
	grep -ohE '`make [^`]*`' "${DOCS[@]}" | tr -d '`'
	awk '/^```/ { code = !code; next } code && /^make / { print }' "${DOCS[@]}"
} | sed "s/'[^']*'//g" | awk '{ for (i = 2; i <= NF; i++) { if ($i ~ /^#/) break; if ($i ~ /^[a-z][a-z-]*$/) print $i } }' |
	grep -vxE 'olddefconfig|tinyconfig|modules_install' | sort -u >"$T/made"
comm -23 "$T/made" "$T/targets" >"$T/unknown"
if grep -qx check "$T/made" && [ ! -s "$T/unknown" ]; then
	pass "docs: every 'make TARGET' shown is a Makefile target ($(tr '\n' ' ' <"$T/made"))"
else
	fail "docs: every 'make TARGET' shown is a Makefile target" "unknown: $(tr '\n' ' ' <"$T/unknown")"
fi

# 5. Paths of the tree in `code`: each exists (placeholders in capitals,
# <...>, globs and $VARIABLES aside).
grep -ohE '`(init|unionroot|tests|tools|board|configs|doc|\.ci)/[^` ]*' "${DOCS[@]}" | tr -d '`' |
	sed 's/[,;:.)]*$//' | grep -vE '[A-Z*<>$…]|\[' | sort -u >"$T/paths"
while read -r p; do [ -e "$p" ] || echo "$p"; done <"$T/paths" >"$T/missing"
if [ -s "$T/paths" ] && [ ! -s "$T/missing" ]; then
	pass "docs: every path of the tree the documents name exists ($(wc -l <"$T/paths"))"
else
	fail "docs: every path of the tree the documents name exists" "missing: $(tr '\n' ' ' <"$T/missing")"
fi

# 6. '"Section" in `file.md`' and '`doc/file.md` ("Section")': a heading of
# that document.
bad=
for d in "${DOCS[@]}"; do
	grep -ohE '"[^"]+" in `[a-zA-Z/_.-]+\.md`|`[a-zA-Z/_.-]+\.md` \("[^"]+"\)' "$d" |
		sed -E 's/^"([^"]+)" in `([^`]+)`$/\2\t\1/; s/^`([^`]+)` \("([^"]+)"\)$/\1\t\2/'
done | sort -u >"$T/refs"
while IFS=$'\t' read -r file section; do
	f=$file
	[ -f "$f" ] || f=doc/$(basename "$file")
	if [ ! -f "$f" ]; then
		bad="$bad [$file: no such document]"
	elif ! grep -qxE "#+ $(printf '%s' "$section" | sed 's/[][\.*^$()+?{}|]/\\&/g')" "$f"; then
		bad="$bad [$file has no section \"$section\"]"
	fi
done <"$T/refs"
if [ -s "$T/refs" ] && [ -z "$bad" ]; then
	pass "docs: every section a document points to is a heading there ($(wc -l <"$T/refs"))"
else
	fail "docs: every section a document points to is a heading there" "${bad:- no reference found}"
fi

# 7. Every command line a document shows in a code block (the lines whose
# first word is a union.* parameter, comments cut) is one the parser takes
# whole: 'unionroot plan LINE' ignores none of its parameters.
{
	awk '/^```/ { code = !code; next } code && /^union\./ { sub(/[[:space:]]*#.*/, ""); print }' "${DOCS[@]}"
	awk '/^\.EX/ { code = 1; next } /^\.EE/ { code = 0 } code && $1 ~ /^union\./' "${MANS[@]}"
} | sort -u >"$T/lines"
if [ ! -x "$BUILD/unionroot" ]; then
	skip "docs: every command line shown is parsed whole" "no $BUILD/unionroot (make all)"
else
	bad=
	while read -r line; do
		# shellcheck disable=SC2086 # the line's words are the parameters
		if "$BUILD/unionroot" plan $line 2>&1 | grep -q 'ignoring union\.'; then
			bad="$bad [$line: $("$BUILD/unionroot" plan $line 2>&1 | grep -m1 'ignoring union\.')]"
		fi
	done <"$T/lines"
	if [ -s "$T/lines" ] && [ -z "$bad" ]; then
		pass "docs: every command line shown is parsed whole ($(wc -l <"$T/lines") lines)"
	else
		fail "docs: every command line shown is parsed whole" "${bad:- no command line found}"
	fi
fi

# 8. The bench's writer: a fake run's table replaces the block between the
# marks of a copy of doc/measurements.md; the rest stays byte for byte.
cp doc/measurements.md "$T/m.md"
cat >"$T/results.md" <<'EOF'
# unionroot bench

Measured 2026-01-01 at commit 0000000: fake board, 1 boots of each contender alternating, medians of the guest's clocks, 1 cores.

| measure | unionroot | busybox sh /init | limit | Debian initramfs-tools + live-boot |
| --- | ---: | ---: | ---: | ---: |
| squashfs + ext4: kernel start to the real init (s) | 9.99 (3.33× the limit) | 6.00 (2.00×) | 3.00 | |

Load average at the end: 0.00 0.00 0.00.
EOF
outside() { sed '/^<!-- bench:begin -->$/,/^<!-- bench:end -->$/d' "$1"; }
if tests/bench/to-doc "$T/results.md" "$T/m.md" >"$T/to-doc.log" 2>&1 &&
	sed -n '/^<!-- bench:begin -->$/,/^<!-- bench:end -->$/p' "$T/m.md" >"$T/block" &&
	grep -q '^Measured 2026-01-01 at commit 0000000' "$T/block" &&
	grep -q '^| squashfs + ext4: kernel start to the real init (s) | 9.99 ' "$T/block" &&
	[ "$(grep -c '^| ' "$T/block")" = 3 ] &&
	! grep -q 'Load average' "$T/block" &&
	cmp -s <(outside doc/measurements.md) <(outside "$T/m.md"); then
	pass "docs: make bench's writer puts its table between the marks of doc/measurements.md, the rest untouched"
else
	fail "docs: make bench's writer puts its table between the marks" "$(cat "$T/to-doc.log"; diff <(outside doc/measurements.md) <(outside "$T/m.md") | head -5)"
fi
