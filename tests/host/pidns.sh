#!/bin/bash
# SPDX-License-Identifier: MIT
# Host (root, namespaces): unionroot as PID 1 of a PID namespace that is not
# the kernel's first (`unshare -pf unionroot status`, a container's
# entrypoint) is the admin tool, never the boot: the boot would read the
# host's command line and apply its reset or count its boots on the live
# branch. Each run has a mount namespace of its own, so that a boot started
# by mistake mounts nothing of the host's.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
set -u
need_root host-pidns || exit 0
BIN=${UR_BIN:-$(cd "$ROOT_DIR" && realpath "$BUILD/unionroot")}
if [ ! -x "$BIN" ]; then
	skip host-pidns "$BUILD/unionroot missing (make)"
	exit 0
fi
if ! unshare -m -p -f true 2>/dev/null; then
	skip host-pidns "cannot make a PID namespace here"
	exit 0
fi
scratch pidns

# ns ARGS...: BIN as PID 1 of new PID and mount namespaces, at most 20 s
# (the boot, started by mistake, would wait for devices); output and status
# in $T/out and $T/rc
ns() {
	(
		timeout -k 2 20 unshare -m --propagation private -p -f "$BIN" "$@" >"$T/out" 2>&1
		echo $? >"$T/rc"
	) 2>/dev/null # the shell's own "Killed" line, when the boot had to be
}

# the boot's own lines: its configuration, its device wait
boot_lines='configured:|reading the configuration|waiting for|read-only layer'

ns status
rc=$(cat "$T/rc")
if [ "$rc" -le 1 ] && grep -aEq 'was this system booted by unionroot|^upper_state=' "$T/out" && ! grep -aEq "$boot_lines" "$T/out"; then
	pass pidns-status
else
	fail pidns-status "'unionroot status' as PID 1 of a PID namespace did not answer as the tool (exit $rc; 124 or 137: it ran the boot until killed): $(head -c 300 "$T/out" | tr '\n' ' ')"
fi

ns
if [ "$(cat "$T/rc")" = 2 ] && grep -aq 'usage\|Afterwards it is the admin tool' "$T/out" &&
	! grep -aEq "$boot_lines" "$T/out"; then
	pass pidns-bare-is-the-tool
else
	fail pidns-bare-is-the-tool "bare 'unionroot' as PID 1 of a PID namespace: exit $(cat "$T/rc"), $(head -c 300 "$T/out" | tr '\n' ' ')"
fi

ns plan 'union.lower=/dev/vda union.upper=LABEL=data'
if [ "$(cat "$T/rc")" = 0 ] && grep -aq 'backend' "$T/out"; then
	pass pidns-plan
else
	fail pidns-plan "'unionroot plan' as PID 1 of a PID namespace: exit $(cat "$T/rc"), $(head -c 300 "$T/out" | tr '\n' ' ')"
fi
