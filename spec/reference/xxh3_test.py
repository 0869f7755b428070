#!/usr/bin/env python3
"""Check the pure-Python XXH3-64 of xxh3.py against the C library (libxxhash, through ctypes).

    python3 spec/reference/xxh3_test.py [--lib libxxhash.so.0]

Every input length 0..2000 (every path: 0, 1-3, 4-8, 9-16, 17-128, 129-240, and >240 with its
stripes, accumulators and scrambles), then larger lengths around the 1024-byte block boundaries,
random and patterned bytes. Last line `N passed, N failed`; exit status 0 only if nothing failed.
Exit status 77 (skipped) if the C library cannot be loaded.
"""

import ctypes
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xxh3 import checksum32, xxh3_64  # noqa: E402


def load(name):
    lib = ctypes.CDLL(name)
    f = lib.XXH3_64bits
    f.restype = ctypes.c_uint64
    f.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    return f


def run(libname="libxxhash.so.0"):
    try:
        c_xxh3 = load(libname)
    except OSError as e:
        print("SKIP: cannot load %s: %s" % (libname, e))
        return None
    rng = random.Random(1234)
    lengths = list(range(0, 2001))
    lengths += [2047, 2048, 2049, 3071, 3072, 3073, 4096, 5000, 10239, 10240, 10241, 65536 + 7,
                (1 << 20) + 3]
    passed = failed = 0
    for n in lengths:
        for data in (rng.randbytes(n), bytes([0xFF]) * n, bytes(i & 0xFF for i in range(n))):
            want = c_xxh3(data, n)
            got = xxh3_64(data)
            if got == want and checksum32(data) == want & 0xFFFFFFFF:
                passed += 1
            else:
                failed += 1
                if failed <= 10:
                    print("FAIL length %d: python %016x, libxxhash %016x" % (n, got, want))
    return passed, failed


def main(argv):
    lib = argv[argv.index("--lib") + 1] if "--lib" in argv else "libxxhash.so.0"
    r = run(lib)
    if r is None:
        return 77
    print("%d passed, %d failed" % r)
    return 0 if r[1] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
