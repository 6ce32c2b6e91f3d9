#!/bin/bash
# SPDX-License-Identifier: MIT
# The read-only layer on the network: Debian's nbd-server on 127.0.0.1 (a
# free port, a config file of its own) exports the board's squashfs
# read-only; the guest reaches it only through QEMU's user network with
# restrict=on and one guestfwd (10.0.2.100:10809), never a host interface.
# Stories: an nbd: layer and a tmpfs branch on an e1000 (a PC's NIC; the
# address by QEMU's DHCP), the status naming the layer, the server and the
# address, /run/unionroot/net for the real init, a shutdown that unmounts
# the union before the device leaves its server; DHCP failing (a NIC on a
# hub with nothing else on it), no link (the monitor's set_link off) and
# the server absent (an address nothing answers on), each to
# union.onfail=halt in one line; a virtio-net NIC too; ip= instead of
# DHCP; and a local boot with an e1000 present loads no NIC driver. Seven
# boots, about 15 s each.
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu net || exit 0
need_tools net nbd-server || exit 0
scratch net
# Debian's nbd-server exporting the image as "root", as the bench's boots
# and make fleet have it
mkdir -p "$T/srv"
if ! read -r PORT NBD_PID < <("$TESTS_DIR/bench/nbd-serve" "$T/srv" "$OUTDIR/rootfs.squashfs" 2>"$T/srv.err"); then
	fail "net: nbd-server listens on 127.0.0.1" "it does not: $(cat "$T/srv.err")"
	exit 0
fi
trap 'kill "$NBD_PID" 2>/dev/null; rm -rf "$T"' EXIT
NBD=nbd:10.0.2.100:10809/root
USERNET="user,id=n0,restrict=on,guestfwd=tcp:10.0.2.100:10809-tcp:127.0.0.1:$PORT"
NOBOOT='real-init: started'

# 1. the nbd: layer with a tmpfs branch, on an e1000, by DHCP
if boot "$T/nbd.log" none 'unionroot status; echo "NET: $(tr "\n" " " </run/unionroot/net)"; ls /run/net-*.conf; head -c 4 /etc/os-release >/dev/null && echo MARK-root-reads' \
	--lower none --net "$USERNET" --nic e1000 --append "union.lower=$NBD union.upper=tmpfs union.wait=30"; then
	pass "net: an nbd: squashfs layer with a tmpfs branch boots (e1000, DHCP)"
else
	fail "net: an nbd: squashfs layer with a tmpfs branch boots (e1000, DHCP)" "no clean boot (see $T/nbd.log)"
	keep_log "$T/nbd.log"
fi
expect "net: the e1000's driver loads by its modalias" "$T/nbd.log" 'e1000 .*eth0: (Intel|e1000)|e1000: eth0'
expect "net: DHCP gives QEMU's address" "$T/nbd.log" 'unionroot: network: eth0 10\.0\.2\.15 \(DHCP\)'
expect "net: the export is on /dev/nbd0" "$T/nbd.log" "unionroot: read-only layer 1: $NBD is /dev/nbd0 \([0-9]+ bytes, read-only\)"
expect "net: the root reads from the export" "$T/nbd.log" '^MARK-root-reads'
expect "net: status names the network layer, the server and the address" "$T/nbd.log" \
	"$NBD over eth0 10\.0\.2\.15 \(DHCP\)"
expect "net: /run/unionroot/net holds the address and the kernel's ip=" "$T/nbd.log" \
	'^NET: DEVICE=eth0 ADDRESS=10\.0\.2\.15 PROTO=dhcp IP=10\.0\.2\.15:'
expect "net: initramfs-tools' net-eth0.conf is left for the real init" "$T/nbd.log" '^/run/net-eth0\.conf'
expect "net: at shutdown the union is unmounted over a live export" "$T/nbd.log" \
	'^unionroot: shutdown: the union and its media are unmounted'
expect "net: then the device leaves its server" "$T/nbd.log" '^unionroot: shutdown: /dev/nbd0 left its server'
expect_not "net: no read of the export fails on the way down" "$T/nbd.log" 'nbd0.*(I/O error|Dead connection|shutting down sockets)' \
	"the export went away under its file systems"

# 2. DHCP failing: the NIC's hub has nothing else on it; union.onfail=halt
boot "$T/nodhcp.log" none 'true' --lower none --net 'hubport,id=n0,hubid=1' --nic e1000 \
	--append "union.lower=$NBD@10 union.upper=tmpfs union.onfail=halt" || true
