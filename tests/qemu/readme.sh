#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# Every command of the README's "A tour of the demo" works as written, with
# the effect the README promises. The commands are read from README.md: each
# "make demo ..." line boots with the run command the Makefile makes of it
# (make -n), the "Inside the demo, try" block runs in a booted demo. Only the
# writable disk is the test's own, so the build's data.img stays untouched.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-readme || exit 0
scratch readme
README=$ROOT_DIR/README.md
DATA=$T/data.img
new_data "$DATA"

# block_after START: the first ```sh block after the line starting with
# START, within the section "A tour of the demo"
block_after() {
	awk -v start="$1" '
		/^## / { tour = ($0 == "## A tour of the demo") }
		tour && !found && index($0, start) == 1 { found = 1; next }
		found && $0 == "```sh" { inside = 1; next }
		inside && $0 == "```" { exit }
		inside { print }' "$README"
}
mapfile -t MAKE_LINES < <(block_after "## A tour of the demo" | grep '^make demo')
mapfile -t INSIDE < <(block_after "Inside the demo, try:" | grep -v '^[[:space:]]*$')
if [ "${#MAKE_LINES[@]}" -lt 2 ] || [ "${#INSIDE[@]}" -lt 2 ]; then
	fail "the README's demo commands are found" "${#MAKE_LINES[@]} make demo lines, ${#INSIDE[@]} commands inside the demo"
	exit 0
fi

# demo LOG PROBE LINE: boots as "make demo ..." in LINE would (the README's
# shell words, the Makefile's run command for them); PROBE is the guest
# command of a line that would be interactive (no CMD=)
demo() {
	local log=$1 probe=$2 line=$3 recipe
	local -a words
	# the README line as a shell reads it (its comment ends at the newline)
	eval "words=($line
	)"
	recipe=$(cd "$ROOT_DIR" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -n --no-print-directory "${words[@]:1}" BUILD="$BUILD" BOARD="$BOARD" |
		grep "^board/$BOARD/run ")
	eval "words=($recipe)"
	if [ "${words[0]}" != "board/$BOARD/run" ] || [ "${words[1]}" != "$OUTDIR" ]; then
		fail "'$line' boots the board" "make runs '$recipe'"
		return 1
	fi
	# boot's own --cmd comes first: a CMD= of the line wins over PROBE
	boot "$log" "$DATA" "$probe" "${words[@]:2}"
}

# shown LINE: LINE without its comment, for test names
shown() {
	local s=${1%%#*}
	echo "${s%"${s##*[! ]}"}"
}
# worked LOG LINE: the commands of LINE ran, none missing
worked() {
	expect "'$(shown "$2")' runs to the end" "$1" '^real-init: cmd exit=0$'
	expect_not "'$(shown "$2")' finds every command" "$1" 'line [0-9]+: .*not found' "$(grep -a 'not found' "$1" | head -1)"
}
# effects LOG COMMAND WHERE: what the README promises of COMMAND in that boot
effects() {
	case $2 in
	*'unionroot status'*)
		expect "$3: 'unionroot status' prints the backend" "$1" '^backend=overlay$'
		expect "$3: 'unionroot status' prints the writable branch" "$1" '^upper_state=persistent on /dev/vdb' ;;&
	*/etc/os-release*)
		expect "$3: 'cat /etc/os-release' shows the demo root" "$1" '^PRETTY_NAME="unionroot demo' ;;&
	*'ls /run/unionroot'*)
		# on the serial console ls prints columns: words of the commands' output
		sed -n '/^real-init: root:/,/^real-init: cmd exit=/p' "$1" >"$1.out"
		for e in lower rw bin status; do
			expect "$3: 'ls /run/unionroot' lists $e" "$1.out" "(^|[[:space:]])$e([[:space:]]|\$)"
		done ;;&
	*'unionroot reset --yes'*)
		expect "$3: 'unionroot reset --yes' schedules the reset" "$1" 'factory reset scheduled for the next boot' ;;
	esac
}
SHOW='echo "MARK-note=$(cat /root/note 2>/dev/null)"
	[ -e /etc/factory-file ] && echo MARK-factory-back || echo MARK-factory-gone'

