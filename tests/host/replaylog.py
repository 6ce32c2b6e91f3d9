#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# A replayer for the kernel's dm-log-writes logs, written from the format in
# drivers/md/dm-log-writes.c and Documentation/admin-guide/device-mapper/
# log-writes.rst: what the disk held after any entry of a recorded run.
#
#   replaylog.py list LOG                 one line an entry: N FLAGS SECTOR COUNT [MARK]
#   replaylog.py replay LOG TARGET --to N [--from M]
#   replaylog.py replay LOG TARGET --to-mark NAME [--from M]
#
# replay writes entries M..N (1-based; M defaults to 1) onto TARGET, so a
# caller can step forward without starting over; --to-mark stops after the
# mark entry NAME. A discard is replayed as zeros (what a discarded range may
# read as).
import argparse
import os
import struct
import sys

MAGIC = 0x6A736677736872
FLAGS = ((1, "FLUSH"), (2, "FUA"), (4, "DISCARD"), (8, "MARK"), (16, "METADATA"))
SUPER = struct.Struct("<QQQI")  # magic, version, nr_entries, sectorsize
ENTRY = struct.Struct("<QQQQ")  # sector, nr_sectors, flags, data_len


class LogError(Exception):
    pass


def entries(f):
    """Yields (index, sector, nr_sectors, flags, mark, data offset, sectorsize)."""
    head = f.read(SUPER.size)
    if len(head) < SUPER.size:
        raise LogError("log too short for its super block")
    magic, version, count, ssize = SUPER.unpack(head)
    if magic != MAGIC or version != 1:
        raise LogError("not a dm-log-writes log (magic %#x version %d)" % (magic, version))
    if ssize < 512 or ssize & (ssize - 1):
        raise LogError("bad sector size %d" % ssize)
    pos = ssize  # the first entry follows the super block's sector
    for i in range(1, count + 1):
        f.seek(pos)
        raw = f.read(ssize)
        if len(raw) < ssize:
            raise LogError("entry %d is cut short" % i)
        sector, nr, flags, dlen = ENTRY.unpack_from(raw)
        mark = None
        if flags & 8:
            if dlen > ssize - ENTRY.size:
                raise LogError("entry %d: mark longer than its sector" % i)
            mark = raw[ENTRY.size:ENTRY.size + dlen].decode("utf-8", "replace")
        pos += ssize
        yield i, sector, nr, flags, mark, pos, ssize
        # a write's data follows its entry; a discard and a mark carry none
        if not flags & (4 | 8):
            pos += nr * ssize


def flag_names(flags):
    return ",".join(n for bit, n in FLAGS if flags & bit) or "-"


def cmd_list(args):
    with open(args.log, "rb") as f:
        for i, sector, nr, flags, mark, _, _ in entries(f):
            print(i, flag_names(flags), sector, nr, *([mark] if mark is not None else []))


def cmd_replay(args):
    done = False
    i = 0
    with open(args.log, "rb") as f, open(args.target, "r+b") as t:
        for i, sector, nr, flags, mark, data, ssize in entries(f):
            if args.to is not None and i > args.to:
                done = True
                break
            if i >= args.start and not flags & 8:
                t.seek(sector * ssize)
                if flags & 4:
                    t.write(bytes(nr * ssize))
                elif nr:
                    f.seek(data)
                    buf = f.read(nr * ssize)
                    if len(buf) != nr * ssize:
                        raise LogError("entry %d: data cut short" % i)
                    t.write(buf)
            if args.to_mark is not None and mark == args.to_mark:
                done = True
                break
        t.flush()
        os.fsync(t.fileno())
    if args.to_mark is not None and not done:
        raise LogError("no mark %r in the log" % args.to_mark)
    if args.to is not None and not done and i < args.to:
        raise LogError("the log has %d entries, fewer than %d" % (i, args.to))


def main():
    p = argparse.ArgumentParser(description="dm-log-writes replayer")
    sub = p.add_subparsers(dest="cmd", required=True)
    lp = sub.add_parser("list")
    lp.add_argument("log")
    rp = sub.add_parser("replay")
    rp.add_argument("log")
    rp.add_argument("target")
    rp.add_argument("--from", dest="start", type=int, default=1)
    g = rp.add_mutually_exclusive_group(required=True)
    g.add_argument("--to", type=int)
    g.add_argument("--to-mark")
    args = p.parse_args()
    try:
        (cmd_list if args.cmd == "list" else cmd_replay)(args)
    except (LogError, OSError) as e:
        print("replaylog: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
