#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# Kiosk sessions and a filling writable branch: with union.session=volatile
# the boot sees what the admin saved and nothing of a session survives it,
# on the overlay and the copy-up backend; a reset asked in a session reaches
# the saved branch, one on a tmpfs branch is refused with its reason;
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

# a reset asked in a kiosk session reaches the saved branch; on a tmpfs
# branch there is nothing to reset, and the command says so
if boot "$T/k1.log" "$DATA" "$U"' reset --yes; echo "MARK-reset-exit=$?"' --append union.session=volatile &&
	boot "$T/k2.log" "$DATA" "$LOOK" --append union.session=volatile; then
	expect "reset in a kiosk session is recorded" "$T/k1.log" '^MARK-reset-exit=0'
	expect "the next session starts from the factory state" "$T/k2.log" '^MARK-factory-back'
	expect "the admin's saved file is gone after the reset" "$T/k2.log" '^MARK-url=$'
else
	fail "kiosk session reset" "no clean boot (see $T/k*.log)"
	keep_log "$T"/k*.log
fi
if boot "$T/tmpfs.log" none "$U"' reset --yes >/tmp/said 2>&1; echo "MARK-reset-exit=$?"
	sed "s/^/SAID: /" /tmp/said' --append union.upper=tmpfs; then
	expect "reset on a tmpfs branch fails" "$T/tmpfs.log" '^MARK-reset-exit=[1-9]'
	expect "reset on a tmpfs branch refuses with a reason" "$T/tmpfs.log" "^SAID: unionroot reset: this boot's writable branch is a tmpfs .*nothing persistent to reset"
	expect_not "reset on a tmpfs branch is not scheduled" "$T/tmpfs.log" '^SAID: unionroot: factory reset scheduled' "it said scheduled"
else
	fail "reset on union.upper=tmpfs" "no clean boot (see $T/tmpfs.log)"
	keep_log "$T/tmpfs.log"
fi

# a kiosk session under the copy-up backend is volatile too: it runs on a
# copy of the saved root in RAM, and the branch keeps what the admin saved
CDATA=$T/copyup.img
new_data "$CDATA"
CU=union.mode=copyup
if boot "$T/c-admin.log" "$CDATA" 'echo admin >/etc/kiosk-url; rm /etc/factory-file; echo MARK-saved' --append "$CU" &&
	boot "$T/c1.log" "$CDATA" "$LOOK"'
	echo session >/root/junk; echo changed >/etc/kiosk-url
	echo "MARK-session-wrote=$(cat /root/junk) $(cat /etc/kiosk-url)"
	'"$U"' status | sed "s/^/STATUS: /"' --append "$CU union.session=volatile" &&
	boot "$T/c2.log" "$CDATA" "$LOOK" --append "$CU union.session=volatile"; then
	expect "copy-up kiosk: the session sees what the admin saved" "$T/c1.log" '^MARK-url=admin'
	expect "copy-up kiosk: and the admin's deletions" "$T/c1.log" '^MARK-factory-gone'
	expect "copy-up kiosk: the session can write" "$T/c1.log" '^MARK-session-wrote=session changed'
	expect "copy-up kiosk: status says the session is volatile" "$T/c1.log" '^STATUS: upper_state=volatile: kiosk session \(union.session=volatile\); the saved branch /dev/vdb is copied into RAM'
	expect "copy-up kiosk: nothing of the session survives" "$T/c2.log" '^MARK-junk-gone'
	expect "copy-up kiosk: a session's change to an admin file is forgotten" "$T/c2.log" '^MARK-url=admin'
	if [ "$(debugfs -R 'cat upper/etc/kiosk-url' "$CDATA" 2>/dev/null)" = admin ] &&
		! debugfs -R 'stat upper/root/junk' "$CDATA" 2>&1 | grep -q 'Inode:'; then
		pass "copy-up kiosk: the branch holds the admin's file as before, no session file"
	else
		fail "copy-up kiosk: the branch is as the admin left it" "$(debugfs -R 'ls -l upper/root' "$CDATA" 2>/dev/null | tr -s ' \n' ' ')"
	fi
else
	fail "copy-up kiosk session boots" "no clean boot (see $T/c*.log)"
	keep_log "$T"/c*.log
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
