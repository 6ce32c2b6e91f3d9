#!/bin/bash
# SPDX-License-Identifier: MIT
# A read-only layer on NFS: Debian's nfs-ganesha (its VFS back end; the
# host kernel has no nfsd) runs as root on 127.0.0.1 at a free port, NFSv4
# only, started by tests/bench/nfs-serve, and exports two
# directories read-only: one holds the board's squashfs as a file
# (pseudo path /srv), the other the same image unpacked (/tree). The guest
# reaches it only through QEMU's user network with restrict=on and one
# guestfwd (10.0.2.100:2049), never a host interface. Stories: the image
# file on the export as the layer, on a loop device, with the board's
# local ext4 disk as the writable branch, the status naming nfs:, the
# server, the address and the hard mount; the directory tree as the layer
# itself with a tmpfs branch; the server absent (an address nothing
# answers on), an export the server lacks and an image missing from the
# export, one line each, then union.onfail=halt; the server killed in the
# middle of a session and restarted: a read of a file the client has
# not cached stalls while it is down (the mount is hard) and ends with the
# file's right bytes once it is back. That boot's guestfwd runs
# tests/bench/relay.py --pipe for each connection (a tcp: forward is one
# stream for the whole boot, dead once the server closes it, and the
# client's reconnection would find nothing); the server is
# graceless, so the client reopens its file without reclaiming it. Six
# boots, about 12 s each.
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu net-nfs || exit 0
need_root net-nfs || exit 0
need_ganesha net-nfs || exit 0
need_tools net-nfs unsquashfs mksquashfs md5sum || exit 0
scratch net-nfs
mkdir -p "$T/export" "$T/nfs"
cp "$OUTDIR/rootfs.squashfs" "$T/export/rootfs.squashfs"
unsquashfs -q -n -d "$T/tree" "$OUTDIR/rootfs.squashfs" >/dev/null
# start_server: nfs-ganesha (tests/bench/nfs-serve: NFSv4 only, graceless,
# read-only) exporting /srv and /tree, in GANESHA_PID, at PORT (the same
# port a second time); 1 when it does not listen
PORT=
start_server() {
	read -r PORT GANESHA_PID < <("$TESTS_DIR/bench/nfs-serve" ${PORT:+--port "$PORT"} "$T/nfs" \
		/srv="$T/export" /tree="$T/tree" 2>"$T/nfs.err")
}
GANESHA_PID=
trap 'kill -KILL $GANESHA_PID 2>/dev/null; rm -rf "$T"' EXIT
if ! start_server; then
	fail "net-nfs: nfs-ganesha listens on 127.0.0.1" "it does not: $(cat "$T/nfs.err")"
	exit 0
fi
USERNET="user,id=n0,restrict=on,guestfwd=tcp:10.0.2.100:2049-tcp:127.0.0.1:$PORT"
NOBOOT='real-init: started'

# 1. the image file on the export, on a loop device; the local disk's branch
new_data "$T/data.img"
if boot "$T/image.log" "$T/data.img" '/run/unionroot/bin/unionroot status | sed "s/^/STATUS: /"
	/run/unionroot/bin/unionroot plan | sed "s/^/PLAN: /"
	sed "s/^/MOUNT: /" /proc/mounts; head -c 4 /etc/os-release >/dev/null && echo MARK-root-reads' \
	--lower none --net "$USERNET" --nic e1000 \
	--append "union.lower=nfs:10.0.2.100:/srv:/rootfs.squashfs union.wait=60"; then
	pass "net-nfs: an image file on an NFS export boots with a local-disk branch"
else
	fail "net-nfs: an image file on an NFS export boots with a local-disk branch" "no clean boot (see $T/image.log)"
	keep_log "$T/image.log" "$T/nfs/ganesha.log"