# 1. the one-command lines (CMD=), as typed
for line in "${MAKE_LINES[@]}"; do
	case $line in
	*CMD=*)
		log=$T/cmd.log
		if demo "$log" 'echo no CMD' "$line"; then
			worked "$log" "$line"
			effects "$log" "$line" "$(shown "$line")"
		else
			fail "'$(shown "$line")'" "no clean boot (see $log)"
			keep_log "$log"
		fi ;;
	esac
done

# 2. "Inside the demo, try": everything but the reset in one boot, then a
# boot that shows what persisted and runs the reset, then the factory state
keep=() resets=()
for c in "${INSIDE[@]}"; do
	case $c in
	*'unionroot reset'*) resets+=("$c") ;;
	'echo hello > /root/note'* | 'rm /etc/factory-file'* | 'unionroot status'* | 'ls /run/unionroot'*)
		keep+=("$c") ;;
	*) fail "the README's '$(shown "$c")' is tested" "readme.sh knows no effect of it: add one" ;;
	esac
done
inside=$(printf '%s\n' "${keep[@]}")
if boot "$T/in1.log" "$DATA" "$inside" &&
	boot "$T/in2.log" "$DATA" "$SHOW
$(printf '%s\n' "${resets[@]}")" &&
	boot "$T/in3.log" "$DATA" "$SHOW"; then
	worked "$T/in1.log" "inside the demo"
	for c in "${keep[@]}"; do effects "$T/in1.log" "$c" "inside the demo"; done
	expect "the note persists across a boot" "$T/in2.log" '^MARK-note=hello$'
	expect "the deleted file stays deleted" "$T/in2.log" '^MARK-factory-gone$'
	worked "$T/in2.log" "${resets[0]}"
	for c in "${resets[@]}"; do effects "$T/in2.log" "$c" "inside the demo"; done
	expect "after 'unionroot reset --yes' the next boot is factory: the note is gone" "$T/in3.log" '^MARK-note=$'
	expect "... and the deleted file is back" "$T/in3.log" '^MARK-factory-back$'
else
	fail "the commands inside the demo" "no clean boot (see $T/in*.log)"
	keep_log "$T"/in*.log
fi

# 3. the other lines: a probe replaces the interactive shell
for line in "${MAKE_LINES[@]}"; do
	case $line in
	*CMD=*) ;;
	'make demo' | 'make demo '*'# interactive'*) skip "'$(shown "$line")'" "interactive" ;;
	*ROOTFS=debian*) skip "'$(shown "$line")'" "tests/qemu/debian.sh boots the Debian root" ;;
	*RESET=1*)
		if boot "$T/r1.log" "$DATA" 'echo mine >/root/note; rm /etc/factory-file' &&
			demo "$T/r2.log" "$SHOW" "$line"; then
			expect "'$(shown "$line")' drops the user's files" "$T/r2.log" '^MARK-note=$'
			expect "'$(shown "$line")' brings the factory files back" "$T/r2.log" '^MARK-factory-back$'
		else
			fail "'$(shown "$line")'" "no clean boot (see $T/r1.log, $T/r2.log)"
		fi ;;
	*"APPEND='union.upper=tmpfs'"*)
		if demo "$T/a.log" 'echo "MARK-cmdline=$(cat /proc/cmdline)"' "$line"; then
			expect "'$(shown "$line")' reaches the kernel command line" "$T/a.log" '^MARK-cmdline=.* union.upper=tmpfs'
			expect "'$(shown "$line")' boots a volatile root" "$T/a.log" '^real-init: status: upper_state=volatile'
		else
			fail "'$(shown "$line")'" "no clean boot (see $T/a.log)"
		fi ;;
	*) fail "the README's '$(shown "$line")' is tested" "readme.sh knows no effect of it: add one" ;;
	esac
done
