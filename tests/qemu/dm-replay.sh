#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/host/replay.sh where the running kernel has no dm-log-writes: the
# same script in a guest of the build's Debian kernel. It is a QEMU boot, so
# it runs in this group, two scripts at a time, not in the host group.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
need_root dm-replay || exit 0
modprobe -q dm-log-writes 2>/dev/null
if dmsetup targets 2>/dev/null | grep -q '^log-writes'; then
	skip dm-replay "this kernel has dm-log-writes: tests/host/replay.sh runs natively"
	exit 0
fi
REPLAY_VM=1 exec bash "$(dirname "$0")/../host/replay.sh"
