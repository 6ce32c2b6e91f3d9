#!/bin/bash
# SPDX-License-Identifier: MIT
# Who may write what (no root needed): each result in init/boot.h's struct
# boot is written by one file of init/, and stdio is used in unionroot/cmd/
# only (and lib/fmt.c, whose vfprintf the shipped build links in musl's place).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$ROOT_DIR" || exit 2
scratch owners

# The results block of struct boot: from "/* results:" to the next comment
# at the start of a line; the names of the fields declared there.
awk '/^\t\/\* results:/ { on = 1; next } on && /^\t\/\*/ { exit } on' init/boot.h |
	sed -e 's,/\*.*,,' -e 's/\[[^]]*\]//g' -e 's/;.*//' |
	awk '{ sub(/^[ \t]*(const |unsigned |struct [a-z_]+ )*[a-z_0-9]+[ \t]+/, ""); gsub(/[ *\t]/, ""); n = split($0, f, ","); for (i = 1; i <= n; i++) if (f[i] != "") print f[i] }' \
	>"$T/results"
expect "owners: the results of struct boot are found" "$T/results" '^upper_state$'

# A write: an assignment or increment, the field given as an output buffer to
# a formatter or copier, or its address taken (every step names the boot b).
while read -r f; do
	w="b->$f"
	grep -lE "$w(\[[^]]*\])*[[:space:]]*([-+*/|&^]?=[^=]|\+\+|--)|(strfmt|strcopy|memcpy|memset|fmt_sn|fmt_vsn|sbuf_init|overlay_options)\([^,]*$w\b|&$w\b" \
		init/*.c >"$T/writers.$f" || true
	n=$(wc -l <"$T/writers.$f")
	echo "owners: $f written in $n file(s): $(tr '\n' ' ' <"$T/writers.$f")"
	[ "$n" -le 1 ] || echo "$f: $(tr '\n' ' ' <"$T/writers.$f")"
done <"$T/results" >"$T/owners"
expect "owners: the results' writers were looked for" "$T/owners" '^owners: upper_state written in 1 file'
grep -v '^owners: ' "$T/owners" >"$T/shared" || true
expect_not "owners: each result of struct boot is written by one file" "$T/shared" . \
	"written by more than one file: $(tr '\n' ';' <"$T/shared")"

# stdio: its header, the printf family, the FILE functions and streams.
STDIO='#include <stdio\.h>|\b(v?s?n?printf|v?fprintf|v?dprintf|putchar|puts|fputs|fputc|putc|fwrite|fread|fgets|fgetc|getc|getchar|fopen|fdopen|fclose|fflush|perror|getline|v?f?sscanf|scanf|setvbuf)[[:space:]]*\(|\bstd(out|err|in)[[:space:]]*[,);]'
grep -rnE "$STDIO" unionroot/cmd >"$T/cmd-stdio" || true
expect "owners: the pattern finds the commands' stdio" "$T/cmd-stdio" 'printf'
grep -rnE "$STDIO" init unionroot --include='*.[ch]' | grep -v -e '^unionroot/cmd/' -e '^unionroot/lib/fmt\.c:' \
	>"$T/stdio" || true
expect_not "owners: stdio is used in unionroot/cmd/ only" "$T/stdio" . "$(head -5 "$T/stdio" | tr '\n' ' ')"