expect "net: no DHCP lease is one line, then union.onfail=halt" "$T/nodhcp.log" \
	'unionroot: network: no DHCP lease on eth0 by the deadline \([0-9]+ DISCOVERs sent\); powering off \(union.onfail=halt\)'
expect_not "net: nothing runs without the network layer (no lease)" "$T/nodhcp.log" "$NOBOOT" "the real init ran"

# 2b. no link: the cable out (the monitor's set_link off as QEMU starts,
# before the guest's driver looks); union.onfail=halt
mkfifo "$T/mon.in" "$T/mon.out"
cat "$T/mon.out" >"$T/mon.txt" &
drain=$!
boot "$T/nolink.log" none 'true' --lower none --net "$USERNET" --nic e1000 --monitor "$T/mon" \
	--append "union.lower=$NBD@8 union.upper=tmpfs union.onfail=halt" &
booting=$!
timeout 10 bash -c 'printf "%s\n" "set_link n0 off" >"$1"' _ "$T/mon.in" ||
	fail "net: the cable out" "the monitor took no set_link"
wait "$booting"
kill "$drain" 2>/dev/null
expect "net: no link is one line, then union.onfail=halt" "$T/nolink.log" \
	'unionroot: network: no link on 1 interface\(s\) by the deadline \(cable, switch port\); powering off \(union.onfail=halt\)'
expect_not "net: nothing runs without the network layer (no link)" "$T/nolink.log" "$NOBOOT" "the real init ran"

# 3. the server absent: nothing answers at 10.0.2.101 (restrict=on drops it)
boot "$T/noserver.log" none 'true' --lower none --net "$USERNET" --nic e1000 \
	--append "union.lower=nbd:10.0.2.101:10809/root@15 union.upper=tmpfs union.onfail=halt" || true
expect "net: an absent server is one line, then union.onfail=halt" "$T/noserver.log" \
	'unionroot: read-only layer 1: nbd server 10\.0\.2\.101:10809/root unreachable: [^;]+; powering off \(union.onfail=halt\)'
expect_not "net: nothing runs without the network layer (no server)" "$T/noserver.log" "$NOBOOT" "the real init ran"

# 4. the same layer on a virtio-net NIC
if ! boot "$T/virtio.log" none 'echo MARK-virtio-root' --lower none --net "$USERNET" --nic virtio-net-pci \
	--append "union.lower=$NBD union.upper=tmpfs union.wait=30"; then
	keep_log "$T/virtio.log"
fi
expect "net: an nbd: layer boots on a virtio-net NIC too" "$T/virtio.log" '^MARK-virtio-root'
expect "net: virtio_net's address by DHCP" "$T/virtio.log" 'unionroot: network: eth0 10\.0\.2\.15 \(DHCP\)'
expect_not "net: the virtio boot loads no e1000" "$T/virtio.log" 'e1000: Intel' "e1000 loaded without its NIC"

# 5. ip= in the kernel's syntax: the address set as given, no DHCP
if ! boot "$T/static.log" none 'grep -h PROTO /run/unionroot/net /run/net-eth0.conf' --lower none --net "$USERNET" \
	--nic e1000 --append "union.lower=$NBD union.upper=tmpfs union.wait=30 ip=10.0.2.15::10.0.2.2:255.255.255.0::eth0:off"; then
	keep_log "$T/static.log"
fi
expect "net: ip= sets the address it names" "$T/static.log" 'unionroot: network: eth0 10\.0\.2\.15 \(ip=\)'
expect "net: the records say the address was static" "$T/static.log" "^PROTO='none'"

# 6. a boot without a network layer on a machine with an e1000: no NIC
# driver, no nbd, no NFS client (sunrpc's and nfsv4's load lines), no
# network step (the board's own disk layer)
if ! boot "$T/local.log" none 'echo MARK-local-root' --net 'hubport,id=n0,hubid=1' --nic e1000 \
	--append 'union.upper=tmpfs'; then
	keep_log "$T/local.log"
fi
expect "net: a local boot with a NIC present reaches the real init" "$T/local.log" '^MARK-local-root'
expect_not "net: a boot without a network layer loads no NIC driver, nbd nor NFS client" "$T/local.log" \
	'e1000: Intel|nbd: registered|RPC: Registered|NFS: Registering|unionroot: network' \
	"the network's drivers loaded for a local boot"
