#!/bin/sh
# SPDX-License-Identifier: MIT
# dracut's cmdline hook (no systemd in the initrd): with union.lower= on the
# kernel command line the root is unionroot's union (unionroot-mount.sh), so
# dracut's own root handling stands aside: root=unionroot, which no other
# module claims, instead of root='s device, which the union does not use
# once union.lower= is given. Sourced by dracut's /init.
# shellcheck disable=SC2034 # root and rootok are dracut's /init's

read -r _unionroot_cmdline </proc/cmdline
case " $_unionroot_cmdline " in
*" union.lower="* | *" union.lower "*)
	root=unionroot
	rootok=1
	;;
esac
unset _unionroot_cmdline
