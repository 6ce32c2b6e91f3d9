#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The differential test's other half (tests/host/differential.sh): a random
stream of file operations applied to two views of the same image, one a
kernel overlay, one the copy-up backend's upper/; the views compared; the
diff each backend should print, computed from the image and the operation
log.

  oplog.py image DIR SEED         fill DIR with a random image tree
  oplog.py ops A B SEED N LOG     N random operations on view A, then on view B;
                                  an operation A refuses is checked to fail the
                                  same way on B, EXDEV (overlay's lower directory
                                  rename) is skipped on both; LOG gets the replaced
                                  image directories, one a line
  oplog.py same A B               the two views are equal (types, modes, owners,
                                  sizes, contents, link targets); times aside
  oplog.py expect BASE VIEW LOG overlay|copyup
                                  the diff lines the backend should print
"""
import errno
import hashlib
import os
import random
import shutil
import stat
import sys

OWNERS = [(0, 0), (1000, 1000), (0, 42)]


def image(top, seed):
    r = random.Random(seed)
    dirs = [""]
    for i in range(60):
        parent = r.choice(dirs)
        kind = r.random()
        path = os.path.join(top, parent, "e%02d" % i)
        if kind < 0.3 and len(dirs) < 25:
            os.mkdir(path, r.choice([0o755, 0o700, 0o1777]))
            dirs.append(os.path.join(parent, "e%02d" % i))
        elif kind < 0.85:
            with open(path, "wb") as f:
                f.write(r.randbytes(r.choice([0, 1, 100, 5000, 70000])))
            os.chmod(path, r.choice([0o644, 0o600, 0o755, 0o4755]))
        else:
            os.symlink(r.choice(["/etc/hostname", "../x", "e00", "/nowhere"]), path)
        uid, gid = r.choice(OWNERS)
        os.lchown(path, uid, gid)


def entries(top):
    """path -> (type, mode, uid, gid, size, content digest or link target)"""
    out = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            rel = "/" + os.path.relpath(p, top)
            what = ""
            if stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    what = hashlib.sha256(f.read()).hexdigest()
            elif stat.S_ISLNK(st.st_mode):
                what = os.readlink(p)
            size = st.st_size if not stat.S_ISDIR(st.st_mode) else 0
            out[rel] = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, size, what)
    return out


def same(a, b):
    ea, eb = entries(a), entries(b)
    bad = sorted(p for p in set(ea) | set(eb) if ea.get(p) != eb.get(p))
    for p in bad[:5]:
        print("differs: %s: %s vs %s" % (p, ea.get(p), eb.get(p)))
    return 1 if bad else 0


def pick(r, view, want):
    """a random existing path of the view (relative), of a kind; None if none"""
    paths = [p for p, e in entries(view).items() if want(e[0])]
    return r.choice(sorted(paths))[1:] if paths else None


def new_name(r, view):
    dirs = [""] + [p[1:] for p, e in entries(view).items() if e[0] == stat.S_IFDIR]
    return os.path.join(r.choice(sorted(dirs)), "n%d" % r.randrange(1000000))


def plan(r, view, base_dirs):
    """one operation as (name, args), versus the current view"""
    any_ = lambda t: True
    reg = lambda t: t == stat.S_IFREG
    nondir = lambda t: t != stat.S_IFDIR
    isdir = lambda t: t == stat.S_IFDIR
    k = r.choice(["create", "create", "write", "write", "truncate", "chmod", "chown", "symlink",
                  "link", "rename", "rename", "unlink", "unlink", "rmdir", "mkdir", "replace",
                  "relink", "dirmove"])
    if k in ("create", "mkdir"):
        return (k, new_name(r, view), r.randbytes(r.choice([0, 10, 3000])), 0)
    if k == "symlink":
        return (k, new_name(r, view), r.choice(["/etc/passwd", "../..", "x"]), 0)
    if k in ("write", "truncate"):
        p = pick(r, view, reg)
        return (k, p, r.randbytes(r.randrange(1, 200)), r.randrange(0, 6000)) if p else None
    if k in ("chmod", "chown"):
        p = pick(r, view, any_)
        return (k, p, None, r.choice([0o600, 0o755, 0o2755, 0o444]) if k == "chmod" else r.randrange(len(OWNERS))) if p else None
    if k == "link":
        p = pick(r, view, reg)
        return (k, p, new_name(r, view), 0) if p else None
    if k == "rename":
        p = pick(r, view, any_)
        if not p:
            return None
        dst = pick(r, view, nondir) if r.random() < 0.3 else new_name(r, view)
        return (k, p, dst, 0)
    if k == "relink":  # ln -sfn to the same target: the link is the user's now
        p = pick(r, view, lambda t: t == stat.S_IFLNK)
        return (k, p, None, 0) if p else None
    if k == "dirmove":  # mv of a directory, often one of the image
        live = sorted(d for d in base_dirs if os.path.isdir(os.path.join(view, d)))
        p = r.choice(live) if live and r.random() < 0.6 else pick(r, view, isdir)
        return ("rename", p, new_name(r, view), 0) if p else None
    if k == "unlink":
        p = pick(r, view, nondir)
        return (k, p, None, 0) if p else None
    if k == "rmdir":
        p = pick(r, view, isdir)
        return (k, p, None, 0) if p else None
    if k == "replace":  # a directory of the image replaced by a new one
        live = sorted(d for d in base_dirs if os.path.isdir(os.path.join(view, d)) and not os.path.islink(os.path.join(view, d)))
        return (k, r.choice(live), r.randbytes(50), 0) if live else None
    return None


def apply(view, op):
    k, p, data, n = op
    path = os.path.join(view, p)
    try:
        if k == "create":
            with open(path, "xb") as f:
                f.write(data)
        elif k == "mkdir":
            os.mkdir(path, 0o750)
        elif k == "symlink":
            os.symlink(data, path)
        elif k == "write":
            with open(path, "r+b") as f:
                f.seek(n)
                f.write(data)
        elif k == "truncate":
            os.truncate(path, n)
        elif k == "chmod":
            os.chmod(path, n, follow_symlinks=False) if not os.path.islink(path) else None
        elif k == "chown":
            os.lchown(path, *OWNERS[n])
        elif k == "link":
            os.link(path, os.path.join(view, data), follow_symlinks=False)
        elif k == "rename":
            os.rename(path, os.path.join(view, data))
        elif k == "relink":
            target = os.readlink(path)
            os.unlink(path)
            os.symlink(target, path)
        elif k == "unlink":
            os.unlink(path)
        elif k == "rmdir":
            os.rmdir(path)
        elif k == "replace":
            shutil.rmtree(path)
            os.mkdir(path, 0o755)
            with open(os.path.join(path, "new"), "wb") as f:
                f.write(data)
    except OSError as e:
        return e.errno
    return 0


def ops(a, b, seed, count, log):
    r = random.Random(seed)
    base_dirs = [p[1:] for p, e in entries(a).items() if e[0] == stat.S_IFDIR]
    applied = skipped = alike = dirmoves = 0
    with open(log, "a") as lf:
        for _ in range(count):
            op = plan(r, a, base_dirs)
            if op is None:
                continue
            ea = apply(a, op)
            if ea == errno.EXDEV:  # overlay without redirect_dir: mv copies instead
                skipped += 1
                continue
            eb = apply(b, op)
            if ea != eb:
                print("operation %s %s: the overlay says %s, copy-up says %s" %
                      (op[0], op[1], os.strerror(ea) if ea else "ok", os.strerror(eb) if eb else "ok"))
                return 1
            applied += 1
            alike += ea != 0
            dirmoves += op[0] == "rename" and not ea and os.path.isdir(os.path.join(a, op[2]))
            if op[0] == "replace" and not ea:
                lf.write(op[1] + "\n")
            if op[0] in ("rmdir", "rename") and not ea:
                lf.write("gone " + op[1] + "\n")
    print("%d operations, %d failing alike, %d directories moved, %d skipped (EXDEV)" %
          (applied, alike, dirmoves, skipped))
    return 0


def expect(base, view, log, backend):
    """The diff lines a backend prints for VIEW over the image BASE. LOG
    names the image directories that were replaced or removed: an overlay
    keeps them as opaque directories (D and A, everything in them A); the
    copy-up backend compares them path by path with the image."""
    gone = set()
    with open(log) as lf:
        for line in lf:
            line = line.rstrip("\n")
            gone.add(line[5:] if line.startswith("gone ") else line)
    eb, ev = entries(base), entries(view)
    lines = []

    def changed(p):
        b, v = eb[p], ev[p]
        if b[0] != v[0] or b[1:4] != v[1:4]:
            return True
        if b[0] == stat.S_IFDIR:
            return False
        bs, vs = os.lstat(os.path.join(base, p[1:])), os.lstat(os.path.join(view, p[1:]))
        return b[4:] != v[4:] or bs.st_mtime_ns != vs.st_mtime_ns

    def walk(rel, opaque):
        names = set()
        for top, tree in ((base, eb), (view, ev)):
            d = os.path.join(top, rel[1:])
            if os.path.isdir(d) and not os.path.islink(d) and not (top == base and opaque):
                names.update(os.listdir(d))
        for name in sorted(names):
            p = rel + name
            inb, inv = p in eb and not opaque, p in ev
            if inb and not inv:
                lines.append("D " + p)
                continue
            if not inb:
                lines.append("A " + p)
                if ev[p][0] == stat.S_IFDIR:
                    walk(p + "/", True)
                continue
            bdir, vdir = eb[p][0] == stat.S_IFDIR, ev[p][0] == stat.S_IFDIR
            if backend == "overlay" and vdir and (not bdir or p[1:] in gone):
                lines.extend(["D " + p, "A " + p])
                walk(p + "/", True)
                continue
            if changed(p):
                lines.append("M " + p)
            if vdir:
                walk(p + "/", not bdir)
    walk("/", False)
    for line in sorted(lines):
        print(line)
    return 0


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "image" and len(argv) == 4:
        image(argv[2], int(argv[3]))
        return 0
    if cmd == "ops" and len(argv) == 7:
        return ops(argv[2], argv[3], int(argv[4]), int(argv[5]), argv[6])
    if cmd == "same" and len(argv) == 4:
        return same(argv[2], argv[3])
    if cmd == "expect" and len(argv) == 6:
        return expect(argv[2], argv[3], argv[4], argv[5])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
