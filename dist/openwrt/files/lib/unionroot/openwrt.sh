#!/bin/sh
# SPDX-License-Identifier: MIT
# unionroot on OpenWrt: what preinit and the reset commands need to know
# when unionroot, not fstools' mount_root, built the root. Sourced by
# /lib/preinit/80_mount_root_unionroot and /usr/libexec/unionroot-factoryreset;
# plain POSIX sh (busybox ash). doc/distributions.md, "OpenWrt".

UNIONROOT_RUN=${UNIONROOT_RUN:-/run/unionroot}

# True when unionroot built this root: its status record is there, which
# PID 1 writes only once the union is up (fstools never makes /run/unionroot).
unionroot_built_root() {
	[ -s "$UNIONROOT_RUN/status" ]
}

# The unionroot binary: PID 1's own copy first (it matches the running
# boot), else the one the package installed.
unionroot_bin() {
	if [ -x "$UNIONROOT_RUN/bin/unionroot" ]; then
		echo "$UNIONROOT_RUN/bin/unionroot"
	else
		echo unionroot
	fi
}

# unionroot_missing_users SAVED CURRENT: the lines of SAVED (a passwd,
# group or shadow file from before the restore) whose name CURRENT lacks;
# the new firmware's own users and groups must survive an old passwd.
unionroot_missing_users() {
	[ -f "$1" ] && [ -f "$2" ] || return 0
	while IFS= read -r line; do
		name=${line%%:*}
		[ -n "$name" ] || continue
		grep -q "^$name:" "$2" || printf '%s\n' "$line"
	done <"$1"
}

# unionroot_keep_patterns: /etc/unionroot/keep as tar member patterns
# (no leading /), one a line; comments and blank lines left out.
unionroot_keep_patterns() {
	[ -f /etc/unionroot/keep ] || return 0
	sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d' \
		-e 's|^/*||' /etc/unionroot/keep
}

# unionroot_unpack ARCHIVE [PATTERN...]: the archive unpacked over /, only
# the members the patterns name when there are any; the firmware's users
# kept; synced before the archive goes, so a power cut unpacks it anew.
unionroot_unpack() {
	archive=$1
	shift
	for f in passwd group shadow; do
		[ -f "/etc/$f" ] && cp -p "/etc/$f" "/tmp/unionroot-$f"
	done
	# a pattern that matches nothing is named by tar; the rest unpack
	(cd / && tar -xzf "$archive" "$@") || echo "unionroot: $archive: tar reported errors; what it could unpack is in place"
	for f in passwd group shadow; do
		unionroot_missing_users "/tmp/unionroot-$f" "/etc/$f" >>"/etc/$f.unionroot-new" 2>/dev/null
		if [ -s "/etc/$f.unionroot-new" ]; then
			cat "/etc/$f.unionroot-new" >>"/etc/$f"
		fi
		rm -f "/etc/$f.unionroot-new" "/tmp/unionroot-$f"
	done
	sync
	rm -f "$archive"
	sync
}

# The configuration sysupgrade saved, as unionroot placed it on the first
# boot after the upgrade (union.upgrade): /sysupgrade.tgz in the root
# (keep) is unpacked whole; the branch's .unionroot/sysupgrade.tgz
# (keeplist) only for the paths of /etc/unionroot/keep; reset left none.
unionroot_restore_config() {
	held=$UNIONROOT_RUN/rw/.unionroot/sysupgrade.tgz
	if [ -f /sysupgrade.tgz ]; then
		echo "- config restore (unionroot: union.upgrade=keep) -"
		unionroot_unpack /sysupgrade.tgz
	fi
	if [ -f "$held" ]; then
		echo "- config restore (unionroot: union.upgrade=keeplist, the paths of /etc/unionroot/keep) -"
		patterns=$(unionroot_keep_patterns)
		if [ -z "$patterns" ]; then
			echo "unionroot: /etc/unionroot/keep names no path; nothing of the saved configuration is kept"
			rm -f "$held"
			sync
			return 0
		fi
		# one pattern a line, no globbing by the shell: tar matches them
		set -f
		oldifs=$IFS
		IFS='
'
		# shellcheck disable=SC2086 # split on newlines only, on purpose
		unionroot_unpack "$held" $patterns
		IFS=$oldifs
		set +f
	fi
}

# preinit's mount_root step when unionroot built the root: the root is
# already the union, so rootfs_data is not mounted a second time; the
# other packages' preinit_mount_root hooks and the configuration restore
# run as OpenWrt's own step runs them.
unionroot_mount_root() {
	echo "- unionroot built the root; mount_root skipped -"
	if command -v boot_run_hook >/dev/null 2>&1; then
		boot_run_hook preinit_mount_root
	fi
	unionroot_restore_config
}
