#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reads a bitbake recipe (and the layer.conf before it) as bitbake reads
what tests/host/recipes.sh needs of them: assignments (=, ?=, ??=, :=, +=,
.=, =+, with backslash continuations), ${VAR} expansion and inline python
${@...}, and shell functions. Prints a shell script: each variable asked
for as VAR='value', then each function asked for with its ${VAR}s
expanded as bitbake expands them before running it (a name it does not
know stays for the shell).
Usage: recipes-bb.py VAR=VALUE... -- FILE... -- NAME... (NAME: a variable,
printed with each character a shell name cannot hold as _, or a function
as NAME())"""
import os
import re
import shlex
import sys

args = sys.argv[1:]
i = args.index("--")
j = args.index("--", i + 1)
env = dict(a.split("=", 1) for a in args[:i])
files, names = args[i + 1:j], args[j + 1:]
funcs = {}


def expand(s, depth=0):
    if depth > 20:
        raise SystemExit("recipes-bb: recursion expanding %r" % s)
    def var(m):
        name = m.group(1)
        return expand(env[name], depth + 1) if name in env else m.group(0)
    s = re.sub(r"\$\{([A-Za-z0-9_:+.-]+)\}", var, s)
    def py(m):
        return str(eval(expand(m.group(1), depth + 1), {"os": os}))
    return re.sub(r"\$\{@(.*?)\}(?=[\";]|$)", py, s)


for f in files:
    lines = open(f).read().split("\n")
    if f.endswith("layer.conf"):
        env["LAYERDIR"] = os.path.dirname(os.path.dirname(os.path.abspath(f)))
    k = 0
    while k < len(lines):
        line = lines[k]
        k += 1
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_:-]*)\(\) \{$", line)
        if m:
            body = []
            while lines[k] != "}":
                body.append(lines[k])
                k += 1
            k += 1
            funcs[m.group(1)] = "\n".join(body)
            continue
        while line.endswith("\\"):
            line = line[:-1] + " " + lines[k].strip()
            k += 1
        m = re.match(r'^(?:export )?([A-Za-z_][A-Za-z0-9_:${}-]*) *(\?\?=|\?=|:=|\+=|\.=|=\+|=) *"(.*)"$', line)
        if not m:
            continue
        name, op, val = m.groups()
        name = expand(name)
        if op == ":=":
            env[name] = expand(val)
        elif op in ("?=", "??="):
            env.setdefault(name, val)
        elif op == "+=":
            env[name] = env.get(name, "") + " " + val
        elif op == ".=":
            env[name] = env.get(name, "") + val
        elif op == "=+":
            env[name] = val + " " + env.get(name, "")
        else:
            env[name] = val

for n in names:
    if n.endswith("()"):
        n = n[:-2]
        if n not in funcs:
            raise SystemExit("recipes-bb: no function %s in %s" % (n, " ".join(files)))
        print("%s() {\n%s\n}" % (n, expand(funcs[n])))
    else:
        key = expand(n)
        print("%s=%s" % (re.sub(r"[^A-Za-z0-9_]", "_", key), shlex.quote(expand(env.get(key, "")))))
