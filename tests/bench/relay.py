#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make fleet's byte counter (tests/bench/fleet): a TCP relay on 127.0.0.1
between the clients' guestfwds and the server, counting the bytes of TCP
payload each way, per client.

  relay.py PORTS COUNTS NAME:TARGET...
  relay.py --pipe PORT

For each NAME:TARGET it listens on a free port of 127.0.0.1 and relays every
connection made there to 127.0.0.1:TARGET, as many as the client opens. PORTS gets one line
"NAME TARGET PORT" a pair, written whole (by rename) once every pair
listens. COUNTS gets one line a NAME, "NAME CONNECTIONS FROM_SERVER
TO_SERVER" (bytes), rewritten whole after each connection ends and when the
relay gets SIGTERM or SIGINT, its only way to end.

--pipe PORT is what a client's guestfwd runs ("guestfwd=tcp:A:P-cmd:python3
relay.py --pipe PORT"): QEMU's user network starts that command once for
each TCP connection the guest opens to A:P, the connection on its standard
input and output (and error: this mode prints nothing), and it copies the
connection to and from 127.0.0.1:PORT, the relay's port for that client.
A guestfwd to a fixed "tcp:" address instead is one chardev: QEMU opens
its one TCP connection to the server when it starts, and every guest
connection to A:P shares that one byte stream. The server never sees a
guest's second connection (the nfs: layer's reachability check, then its
mount; an NFS client's reconnect) as one, a relay counts one connection in
all, and once the server ends that stream nothing reaches it any more.
"""
import os
import signal
import socket
import sys
import threading

COUNT_LOCK = threading.Lock()
WRITE_LOCK = threading.Lock()
COUNTS = {}  # NAME -> [connections, bytes from the server, bytes to it]


def write_whole(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="ascii") as f:
        f.write(text)
    os.replace(tmp, path)


def write_counts(path):
    with WRITE_LOCK:
        with COUNT_LOCK:
            text = "".join("%s %d %d %d\n" % (n, c[0], c[1], c[2])
                           for n, c in sorted(COUNTS.items()))
        write_whole(path, text)


def pump(src, dst, name, field):
    """Copies src to dst until src ends or either fails; then ends dst's
    writing side, so the far end sees the end too."""
    while True:
        try:
            data = src.recv(65536)
        except OSError:
            break
        if not data:
            break
        try:
            dst.sendall(data)
        except OSError:
            break
        with COUNT_LOCK:
            COUNTS[name][field] += len(data)
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def relay(conn, name, target, counts_path):
    try:
        server = socket.create_connection(("127.0.0.1", target))
    except OSError as e:
        print("relay: %s: 127.0.0.1:%d refused the relay: %s" % (name, target, e),
              file=sys.stderr)
        conn.close()
        return
    with COUNT_LOCK:
        COUNTS[name][0] += 1
    down = threading.Thread(target=pump, args=(server, conn, name, 1), daemon=True)
    down.start()
    pump(conn, server, name, 2)
    down.join()
    conn.close()
    server.close()
    write_counts(counts_path)


def serve(listener, name, target, counts_path):
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=relay, args=(conn, name, target, counts_path),
                         daemon=True).start()


def pipe(port):
    """One guest connection on fds 0 and 1 (one socket) to 127.0.0.1:port,
    until either end ends. Silent: fd 2 is the guest's connection too."""
    try:
        guest = socket.socket(fileno=os.dup(0))
        relay_conn = socket.create_connection(("127.0.0.1", port))
    except OSError:
        os._exit(1)
    COUNTS["pipe"] = [0, 0, 0]
    down = threading.Thread(target=pump, args=(relay_conn, guest, "pipe", 1), daemon=True)
    down.start()
    pump(guest, relay_conn, "pipe", 2)
    down.join()
    os._exit(0)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--pipe" and sys.argv[2].isdigit():
        sys.stderr = open(os.devnull, "w", encoding="ascii")
        pipe(int(sys.argv[2]))
    if len(sys.argv) < 4:
        sys.exit("usage: relay.py PORTS COUNTS NAME:TARGET...")
    ports_path, counts_path = sys.argv[1], sys.argv[2]
    pairs = []
    for arg in sys.argv[3:]:
        name, _, target = arg.rpartition(":")
        if not name or not target.isdigit() or not 0 < int(target) < 65536:
            sys.exit("relay: '%s' is not NAME:PORT" % arg)
        pairs.append((name, int(target)))
    listeners = []
    for name, target in pairs:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", 0))
        s.listen(16)
        listeners.append((s, name, target))
        COUNTS.setdefault(name, [0, 0, 0])
    write_counts(counts_path)

    def stop(_sig, _frame):
        write_counts(counts_path)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for s, name, target in listeners:
        threading.Thread(target=serve, args=(s, name, target, counts_path),
                         daemon=True).start()
    write_whole(ports_path, "".join("%s %d %d\n" % (name, target, s.getsockname()[1])
                                    for s, name, target in listeners))
    while True:
        signal.pause()


if __name__ == "__main__":
    main()
