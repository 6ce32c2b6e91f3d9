#!/bin/bash
# SPDX-License-Identifier: MIT
# A read-only layer on NFS on the other architectures' boards, each with
# Debian's kernel and the NIC driver and NFSv4 client its module pack
# carries (board/*/modules): arm64 (qemu-aarch64, -M virt, a
# virtio-net-pci NIC: virtio_net) and 32-bit MIPS (qemu-mipsel, -M malta,
# QEMU's pcnet: pcnet32). One nfs-ganesha as tests/qemu/net-nfs.sh starts
# it (root, 127.0.0.1 at a free port, NFSv4 only, graceless, read-only)
# exports /srv, a directory for each board holding that board's squashfs
# (the two boards' roots differ: each image holds its own architecture's
# busybox). The guest reaches it only through QEMU's user network with
# restrict=on and one guestfwd (10.0.2.100:2049). Each board boots once:
# the image on the export as the layer on a loop device, a tmpfs branch;
# the layer's line, the status naming nfs:, the NIC's driver, and the real
# init running on the union. BOARD=qemu-aarch64 or BOARD=qemu-mipsel boots
# that board only; any other BOARD (make check's) boots both. Each boot's
# seconds go to stderr: 10 to 25 s each under TCG (the host's load),
# 25 to 40 s for both.
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
case $BOARD in
qemu-aarch64 | qemu-mipsel) BOARDS=$BOARD ;;
*) BOARDS="qemu-aarch64 qemu-mipsel" ;;
esac
need_root net-arch || exit 0
need_ganesha net-arch || exit 0
scratch net-arch
mkdir -p "$T/export" "$T/nfs"
# the boards that can boot here, each with its image on the export
want=
for b in $BOARDS; do
	# shellcheck source=/dev/null
	q=$(. "$ROOT_DIR/board/$b/build.conf" && echo "$QEMU")
	if ! command -v "$q" >/dev/null; then
		skip "net-arch: $b" "$q not installed"
		continue
	fi
	missing=
	for f in vmlinuz initramfs.cpio.gz rootfs.squashfs; do
		[ -f "$BUILD/$b/$f" ] || missing=$BUILD/$b/$f
	done
	if [ -n "$missing" ]; then
		skip "net-arch: $b" "$missing missing (make initramfs images BOARD=$b)"
		continue
	fi
	mkdir -p "$T/export/$b"
	cp "$BUILD/$b/rootfs.squashfs" "$T/export/$b/rootfs.squashfs"
	want+=" $b"
done
[ -n "$want" ] || exit 0
GANESHA_PID=
trap 'kill -KILL $GANESHA_PID 2>/dev/null; rm -rf "$T"' EXIT
if ! read -r PORT GANESHA_PID < <("$TESTS_DIR/bench/nfs-serve" "$T/nfs" /srv="$T/export" 2>"$T/nfs.err"); then
	fail "net-arch: nfs-ganesha listens on 127.0.0.1" "it does not: $(cat "$T/nfs.err")"
	exit 0
fi
USERNET="user,id=n0,restrict=on,guestfwd=tcp:10.0.2.100:2049-tcp:127.0.0.1:$PORT"
export BOOT_TIMEOUT=300

for BOARD in $want; do
	OUTDIR=$BUILD/$BOARD
	case $BOARD in
	qemu-aarch64) nic=virtio-net-pci driver=virtio_net arch=aarch64 ;;
	qemu-mipsel) nic=pcnet driver=pcnet32 arch=mips ;;
	esac
	name="net-arch: $BOARD"
	layer="nfs:10\\.0\\.2\\.100:/srv:/$BOARD/rootfs\\.squashfs"
	log=$T/$BOARD.log
	t0=$(date +%s)
	if boot "$log" none 'echo "MARK-arch=$(uname -m)"
		echo "MARK-nic=$(basename "$(readlink /sys/class/net/eth0/device/driver)")"
		/run/unionroot/bin/unionroot status | sed "s/^/STATUS: /"
		head -c 4 /etc/os-release >/dev/null && echo MARK-root-reads' \
		--lower none --net "$USERNET" --nic "$nic" \
		--append "union.lower=nfs:10.0.2.100:/srv:/$BOARD/rootfs.squashfs union.upper=tmpfs union.wait=120"; then
		pass "$name: the image on an NFS export boots with a tmpfs branch ($nic)"
	else
		fail "$name: the image on an NFS export boots with a tmpfs branch ($nic)" "no clean boot (see $BUILD/tests/)"
		keep_log "$log" "$T/nfs/ganesha.log"
	fi
	echo "$name: the boot took $(($(date +%s) - t0)) s" >&2
	expect "$name: the guest is $arch" "$log" "^MARK-arch=$arch\$"
	expect "$name: the NIC is $driver's, from the board's modules" "$log" "^MARK-nic=$driver\$"
	expect "$name: the image on the export is on a loop device, NFSv4, hard" "$log" \
		"unionroot: read-only layer 1: $layer is /dev/loop[0-9]+ \\(NFS 4\\.[0-2], read-only, hard\\)"
	expect "$name: status names nfs:, the server, the address and the hard mount" "$log" \
		"^STATUS: lower1_image=$layer over eth0 10\\.0\\.2\\.15 \\(DHCP\\), hard mount, NFS 4\\.[0-2]"
	expect "$name: status says the branch is tmpfs" "$log" '^STATUS: upper=tmpfs - tmpfs '
	expect "$name: the real init runs on the union" "$log" '^real-init: root: overlay / overlay rw'
	expect "$name: the root reads from the export" "$log" '^MARK-root-reads'
done
