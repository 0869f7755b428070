#!/usr/bin/env python3
"""Planted queries for the scale runs (scripts/scale).

    scale_queries.py plant SAMPLES > QUERIES   # each sampled fingerprint with 3 random bits flipped
    scale_queries.py check SAMPLES QUERIES HITS  # every planted query found its fingerprint and id

SAMPLES holds `INDEX<TAB>0xFINGERPRINT` lines (bench/gen_fingerprints N SEED STEP): the fingerprint
stored with id INDEX. HITS is `simdex query` output (QUERY, FINGERPRINT, DISTANCE, IDS, decimal).
check prints "N of N planted queries found" and exits 1 when one is missing.
"""
import random
import sys


def read_samples(path):
    with open(path) as f:
        return [(int(i), int(fp, 16)) for i, fp in (line.split("\t") for line in f if line.strip())]


def plant(samples_path):
    rng = random.Random(3)
    for _, fp in read_samples(samples_path):
        bits = rng.sample(range(64), 3)
        q = fp
        for b in bits:
            q ^= 1 << b
        print("0x%016x" % q)


def check(samples_path, queries_path, hits_path):
    samples = read_samples(samples_path)
    with open(queries_path) as f:
        queries = [int(line, 16) for line in f if line.strip()]
    found = {}  # (query, fingerprint) -> (distance, ids)
    with open(hits_path) as f:
        for line in f:
            q, fp, dist, ids = line.rstrip("\n").split("\t")
            found[(int(q), int(fp))] = (int(dist), ids.split(","))
    ok = 0
    for (index, fp), q in zip(samples, queries):
        dist, ids = found.get((q, fp), (None, []))
        if dist == 3 and str(index) in ids:
            ok += 1
        else:
            print("missing: query 0x%016x should find 0x%016x (id %d) at distance 3" % (q, fp, index), file=sys.stderr)
    print("%d of %d planted queries found" % (ok, len(samples)))
    return 0 if ok == len(samples) == len(queries) else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "plant":
        plant(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "check":
        sys.exit(check(*sys.argv[2:]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