fi
expect "net-nfs: the export is mounted read-only, hard, by NFSv4" "$T/image.log" \
	'^MOUNT: 10\.0\.2\.100:/srv /run/unionroot/nfs/1 nfs4 ro,.*vers=4\.[0-2],.*hard,proto=tcp,.*addr=10\.0\.2\.100'
expect "net-nfs: the image is on a loop device" "$T/image.log" \
	'unionroot: read-only layer 1: nfs:10\.0\.2\.100:/srv:/rootfs\.squashfs is /dev/loop[0-9]+ \(NFS 4\.[0-2], read-only, hard\)'
expect "net-nfs: status names nfs:, the server, the address and the hard mount" "$T/image.log" \
	'^STATUS: lower1_image=nfs:10\.0\.2\.100:/srv:/rootfs\.squashfs over eth0 10\.0\.2\.15 \(DHCP\), hard mount, NFS 4\.[0-2]'
expect "net-nfs: the writable branch is the local disk" "$T/image.log" '^STATUS: upper_state=persistent'
expect "net-nfs: the plan has the nfs row" "$T/image.log" '^PLAN: .* mount the nfs export of layer 1'
expect "net-nfs: the root reads from the export" "$T/image.log" '^MARK-root-reads'

# 2. the directory tree on the export is the layer itself; a tmpfs branch
if ! boot "$T/tree.log" none 'sed "s/^/MOUNT: /" /proc/mounts; /run/unionroot/bin/unionroot status | sed "s/^/STATUS: /"
	head -c 4 /etc/os-release >/dev/null && echo MARK-tree-reads' --lower none --net "$USERNET" --nic e1000 \
	--append "union.lower=nfs:10.0.2.100:/tree union.upper=tmpfs union.wait=60"; then
	keep_log "$T/tree.log" "$T/nfs/ganesha.log"
fi
expect "net-nfs: a tree on the export is the layer" "$T/tree.log" \
	'unionroot: read-only layer 1: nfs:10\.0\.2\.100:/tree is /run/unionroot/nfs/1 \(NFS 4\.[0-2], read-only, hard\)'
expect "net-nfs: the layer is the tree, bound read-only" "$T/tree.log" \
	'^MOUNT: 10\.0\.2\.100:/tree /run/unionroot/lower/0 nfs4 ro,'
expect "net-nfs: status says the tree's hard mount" "$T/tree.log" \
	'^STATUS: lower1_image=nfs:10\.0\.2\.100:/tree over eth0 10\.0\.2\.15 \(DHCP\), hard mount'
expect "net-nfs: the root reads from the tree" "$T/tree.log" '^MARK-tree-reads'

# 3. the server absent: nothing answers at 10.0.2.101 (restrict=on drops it)
boot "$T/noserver.log" none 'true' --lower none --net "$USERNET" --nic e1000 \
	--append "union.lower=nfs:10.0.2.101:/srv:/rootfs.squashfs@15 union.upper=tmpfs union.onfail=halt" || true
expect "net-nfs: an absent server is one line, then union.onfail=halt" "$T/noserver.log" \
	'unionroot: read-only layer 1: nfs:10\.0\.2\.101:/srv:/rootfs\.squashfs: server unreachable on port 2049: [^;]+; powering off \(union.onfail=halt\)'
expect_not "net-nfs: nothing runs without the NFS layer" "$T/noserver.log" "$NOBOOT" "the real init ran"

# the export refused, and the image missing from it: one line each
boot "$T/noexport.log" none 'true' --lower none --net "$USERNET" --nic e1000 \
	--append "union.lower=nfs:10.0.2.100:/nope:/rootfs.squashfs union.upper=tmpfs union.onfail=halt" || true
expect "net-nfs: an export the server lacks is one line, then union.onfail=halt" "$T/noexport.log" \
	'unionroot: read-only layer 1: nfs:10\.0\.2\.100:/nope:/rootfs\.squashfs: mounting 10\.0\.2\.100:/nope failed: the server exports no such path; powering off \(union.onfail=halt\)'
