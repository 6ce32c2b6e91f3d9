#!/bin/bash
# SPDX-License-Identifier: MIT
# A writable branch per client on an NBD server: Debian's nbd-server on
# 127.0.0.1 (a free port, a config file of its own) exports the board's
# squashfs read-only ([root]) and an ext4 image file read-write named after
# the client's MAC (clients-52-54-00-12-34-56: QEMU's first NIC has
# 52:54:00:12:34:56 unless told otherwise). The guest reaches it only
# through QEMU's user network with restrict=on and guestfwd: QEMU opens one
# connection to the server per guestfwd rule when it starts and carries one
# guest connection on it, so the branch (10.0.2.100:10809) and the layer
# (10.0.2.100:10810) each have a rule of their own, to the same server.
# Stories: (a) boot 1 writes a file on union.upper=nbd:...clients-${mac},
# boot 2 sees it, status names the branch, its export and the server; (b)
# in that second session the host kills every nbd-server process: the
# guest's write and sync fail within the branch's nbd timeout (20 s: the
# forwarder never passes the close on), its ext4 turns read-only and
# status says upper_error=; the third boot, the server back, comes up
# persistent with boot 1's file; (c) an export the server lacks: one line,
# then union.onfail's volatile branch; (d) the client's file exported a
# second time, read-only (readonly = true: the handshake's read-only
# flag): refused, one line, then union.onfail's volatile branch; (e) the
# branch as any other: the boot after the fault counts itself
# (union.maxfails), writes a file and asks for a reset; the next boot
# applies it on the export, boot 1's file and that one are gone, and the
# counter starts over. In (b), (c) and (d) the read-only layer is on a
# disk of the guest's own, so that only the branch is on the server. The
# layer is the board's root with the host's e2fsck (tests/tools-image), so
# that the image's checker runs on the branch. Six boots, about 15 s
# each, and the 20 s of the timeout.
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu net-upper || exit 0
need_tools net-upper nbd-server mkfs.ext4 e2fsck unsquashfs mksquashfs || exit 0
scratch net-upper
# the board's root with the host's e2fsck: the image's own checker runs
# on the branch before it is mounted, as for a local one
"$TESTS_DIR/tools-image" "$OUTDIR/rootfs.squashfs" "$T/root.squashfs"
IMG=$T/root.squashfs
MAC=52-54-00-12-34-56
CLIENT=$T/clients-$MAC.img
new_data "$CLIENT"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$T/nbd.conf" <<EOF
[generic]
listenaddr = 127.0.0.1
port = $PORT
allowlist = false
pidfile = $T/nbd.pid
[root]
exportname = $IMG
readonly = true
authfile = $T/allow
[clients-$MAC]
exportname = $CLIENT
readonly = false
authfile = $T/allow
[readonly-$MAC]
exportname = $CLIENT
readonly = true
authfile = $T/allow
EOF
echo 127.0.0.1 >"$T/allow"
NBD_PID=
# start_server: nbd-server forks into the background; its listening
# socket names its process. 1 when it does not listen.
start_server() {
	NBD_PID=
	nbd-server -C "$T/nbd.conf" >>"$T/nbd.log" 2>&1
	for _ in $(seq 50); do
		NBD_PID=$(ss -Hltnp "sport = :$PORT" | sed -n 's/.*"nbd-server",pid=\([0-9]*\).*/\1/p' | head -1)
		[ -n "$NBD_PID" ] && return 0
		sleep 0.1
	done
	fail "net-upper: nbd-server listens on 127.0.0.1:$PORT" "it does not: $(tail -3 "$T/nbd.log")"
	return 1
}
# stop_server: the listener and each process it forked for a client, by id
stop_server() {
	local kids
	[ -n "$NBD_PID" ] || return 0
	kids=$(pgrep -P "$NBD_PID" | tr '\n' ' ')
	# shellcheck disable=SC2086 # one id a word
	kill -KILL "$NBD_PID" $kids 2>/dev/null
	NBD_PID=
}
start_server || exit 0
trap 'stop_server; rm -rf "$T"' EXIT
UPPER='nbd:10.0.2.100:10809/clients-${mac}'
EXPANDED="nbd:10\\.0\\.2\\.100:10809/clients-$MAC"
USERNET="user,id=n0,restrict=on,guestfwd=tcp:10.0.2.100:10809-tcp:127.0.0.1:$PORT,guestfwd=tcp:10.0.2.100:10810-tcp:127.0.0.1:$PORT"
STATUS='/run/unionroot/bin/unionroot status | sed "s/^/STATUS: /"'

