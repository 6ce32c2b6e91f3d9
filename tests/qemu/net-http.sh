#!/bin/bash
# SPDX-License-Identifier: MIT
# A read-only layer fetched to RAM over plain HTTP: Python's http.server on
# 127.0.0.1 (a free port) serves the board's squashfs with its dm-verity
# tree appended (veritysetup); the guest reaches it only through QEMU's
# user network with restrict=on and one guestfwd (10.0.2.100:8000), never
# a host interface (the guestfwd's chardev is one connection a boot: one
# fetch a boot). Stories: the image fetched into a tmpfs, on a loop
# device, verified and booted as the union's layer with a tmpfs branch; the
# same fetch of an image with one byte changed refused by verity, to
# union.onfail=halt; a layer without union.verity nor union.insecure=1
# refused before anything is fetched, in one line; and with
# union.insecure=1 a URL that answers a page of HTML: fetched with a
# warning, then refused as no file system, in one line. Four boots.
# shellcheck disable=SC2016 # the commands run in the guest, expanded there
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
need_qemu net-http || exit 0
need_tools net-http veritysetup python3 || exit 0
scratch net-http
# shellcheck source=tests/verity-images.sh
source "$(dirname "$0")/../verity-images.sh"
mkdir -p "$T/www"
cp "$OUTDIR/rootfs.squashfs" "$T/www/good.img"
SIZE=$(stat -c %s "$T/www/good.img")
ROOT=$(veritysetup format --hash-offset="$SIZE" --data-blocks=$((SIZE / 4096)) \
	"$T/www/good.img" "$T/www/good.img" | sed -n 's/^Root hash:[[:space:]]*//p')
if [ "${#ROOT}" != 64 ] || [ $((SIZE % 4096)) != 0 ]; then
	fail "net-http: a verity image is made" "veritysetup gave root hash '$ROOT' over $SIZE bytes"
	exit 0
fi
# one byte of the squashfs's first block changed: verity's first read fails
cp "$T/www/good.img" "$T/www/tampered.img"
flip_at "$T/www/tampered.img" 1000
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 "$PORT" --directory "$T/www" >"$T/http.log" 2>&1 &
HTTP_PID=$!
trap 'kill "$HTTP_PID" 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 50); do
	python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$PORT" \
		2>/dev/null && break
	sleep 0.1
done
URL=http://10.0.2.100:8000
USERNET="user,id=n0,restrict=on,guestfwd=tcp:10.0.2.100:8000-tcp:127.0.0.1:$PORT"
NOBOOT='real-init: started'

# 1. the verified image fetched to RAM, a tmpfs branch on top
if boot "$T/good.log" none '/run/unionroot/bin/unionroot status | sed "s/^/STATUS: /"
	/run/unionroot/bin/unionroot plan | sed "s/^/PLAN: /"
	sed "s/^/MOUNT: /" /proc/mounts; head -c 4 /etc/os-release >/dev/null && echo MARK-root-reads' \
	--lower none --net "$USERNET" --nic e1000 \
	--append "union.lower=$URL/good.img union.verity=$ROOT union.upper=tmpfs union.wait=60"; then
	pass "net-http: a verified http:// layer boots with a tmpfs branch"
else
	fail "net-http: a verified http:// layer boots with a tmpfs branch" "no clean boot (see $T/good.log)"
	keep_log "$T/good.log"
fi
expect "net-http: the image is fetched with one GET, answered 200" "$T/http.log" '"GET /good.img HTTP/1.1" 200'
expect "net-http: it is in RAM on a loop device" "$T/good.log" \
	"unionroot: read-only layer 1: $URL/good.img is /dev/loop[0-9]+ \([0-9]+ bytes in RAM\)"
expect "net-http: the tmpfs holds it under /run/unionroot/http" "$T/good.log" '^MOUNT: http /run/unionroot/http/1 tmpfs'
expect "net-http: status shows the layer verified" "$T/good.log" "^STATUS: lower1_verity=verified, root hash $ROOT"
expect "net-http: status names the URL and the address it came over" "$T/good.log" \
	"$URL/good.img over eth0 10\.0\.2\.15 \(DHCP\), in RAM"
expect "net-http: the plan says the layer is fetched and verified" "$T/good.log" \
	'^PLAN: http +fetched to RAM, verified by union.verity'
expect "net-http: the root reads from the verified layer" "$T/good.log" '^MARK-root-reads'
expect_not "net-http: a verified layer is not called unauthenticated" "$T/good.log" 'unauthenticated' \
	"a verified layer was said unauthenticated"

# 2. the same fetch of an image with one byte changed: verity refuses it
# (the kernel names the block "corrupted": boot() fails on that word, so
# this story judges by its own lines)
boot "$T/tampered.log" none 'echo MARK-booted' --lower none --net "$USERNET" --nic e1000 \
	--append "union.lower=$URL/tampered.img union.verity=$ROOT union.upper=tmpfs union.wait=60 union.onfail=halt" || true
expect "net-http: the tampered image is fetched" "$T/http.log" '"GET /tampered.img HTTP/1.1" 200'
expect "net-http: verity refuses the tampered image, then union.onfail=halt" "$T/tampered.log" \
	'unionroot: read-only layer 1 /dev/loop[0-9]+: verity refused it: [^;]+; powering off \(union.onfail=halt\)'
expect_not "net-http: a tampered image is never mounted" "$T/tampered.log" "$NOBOOT|^MARK-booted" "the layer was mounted"

# 3. no union.verity, no union.insecure=1: refused before any fetch
boot "$T/plain.log" none 'echo MARK-booted' --lower none --net "$USERNET" --nic e1000 \
	--append "union.lower=$URL/plain.img union.upper=tmpfs union.onfail=halt" || true
expect "net-http: an unverified layer is refused in one line, then union.onfail=halt" "$T/plain.log" \
	"unionroot: read-only layer 1: $URL/plain.img is an unauthenticated image: give union.verity or union.insecure=1; powering off \(union.onfail=halt\)"
expect_not "net-http: nothing is fetched for a refused layer" "$T/http.log" 'GET /plain.img' "it was fetched"
expect_not "net-http: the network is not brought up for a refused layer" "$T/plain.log" "unionroot: network:|$NOBOOT" \
	"the network came up, or the boot went on"

# 4. union.insecure=1 takes a layer unverified, and a URL that answers a
# page (the server's listing of its folder) is fetched, then refused
boot "$T/page.log" none 'echo MARK-booted' --lower none --net "$USERNET" --nic e1000 \
	--append "union.lower=$URL/ union.insecure=1 union.upper=tmpfs union.onfail=halt union.wait=60" || true
expect "net-http: union.insecure=1 lets the fetch go" "$T/http.log" '"GET / HTTP/1.1" 200'
expect "net-http: an insecure layer is called unauthenticated" "$T/page.log" \
	"unionroot: read-only layer 1: $URL/ is taken unauthenticated \(union.insecure=1\)"
expect "net-http: a page, not an image, is refused in one line, then union.onfail=halt" "$T/page.log" \
	"unionroot: read-only layer 1: $URL/: the body holds no file system unionroot knows; powering off \(union.onfail=halt\)"
expect_not "net-http: a page is never mounted" "$T/page.log" "$NOBOOT|^MARK-booted" "the layer was mounted"
