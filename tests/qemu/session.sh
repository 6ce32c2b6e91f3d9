#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# Kiosk sessions and a filling writable branch: with union.session=volatile
# the boot sees what the admin saved and nothing of a session survives it;
# union.warnfull names a writable branch that is filling up.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu qemu-session || exit 0
scratch session
U=/run/unionroot/bin/unionroot
DATA=$T/data.img
new_data "$DATA"
LOOK='
	echo "MARK-url=$(cat /etc/kiosk-url 2>/dev/null)"
	[ -e /etc/factory-file ] && echo MARK-factory-back || echo MARK-factory-gone
	[ -e /root/junk ] && echo MARK-junk-kept || echo MARK-junk-gone'

if boot "$T/admin.log" "$DATA" 'echo admin >/etc/kiosk-url; rm /etc/factory-file; echo MARK-saved' &&
	boot "$T/s1.log" "$DATA" "$LOOK"'
	echo session >/root/junk; echo changed >/etc/kiosk-url
	echo "MARK-session-wrote=$(cat /root/junk) $(cat /etc/kiosk-url)"
	'"$U"' status | sed "s/^/STATUS: /"' --append union.session=volatile &&
	boot "$T/s2.log" "$DATA" "$LOOK" --append union.session=volatile &&
	boot "$T/normal.log" "$DATA" "$LOOK"; then
	expect "a kiosk session sees what the admin saved" "$T/s1.log" '^MARK-url=admin'
	expect "a kiosk session sees the admin's deletions" "$T/s1.log" '^MARK-factory-gone'
	expect "status says the session is volatile and why" "$T/s1.log" '^STATUS: upper_state=volatile: kiosk session \(union.session=volatile\); the saved branch /dev/vdb is a read-only layer'
	expect "a kiosk session can write, for the session" "$T/s1.log" '^MARK-session-wrote=session changed'
	expect "nothing of a kiosk session survives the next session" "$T/s2.log" '^MARK-junk-gone'
	expect "a session's change to an admin file is forgotten" "$T/s2.log" '^MARK-url=admin'
	expect "nothing of a kiosk session reaches the saved branch" "$T/normal.log" '^MARK-junk-gone'
else
	fail "kiosk session boots" "no clean boot (see $T/*.log)"
	keep_log "$T"/*.log
fi

if boot "$T/full.log" "$DATA" "$U"' status | sed "s/^/STATUS: /"' --append union.warnfull=1; then
	expect "a writable branch over union.warnfull is named at boot" "$T/full.log" 'unionroot: writable branch /dev/vdb is [0-9]+% full \(union.warnfull=1\)'
	expect "status warns about the filling writable branch" "$T/full.log" '^STATUS: upper_warning=[0-9]+% full, over union.warnfull=1%'
else
	fail "warnfull boot" "no clean boot (see $T/full.log)"
fi
if boot "$T/notfull.log" "$DATA" "$U"' status | sed "s/^/STATUS: /"'; then
	if grep -q 'upper_warning\|% full (union.warnfull' "$T/notfull.log"; then
		fail "below union.warnfull nothing is said" "a warning appeared at 90%"
	elif grep -q '^STATUS: upper_used_percent=' "$T/notfull.log"; then
		pass "below union.warnfull nothing is said"
	else
		fail "below union.warnfull nothing is said" "status printed no usage"
	fi
fi
