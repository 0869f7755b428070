#!/usr/bin/env python3
"""Writes data/sample/fingerprints.tsv.gz: the fingerprint sample the README's demo indexes.

20,000 (fingerprint, id) pairs, deterministic (seed 2007): 4,000 clusters of near-duplicates, each a
random 64-bit center with up to 5 variants 1..3 bits away, plus a few exact duplicates (a fingerprint
shared by several document ids). Run it again and the file is byte-identical (gzip mtime 0).
"""
import gzip
import random

rng = random.Random(2007)
lines = []
doc = 0
while doc < 20000:
    center = rng.getrandbits(64)
    lines.append(f"0x{center:016x}\t{doc}")
    doc += 1
    for _ in range(rng.randint(0, 5)):
        if doc >= 20000:
            break
        x = center
        if rng.random() < 0.1:
            pass  # an exact duplicate: same fingerprint, another document
        else:
            for bit in rng.sample(range(64), rng.randint(1, 3)):
                x ^= 1 << bit
        lines.append(f"0x{x:016x}\t{doc}")
        doc += 1
with open("data/sample/fingerprints.tsv.gz", "wb") as raw:
    with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as out:
        out.write(("\n".join(lines) + "\n").encode())