# (a) boot 1: the layer and the branch on the server; a file written
if boot "$T/a1.log" none 'echo boot1 >/root/boot1; sync; cat /root/boot1 && echo MARK-written
	'"$STATUS" --lower none --net "$USERNET" --nic e1000 \
	--append "union.lower=nbd:10.0.2.100:10810/root union.upper=$UPPER union.wait=30"; then
	pass "net-upper: a per-client nbd: branch boots under an nbd: layer (e1000, DHCP)"
else
	fail "net-upper: a per-client nbd: branch boots under an nbd: layer (e1000, DHCP)" "no clean boot (see $T/a1.log)"
	keep_log "$T/a1.log"
fi
expect "net-upper: \${mac} names the client's export, on its own nbd device" "$T/a1.log" \
	"unionroot: writable branch: $EXPANDED is /dev/nbd1 \\([0-9]+ bytes\\)"
expect "net-upper: the branch is persistent" "$T/a1.log" '^real-init: status: upper_state=persistent on /dev/nbd1 \(ext4\)'
expect "net-upper: the file is written" "$T/a1.log" '^MARK-written'
expect "net-upper: status names the branch as configured" "$T/a1.log" \
	'^STATUS: upper=nbd:10\.0\.2\.100:10809/clients-\$\{mac\} /dev/nbd1 ext4 '
expect "net-upper: status names the export, the server and the address" "$T/a1.log" \
	"^STATUS: upper_image=$EXPANDED over eth0 10\\.0\\.2\\.15 \\(DHCP\\)"
expect "net-upper: at shutdown the union is unmounted over the live exports" "$T/a1.log" \
	'^unionroot: shutdown: the union and its media are unmounted'
expect "net-upper: then the branch's device leaves its server" "$T/a1.log" '^unionroot: shutdown: /dev/nbd1 left its server'
expect_not "net-upper: no write to the branch fails on the way down" "$T/a1.log" 'nbd[01].*(I/O error|Dead connection|shutting down sockets)' \
	"the export went away under its file system"

# (a) boot 2 sees it, then (b): the server killed mid-session
BOOT_TIMEOUT=180 boot "$T/b1.log" none 'echo "MARK-boot1=$(cat /root/boot1)"
	'"$STATUS"'
	echo MARK-kill-now
	sleep 8
	echo after >/root/after
	# the write-back of "after" fails once the requests to the branch time out
	timeout 90 sync; echo MARK-sync-returned
	timeout 30 sh -c "echo more >/root/more; sync -f /root/more" && echo MARK-write-ok || echo MARK-write-refused
	/run/unionroot/bin/unionroot status | sed "s/^/AFTER: /"' \
	--lower "$IMG" --net "$USERNET" --nic e1000 --append "union.upper=$UPPER union.wait=30" &
booting=$!
if await_line "$T/b1.log" '^MARK-kill-now' "$booting"; then
	stop_server
else
	fail "net-upper: the session reaches the moment of the fault" "no MARK-kill-now (see $T/b1.log)"
fi
if wait "$booting"; then
	pass "net-upper: the session goes on after the server is killed (no hang)"
else
	fail "net-upper: the session goes on after the server is killed (no hang)" "no clean boot (see $T/b1.log)"
	keep_log "$T/b1.log"
fi
expect "net-upper: the second boot sees the first boot's file" "$T/b1.log" '^MARK-boot1=boot1'
expect "net-upper: the second boot's branch is the same export" "$T/b1.log" "^STATUS: upper_image=$EXPANDED over eth0"
expect "net-upper: sync returns once the server is gone" "$T/b1.log" '^MARK-sync-returned'
expect "net-upper: a write after the server is gone is refused" "$T/b1.log" '^MARK-write-refused'
expect "net-upper: the kernel turns the branch read-only" "$T/b1.log" \
	'EXT4-fs .*nbd0.*(Remounting filesystem read-only|Detected aborted journal)'
expect "net-upper: status says the branch refuses writes" "$T/b1.log" \
	'^AFTER: upper_error=the writable branch refuses writes \((Read-only file system|I/O error)\)'

# (b) the server back: the next boot recovers the branch
start_server || exit 0
if boot "$T/b2.log" none 'echo "MARK-boot1=$(cat /root/boot1)"; '"$STATUS"'
	echo drop >/root/drop && /run/unionroot/bin/unionroot reset --yes >/dev/null && echo MARK-reset-asked' \
	--lower none --net "$USERNET" --nic e1000 \
	--append "union.lower=nbd:10.0.2.100:10810/root union.upper=$UPPER union.wait=30 union.maxfails=3"; then
	pass "net-upper: the boot after the fault, the server back, is clean"
else
	fail "net-upper: the boot after the fault, the server back, is clean" "no clean boot (see $T/b2.log)"
	keep_log "$T/b2.log"
