#!/bin/sh
# SPDX-License-Identifier: MIT
# dracut's mount hook (no systemd in the initrd): unionroot builds the union
# at $NEWROOT, its media mounted beneath /run/unionroot, which dracut's
# switch_root moves into the new root. A boot that cannot go on (or
# union.onfail=shell) is dracut's emergency shell, as for a root it cannot
# mount: its exit tries again. Sourced by dracut's /init, with root= as
# unionroot-cmdline.sh left it.
# shellcheck disable=SC2154 # root and NEWROOT are dracut's /init's

# shellcheck source=/dev/null # dracut's, in the initrd
type emergency_shell >/dev/null 2>&1 || . /lib/dracut-lib.sh

if [ "$root" = unionroot ] && ! ismounted "$NEWROOT"; then
	# the union's modules through the system's modprobe first, which
	# honours modprobe.d (options, blacklists); unionroot finds them loaded
	# shellcheck disable=SC2046 # one name a line
	modprobe -a -b -q $(cat /etc/unionroot/modules)
	if ! /usr/sbin/unionroot mount-root --at "$NEWROOT"; then
		emergency_shell -n unionroot "unionroot could not mount the union root at $NEWROOT (the lines above say why)"
	fi
fi
