#!/usr/bin/env python3
"""libsimdex.so exports the public API and nothing else.

  library_exports_test.py LIBSIMDEX_SO INCLUDE_DIR

Every defined dynamic symbol (nm -D --defined-only, demangled) must be simdex::NAME... (or the
typeinfo/vtable of a simdex class) where NAME is a class, struct or function that
include/simdex/*.h declares with SIMDEX_EXPORT (or a member of such a class): no std:: template
instance, no internal namespace (simdex::format::..., simdex::cli::...).
"""
import glob
import os
import re
import subprocess
import sys


def public_names(include_dir):
    names = set()
    for header in glob.glob(os.path.join(include_dir, "simdex", "*.h")):
        if header.endswith("export.h"):  # defines the mark
            continue
        text = open(header, encoding="utf-8").read()
        names.update(re.findall(r"\b(?:class|struct) SIMDEX_EXPORT (\w+)", text))
        names.update(re.findall(r"SIMDEX_EXPORT [^;{(]*?(\w+)\(", text))
    return names


def main():
    library, include_dir = sys.argv[1], sys.argv[2]
    names = public_names(include_dir)
    out = subprocess.run(["nm", "-D", "--defined-only", "-C", library], check=True, capture_output=True, text=True).stdout
    symbols = [line.split(" ", 2)[2] for line in out.splitlines() if line.count(" ") >= 2]
    bad = []
    for symbol in symbols:
        name = re.sub(r"^(typeinfo name for|typeinfo for|vtable for) ", "", symbol)
        m = re.match(r"simdex::(\w+)", name)
        if not m or m.group(1) not in names:
            bad.append(symbol)
    for symbol in bad:
        print("not public API: " + symbol)
    print("%s: %d exported symbols, %d not public API (public names: %s)"
          % (os.path.basename(library), len(symbols), len(bad), " ".join(sorted(names))))
    return 1 if bad or not symbols else 0


if __name__ == "__main__":
    sys.exit(main())