expect_not "net-nfs: nothing runs without the export" "$T/noexport.log" "$NOBOOT" "the real init ran"
boot "$T/noimage.log" none 'true' --lower none --net "$USERNET" --nic e1000 \
	--append "union.lower=nfs:10.0.2.100:/srv:/missing.squashfs union.upper=tmpfs union.onfail=halt" || true
expect "net-nfs: an image missing from the export is one line, then union.onfail=halt" "$T/noimage.log" \
	'unionroot: read-only layer 1: nfs:10\.0\.2\.100:/srv:/missing\.squashfs: image /missing\.squashfs is not on the export; powering off \(union.onfail=halt\)'
expect_not "net-nfs: nothing runs without the image" "$T/noimage.log" "$NOBOOT" "the real init ran"

# 4. the server killed and restarted during a session. The image has a
# file no boot step reads (4 MiB of random bytes, so squashfs stores it as
# it is); the guest drops its caches and reads it while the server is down
head -c 4M /dev/urandom >"$T/big"
cp -a "$T/tree" "$T/restart-root"
cp "$T/big" "$T/restart-root/big"
mksquashfs "$T/restart-root" "$T/export/restart.squashfs" -quiet -noappend >/dev/null
SUM=$(md5sum <"$T/big" | cut -d' ' -f1)
USERNET_EACH="user,id=n0,restrict=on,guestfwd=tcp:10.0.2.100:2049-cmd:python3 $TESTS_DIR/bench/relay.py --pipe $PORT"
boot "$T/restart.log" none 'echo MARK-stop-server; sleep 2; echo 3 >/proc/sys/vm/drop_caches
	read -r t0 _ </proc/uptime; echo "MARK-sum=$(md5sum </big | cut -d" " -f1)"; read -r t1 _ </proc/uptime
	echo "MARK-read-done from $t0 to $t1"
	/run/unionroot/bin/unionroot status | sed "s/^/STATUS: /"' --lower none --net "$USERNET_EACH" --nic e1000 \
	--append "union.lower=nfs:10.0.2.100:/srv:/restart.squashfs union.upper=tmpfs union.wait=60" &
BOOT_PID=$!
for _ in $(seq 1200); do
	grep -aq '^MARK-stop-server' "$T/restart.log" 2>/dev/null && break
	kill -0 "$BOOT_PID" 2>/dev/null || break
	sleep 0.1
done
if grep -aq '^MARK-stop-server' "$T/restart.log" 2>/dev/null; then
	kill -KILL "$GANESHA_PID"
	while kill -0 "$GANESHA_PID" 2>/dev/null; do sleep 0.1; done
	# the guest's read begins 2 s after its mark: the server is down 6 s
	sleep 6
	expect_not "net-nfs: a read stalls while the server is down (hard mount)" "$T/restart.log" \
		'^MARK-read-done' "the read ended with no server"
	start_server || fail "net-nfs: nfs-ganesha starts a second time" "it does not: $(tail -3 "$T/nfs/ganesha.log")"
else
	fail "net-nfs: the session with a server restart reaches its command" "no MARK-stop-server (see $T/restart.log)"
fi
wait "$BOOT_PID" || keep_log "$T/restart.log" "$T/nfs/ganesha.log"
sed -n 's/^MARK-read-done from \([0-9.]*\) to \([0-9.]*\)$/\1 \2/p' "$T/restart.log" |
	awk '{ printf "net-nfs: the read took %.1f s across the restart\n", $2 - $1 }'
expect "net-nfs: once the server is back the read ends with the file's bytes" "$T/restart.log" "^MARK-sum=$SUM\$"
expect "net-nfs: status names the hard mount the restart went through" "$T/restart.log" \
	'^STATUS: lower1_image=nfs:10\.0\.2\.100:/srv:/restart\.squashfs over eth0 10\.0\.2\.15 \(DHCP\), hard mount'
