#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# One decided plan: for several command lines, `unionroot plan CMDLINE` run
# in one boot prints the very decisions the next boot, with that command
# line, writes to /run/unionroot/plan. One chain of boots on one data disk,
# each preparing the next case: normal, a pending reset, a kiosk session,
# failsafe, copy-up, a missing writable branch.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-plan || exit 0
scratch plan
U=/run/unionroot/bin/unionroot
DATA=$T/data.img
new_data "$DATA"

NAMES=(normal reset kiosk failsafe copyup missing)
LINES=('rw' 'union.maxfails=2' 'union.session=volatile union.maxfails=2' 'union.maxfails=1'
	'union.mode=copyup' 'union.upper=LABEL=nothere@1')
# what boot i does before it plans boot i+1's command line
SETUP=('' 'unionroot reset --yes' '' '' '' '')

# plan_cmd I: the guest commands of boot I (0 = the boot before the first case)
plan_cmd() {
	local i=$1 cmd=''
	[ "$i" -gt 0 ] && cmd="sed 's/^/BOOTPLAN: /' /run/unionroot/plan;"
	if [ "$i" -lt ${#NAMES[@]} ]; then
		[ -n "${SETUP[$i]}" ] && cmd+=" $U ${SETUP[$i]#unionroot } >/dev/null;"
		cmd+=" $U plan '${LINES[$i]}' | sed -n '/^--- plan/,\$p' | sed '1d; s/^/PLAN: /'"
	fi
	echo "$cmd"
}

ok=1
for i in $(seq 0 ${#NAMES[@]}); do
	app=()
	[ "$i" -gt 0 ] && app=(--append "${LINES[$((i - 1))]}")
	if ! boot "$T/$i.log" "$DATA" "$(plan_cmd "$i")" "${app[@]}"; then
		fail "plan: boot $i" "no clean boot (see $T/$i.log)"
		keep_log "$T/$i.log"
		ok=0
		break
	fi
done
[ "$ok" = 1 ] || exit 0

for i in $(seq 1 ${#NAMES[@]}); do
	name=${NAMES[$((i - 1))]}
	sed -n 's/^PLAN: //p' "$T/$((i - 1)).log" >"$T/planned"
	sed -n 's/^BOOTPLAN: //p' "$T/$i.log" >"$T/booted"
	if [ -s "$T/booted" ] && cmp -s "$T/planned" "$T/booted"; then
		pass "plan: '${LINES[$((i - 1))]}' ($name): unionroot plan printed what the boot did"
	else
		fail "plan: '${LINES[$((i - 1))]}' ($name)" "$(diff "$T/planned" "$T/booted" | tr '\n' '|')"
		keep_log "$T/$((i - 1)).log" "$T/$i.log"
	fi
done
# each case did what it names, in the boot's own plan
expect "the pending reset is in the plan" "$T/2.log" "^BOOTPLAN: reset +factory: requested by 'unionroot reset'"
expect "the kiosk session is in the plan" "$T/3.log" '^BOOTPLAN: session +volatile \(union.session=volatile\)'
expect "failsafe is in the plan" "$T/4.log" "^BOOTPLAN: failsafe +yes: 2 boots without 'unionroot boot-ok'"
expect "copy-up is in the plan" "$T/5.log" '^BOOTPLAN: backend +copy-up: union.mode=copyup'
expect "the missing branch is in the plan" "$T/6.log" '^BOOTPLAN: writable +writable device LABEL=nothere@1 not found; union.onfail=tmpfs'
expect "the copy-up boot really bound the branch" "$T/5.log" '^real-init: status: backend=copyup'