fi
expect "net-upper: the image's e2fsck checks the branch before it is mounted" "$T/b2.log" \
	'unionroot: writable branch /dev/nbd1: /sbin/e2fsck( repaired its file system|: clean)'
expect "net-upper: after the fault the branch is persistent" "$T/b2.log" '^real-init: status: upper_state=persistent on /dev/nbd1 \(ext4\)'
expect "net-upper: what was synced before the fault is kept" "$T/b2.log" '^MARK-boot1=boot1'
expect_not "net-upper: a recovered branch shows no error in the status" "$T/b2.log" '^STATUS: upper_error=' \
	"status reports an error on a recovered branch"
expect "net-upper: the boot counter counts on the export" "$T/b2.log" '^real-init: status: boots_at_boot=1$'
expect "net-upper: a reset is asked on the export" "$T/b2.log" '^MARK-reset-asked'

# (c) an export the server lacks: one line, then union.onfail's tmpfs
if ! boot "$T/c.log" none 'echo MARK-volatile-root; '"$STATUS" --lower "$IMG" --net "$USERNET" --nic e1000 \
	--append 'union.upper=nbd:10.0.2.100:10809/clients-${hostname} union.wait=30 ip=::::pc07::dhcp'; then
	keep_log "$T/c.log"
fi
expect "net-upper: an export the server lacks is one line, then union.onfail's tmpfs" "$T/c.log" \
	'unionroot: writable branch: nbd:10\.0\.2\.100:10809/clients-pc07: [^;]*no such export[^;]*; booting with a volatile writable branch in RAM \(union\.onfail=tmpfs\)'
expect "net-upper: the root is up on a volatile branch" "$T/c.log" '^MARK-volatile-root'
expect "net-upper: status says why the branch is volatile" "$T/c.log" '^real-init: status: upper_state=volatile: writable branch: nbd:'

# (d) the client's file, exported read-only: the branch refuses it
if ! boot "$T/d.log" none 'echo MARK-volatile-root; '"$STATUS"'
	awk "\$2 == \"/run/unionroot/rw\" { print \"MOUNT: \" \$2, \$3 }" /proc/mounts' \
	--lower "$IMG" --net "$USERNET" --nic e1000 --append 'union.upper=nbd:10.0.2.100:10809/readonly-${mac} union.wait=30'; then
	keep_log "$T/d.log"
fi
expect "net-upper: a read-only export as the branch is one line naming why, then union.onfail's tmpfs" "$T/d.log" \
	"unionroot: writable branch: nbd:10\\.0\\.2\\.100:10809/readonly-$MAC: the server exports it read-only, and a writable branch needs it writable; booting with a volatile writable branch in RAM \\(union\\.onfail=tmpfs\\)"
expect "net-upper: the real init runs on the volatile branch" "$T/d.log" '^MARK-volatile-root'
expect "net-upper: status says the read-only export made the branch volatile" "$T/d.log" \
	"^real-init: status: upper_state=volatile: writable branch: nbd:10\\.0\\.2\\.100:10809/readonly-$MAC: the server exports it read-only"
expect "net-upper: status names the tmpfs branch" "$T/d.log" '^STATUS: upper=tmpfs - tmpfs /run/unionroot/rw$'
expect "net-upper: the branch under the root is a tmpfs" "$T/d.log" '^MOUNT: /run/unionroot/rw tmpfs$'
expect_not "net-upper: no nbd device is attached for a read-only export" "$T/d.log" 'writable branch: nbd:.* is /dev/nbd' \
	"the branch took the read-only export"

# (e) the reset applied on the export at the next boot
if ! boot "$T/e.log" none 'echo "MARK-boot1=$(cat /root/boot1 2>/dev/null || echo gone)"
	echo "MARK-drop=$(cat /root/drop 2>/dev/null || echo gone)"' \
	--lower none --net "$USERNET" --nic e1000 \
	--append "union.lower=nbd:10.0.2.100:10810/root union.upper=$UPPER union.wait=30 union.maxfails=3"; then
	keep_log "$T/e.log"
fi
expect "net-upper: the reset is applied on the export" "$T/e.log" '^real-init: status: reset=applied'
expect "net-upper: the reset drops boot 1's file" "$T/e.log" '^MARK-boot1=gone'
expect "net-upper: the reset drops the file written before it was asked" "$T/e.log" '^MARK-drop=gone'
expect "net-upper: the reset restarts the boot counter" "$T/e.log" '^real-init: status: boots_at_boot=1$'
expect "net-upper: after the reset the branch is persistent" "$T/e.log" '^real-init: status: upper_state=persistent on /dev/nbd1 \(ext4\)'
