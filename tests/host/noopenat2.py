#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""noopenat2.py COMMAND [ARG]...: runs COMMAND with openat2(2) answering
ENOSYS, as on a kernel before 5.6 (a seccomp filter, kept across exec)."""
import ctypes
import os
import struct
import sys

NR_OPENAT2 = 437  # the same number on every architecture since 5.6
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
RET_ERRNO, RET_ALLOW, ENOSYS = 0x00050000, 0x7FFF0000, 38


def bpf(code, jt, jf, k):
    return struct.pack("HBBI", code, jt, jf, k)


def main():
    prog = b"".join([
        bpf(0x20, 0, 0, 0),  # load seccomp_data.nr
        bpf(0x15, 0, 1, NR_OPENAT2),  # openat2?
        bpf(0x06, 0, 0, RET_ERRNO | ENOSYS),
        bpf(0x06, 0, 0, RET_ALLOW),
    ])
    buf = ctypes.create_string_buffer(prog)
    fprog = struct.pack("HxxxxxxP", len(prog) // 8, ctypes.addressof(buf))
    libc = ctypes.CDLL(None, use_errno=True)
    if (libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or
            libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.c_char_p(fprog)) != 0):
        sys.exit("noopenat2: seccomp: " + os.strerror(ctypes.get_errno()))
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    main()
