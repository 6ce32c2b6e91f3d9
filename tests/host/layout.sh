#!/bin/bash
# SPDX-License-Identifier: MIT
# doc/HACKING.md's layout section is the tree (no root needed): every file
# under init/ and unionroot/ has its line there, every line names a file or folder
# that exists, and every unit test file test_X.c is named after a module X.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
scratch layout

# The section's block: a name at 2 spaces per level, folders end in "/",
# "x.[ch]" is x.c and x.h; deeper-indented lines continue a description.
# shellcheck disable=SC2016 # Markdown backticks, not a command
sed -n '/^## Layout/,/^## /p' doc/HACKING.md | sed -n '/^```/,/^```/p' | awk '
	/^```/ { next }
	{
		match($0, /^ */); depth = RLENGTH / 2
		if (RLENGTH % 2 || depth > 3 || $1 == "") next
		path = ""
		for (i = 0; i < depth; i++) path = path dir[i]
		if ($1 ~ /\/$/) { dir[depth] = $1; print path $1; next }
		if ($1 ~ /\.\[ch\]$/) { sub(/\[ch\]$/, "", $1); print path $1 "c"; print path $1 "h"; next }
		print path $1
	}' | sort >"$T/listed"
find init unionroot -type f | sort >"$T/files"
grep -v '/$' "$T/listed" | grep -E '^(init|unionroot)/' >"$T/listed-files"

expect "layout: doc/HACKING.md lists unionroot/'s folders" "$T/listed" '^unionroot/lib/$'
comm -23 "$T/files" "$T/listed-files" >"$T/unlisted"
expect_not "layout: every file under init/ and unionroot/ has its line in doc/HACKING.md" "$T/unlisted" . \
	"not in doc/HACKING.md's layout: $(tr '\n' ' ' <"$T/unlisted")"
while read -r p; do [ -e "$p" ] || echo "$p"; done <"$T/listed" >"$T/missing"
expect_not "layout: every doc/HACKING.md layout line names what exists" "$T/missing" . \
	"in doc/HACKING.md's layout, not in the tree: $(tr '\n' ' ' <"$T/missing")"

# test_X.c tests module X: a source or header of that name somewhere
for t in tests/unit/test_*.c; do
	m=$(basename "$t" .c)
	m=${m#test_}
	find unionroot init tools -name "$m.[ch]" | grep -q . || echo "$t"
done >"$T/unnamed"
ls tests/unit/test_*.c >"$T/tests"
expect "layout: the unit tests are there to be checked" "$T/tests" 'test_probe\.c$'
expect_not "layout: every unit test file is named after the module it tests" "$T/unnamed" . \
	"no module of that name: $(tr '\n' ' ' <"$T/unnamed")"

# The folders of unionroot/ from the ground up: a file may include headers
# of its own folder and of folders below it, never above. init/ stands on
# all of them. This list is the one place the order is declared.
FLOORS="lib net probe conf kmod media overlay branch plan copyup diff cmd init"
for d in unionroot/*/; do
	f=${d#unionroot/}
	f=${f%/}
	case " $FLOORS " in *" $f "*) ;; *) echo "$f" ;; esac
done >"$T/unfloored"
expect_not "layout: every folder of unionroot/ has its floor in FLOORS" "$T/unfloored" . \
	"not in layout.sh's FLOORS: $(tr '\n' ' ' <"$T/unfloored")"

floor() {
	local i=0 f
	for f in $FLOORS; do
		[ "$f" = "$1" ] && { echo "$i"; return; }
		i=$((i + 1))
	done
	echo 99
}

# Every include of a project header names its folder ("lib/sys.h"): in
# unionroot/ always; elsewhere a bare name is a header beside the file.
# And no include runs up: the included folder's floor is at most the
# includer's.
for src in unionroot/*/*.[ch] init/*.[ch] tests/unit/*.[ch] tests/fuzz/*.[ch] tools/*.[ch] \
	tests/bench/*.c; do
	dir=${src%/*}
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$src" |
		while read -r inc; do
			case $inc in
			*/*)
				folder=${inc%%/*}
				if [ -e "unionroot/$inc" ] && [ "${src#unionroot/}" != "$src" ]; then
					here=${dir#unionroot/}
					[ "$(floor "$folder")" -le "$(floor "$here")" ] ||
						echo "up: $src includes $inc ($here below $folder)"
				elif [ -e "unionroot/$inc" ] && [ "$dir" = init ]; then
					:
				elif [ ! -e "unionroot/$inc" ] && [ ! -e "$dir/$inc" ]; then
					echo "nowhere: $src includes $inc"
				fi
				;;
			*)
				if [ "${src#unionroot/}" != "$src" ] || [ ! -e "$dir/$inc" ]; then
					echo "bare: $src includes \"$inc\", not \"FOLDER/$inc\""
				fi
				;;
			esac
		done
done >"$T/includes"
expect_not "layout: every include names its folder" "$T/includes" '^(bare|nowhere):' \
	"$(grep -E '^(bare|nowhere):' "$T/includes" | head -5 | tr '\n' ' ')"
expect_not "layout: no include runs up the floors ($FLOORS)" "$T/includes" '^up:' \
	"$(grep '^up:' "$T/includes" | head -5 | tr '\n' ' ')"
