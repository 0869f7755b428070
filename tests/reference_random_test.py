#!/usr/bin/env python3
"""Cross-check the C++ writer and reader against the independent Python reader of
spec/reference/simdex_ref.py on files built from random and clustered inputs.
First checks the reader's pure-Python XXH3-64 against libxxhash (ctypes) when it is installed.

    python3 tests/reference_random_test.py SIMDEX_BINARY [--seed N] [--rounds N] [-v]
    python3 tests/reference_random_test.py --python-only [--seed N] [-v]

First, with the spec's reference alone (no CLI): files built by the spec's writer rules
(simdex_ref.build_bytes) from random, clustered and low-entropy fingerprints (dense prefixes: many
blocks in one slot of BLOCK_DIRECTORY), with tables of 0 to 3 blocks and many, each written with the
writer's BLOCK_DIRECTORY (2.2), as 2.1 (the writer's d_t, and finer ones), without one (2.0 and
1.x) and with other d_t (0 in some tables, finer than the writer's, >= prefix_bits, 1); the reader
opens and verifies each, rebuild gives the same bytes, upgrade_bytes turns the 2.1, 2.0 and 1.x
files into the 2.2 one, and the §9 probes (through
the directory or BLOCK_KEYS) == brute force == the exact answer from the input pairs.

Then for each case the C++ writer builds a file; then:
  - the Python reader opens it and verifies every rule (checksums included);
  - the Python writer rules of the spec (simdex_ref.rebuild) give the same bytes;
  - the C++ writer gives the same bytes from the pairs shuffled, repeated, on one thread (§11);
  - `simdex verify` passes and `simdex info --json` agrees with the Python reader;
  - for planted near-duplicate and random queries, at several k: the exact answer computed by
    brute force over the input pairs == the Python brute-force reader == the Python prefix-probe
    reader (§9) == `simdex query --json`.
Last line: `N passed, N failed`; exit status 0 only if nothing failed.
"""

import itertools
import os
import random
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "conformance"))
from common import (python_open_verified, M64, Tally, brute_force, clustered_fps, cpp_info, cpp_query, normalize_hits, random_fps, run,  # noqa: E402
                    simdex_ref)


def low_entropy_fps(rng, n, bits):
    """Fingerprints that differ only in a few low bits: dense tables, skewed h."""
    high = rng.getrandbits(64 - bits) << bits
    return [high | rng.getrandbits(bits) for _ in range(n)]


def with_ids(rng, fps, dup_rate=0.0, max_ids=1, repeat_rate=0.0):
    """Pairs with ids; some fingerprints get several ids, some pairs are repeated."""
    pairs = []
    next_id = 1000
    for f in fps:
        count = rng.randint(2, max_ids) if (max_ids > 1 and rng.random() < dup_rate) else 1
        for _ in range(count):
            pairs.append((f, next_id))
            next_id += rng.randint(1, 5)
    extra = [p for p in pairs if rng.random() < repeat_rate]
    pairs.extend(extra)
    rng.shuffle(pairs)
    return pairs


def cases(rng):
    # (name, build options, pairs)
    yield "random-paper20", ["--scheme", "paper-20"], with_ids(rng, random_fps(rng, 400))
    yield "clustered-paper16-B64", ["--scheme", "paper-16", "--block-bytes", "64"], \
        with_ids(rng, clustered_fps(rng, 40, 8, 4), dup_rate=0.2, max_ids=4)
    yield "dups-paper10-B128", ["--scheme", "paper-10", "--block-bytes", "128"], \
        with_ids(rng, random_fps(rng, 250), dup_rate=0.5, max_ids=6, repeat_rate=0.1)
    yield "clustered-paper4-B32", ["--scheme", "paper-4", "--block-bytes", "32"], \
        with_ids(rng, clustered_fps(rng, 30, 10, 3))
    yield "blocks7-k4-B256", ["--scheme", "blocks-7", "-k", "4", "--block-bytes", "256"], \
        with_ids(rng, clustered_fps(rng, 20, 6, 5) + random_fps(rng, 60), dup_rate=0.1, max_ids=3)
    yield "blocks4-k1-B4096", ["--scheme", "blocks-4", "-k", "1", "--block-bytes", "4096"], \
        with_ids(rng, random_fps(rng, 700))
    yield "auto-k3", [], with_ids(rng, random_fps(rng, 800) + clustered_fps(rng, 20, 5, 3))
    yield "blocks1-k0", ["--scheme", "blocks-1", "-k", "0"], \
        with_ids(rng, random_fps(rng, 120), dup_rate=0.3, max_ids=3)
    yield "lowentropy-paper4-B40", ["--scheme", "paper-4", "--block-bytes", "40"], \
        with_ids(rng, low_entropy_fps(rng, 500, 14))
    yield "blocks6-k5-B48", ["--scheme", "blocks-6", "-k", "5", "--block-bytes", "48"], \
        with_ids(rng, clustered_fps(rng, 15, 5, 6))
    yield "extremes-paper10", ["--scheme", "paper-10", "--block-bytes", "32"], \
        with_ids(rng, [0, M64, 1, M64 - 1, 1 << 63, (1 << 63) - 1] + random_fps(rng, 30), dup_rate=0.5, max_ids=3)
    yield "tiny-n2-auto", ["--block-bytes", "32"], with_ids(rng, random_fps(rng, 2))
    yield "single-blocks5-k2", ["--scheme", "blocks-5", "-k", "2"], with_ids(rng, random_fps(rng, 1), dup_rate=1, max_ids=5)


def blocks_tables(m, k):
    """Tables (source_bit, prefix_bits) covering k: 64 bits cut into m contiguous blocks, one table per
    choice of m - k of them as its prefix (two fingerprints within k differ in at most k blocks)."""
    edges = [64 * i // m for i in range(m + 1)]
    blocks = [list(range(edges[i + 1] - 1, edges[i] - 1, -1)) for i in range(m)]
    tables = []
    for prefix in itertools.combinations(range(m), m - k):
        order = [b for i in prefix for b in blocks[i]]
        p = len(order)
        order += [b for i in range(m) if i not in prefix for b in blocks[i]]
        tables.append(([order[63 - j] for j in range(64)], p))
    return tables


def python_cases(rng):
    # (name, fingerprints, tables, max_distance, block_bytes)
    yield "random-blocks4-k3-B64", random_fps(rng, 300), blocks_tables(4, 3), 3, 64
    yield "clustered-blocks4-k3-B32", clustered_fps(rng, 20, 10, 3), blocks_tables(4, 3), 3, 32
    # the top 52 bits equal in the tables whose prefix leaves out the low block: all blocks in one slot
    yield "lowentropy-blocks4-k1-B32", low_entropy_fps(rng, 300, 12), blocks_tables(4, 1), 1, 32
    yield "dense-identity-p20-B32", low_entropy_fps(rng, 150, 16) + random_fps(rng, 30), [(list(range(64)), 20)], 0, 32
    yield "identity-p0-k5-B32", low_entropy_fps(rng, 120, 10), [(list(range(64)), 0)], 5, 32
    yield "clustered-blocks5-k2-B48", clustered_fps(rng, 10, 6, 4) + random_fps(rng, 40), blocks_tables(5, 2), 2, 48
    for n in (1, 2, 5, 8):  # B = 32 holds about 3 random entries: 1, 1, 2 and 3 blocks per table
        yield "tiny-n%d-B32" % n, random_fps(rng, n), blocks_tables(4, 3), 3, 32
    yield "empty", [], blocks_tables(4, 3), 3, 64
    yield "extremes-B32", [0, M64, 1, M64 - 1, 1 << 63, (1 << 63) - 1] + random_fps(rng, 20), blocks_tables(4, 3), 3, 32


def check_python_case(rng, name, fps, tables, K, B, tally):
    """build_bytes with and without BLOCK_DIRECTORY and with other d_t; open, verify, rebuild,
    upgrade, and the §9 probes against brute force."""
    pairs = with_ids(rng, fps, dup_rate=0.2, max_ids=3)
    T = len(tables)
    writer = simdex_ref.build_bytes(pairs, tables, B, K, "py-" + name)
    idx = simdex_ref.open_bytes(writer)
    counts = [t.block_count for t in idx.tables]
    writer_bits = [simdex_ref.writer_directory_bits(c) for c in counts]
    tally.check((idx.version_major, idx.version_minor) == (2, 2) and idx.block_directory is not None
                and [t.directory_bits for t in idx.tables] == writer_bits,
                "%s: build_bytes writes 2.2 with the writer's d_t %s" % (name, writer_bits[:4]))
    variants = [
        ("writer", {}),
        ("2.1", dict(version_minor=1)),
        ("2.1 finer", dict(version_minor=1, directory_bits=[min(12, b + 1) if b else 0 for b in writer_bits])),
        ("2.0", dict(version_minor=0, directory=False)),
        ("1.0", dict(version_major=1, version_minor=0, directory=False)),
        ("d=0", dict(directory_bits=[0] * T)),
        ("finer", dict(directory_bits=[min(12, b + 3) for b in writer_bits])),
        ("d>=p", dict(directory_bits=[min(14, max(p, 1)) for _, p in tables])),
        ("d=1", dict(directory_bits=[1] * T)),
        ("mixed", dict(directory_bits=[0 if t % 2 else b + t % 3 for t, b in enumerate(writer_bits)])),
    ]
    stored = sorted({f for f, _ in pairs})
    queries = [rng.choice(stored) ^ sum(1 << b for b in rng.sample(range(64), rng.randint(0, K + 1)))
               for _ in range(16)] if stored else []
    queries = list(dict.fromkeys(queries + [rng.getrandbits(64) for _ in range(3)] + [0, M64]))
    for vname, kw in variants:
        label = "%s [%s]" % (name, vname)
        data = writer if vname == "writer" else simdex_ref.build_bytes(pairs, tables, B, K, "py-" + name, **kw)
        try:
            v = simdex_ref.open_bytes(data)
        except simdex_ref.SimdexError as e:
            tally.check(False, "%s: python open" % label, str(e))
            continue
        problems = simdex_ref.verify_index(v)
        tally.check(problems == [], "%s: python verify" % label, repr(problems[:3]))
        tally.check(simdex_ref.rebuild(v) == data, "%s: rebuild gives the same bytes" % label)
        if vname in ("2.1", "2.1 finer", "2.0", "1.0"):
            tally.check(simdex_ref.upgrade_bytes(data) == writer, "%s: upgrade_bytes gives the 2.2 file" % label)
        bad = None
        for q in queries:
            for k in sorted({0, K // 2, K}):
                want = normalize_hits(brute_force(pairs, q, k))
                py = normalize_hits(simdex_ref.query(v, q, k))
                probe = normalize_hits(simdex_ref.query_probe(v, q, k))
                if not want == py == probe:
                    bad = "query %d k %d: input %s python %s probe %s" % (q, k, want[:3], py[:3], probe[:3])
                    break
            if bad:
                break
        tally.check(bad is None, "%s: %d queries, probes == brute force == input" % (label, len(queries)), bad or "")


def make_queries(rng, fps, k, count):
    qs = []
    stored = sorted(set(fps))
    for _ in range(count):
        roll = rng.random()
        if stored and roll < 0.75:
            x = rng.choice(stored)
            flips = rng.randint(0, min(64, k + 1))
            for bit in rng.sample(range(64), flips):
                x ^= 1 << bit
            qs.append(x)
        else:
            qs.append(rng.getrandbits(64))
    return list(dict.fromkeys(qs))  # distinct: the C++ answers are keyed by query


def check_case(binary, tmp, rng, name, opts, pairs, tally):
    inp = os.path.join(tmp, name + ".tsv")
    out = os.path.join(tmp, name + ".sdx")
    with open(inp, "w") as f:
        for fp, i in pairs:
            # mix decimal and hex spellings
            f.write(("0x%x\t%d\n" if rng.random() < 0.5 else "%d\t%d\n") % (fp, i))
    rc, _, err = run([binary, "build", "-q", "-o", out] + opts + [inp])
    if not tally.check(rc == 0, "%s: simdex build" % name, err.strip()):
        return
    idx = python_open_verified(tally, out, name)
    if idx is None:
        return
    rebuilt = simdex_ref.rebuild(idx)
    tally.check(rebuilt == idx.data, "%s: spec writer rules give the same bytes" % name,
                "first difference at byte %s" % next((i for i, (a, b) in enumerate(zip(rebuilt, idx.data))
                                                    if a != b), min(len(rebuilt), len(idx.data))))
    # §11: the same pairs in another order, with repeats, on one thread: the same bytes
    inp2 = os.path.join(tmp, name + ".shuffled.tsv")
    out2 = os.path.join(tmp, name + ".shuffled.sdx")
    shuffled = pairs + pairs[: len(pairs) // 3]
    rng.shuffle(shuffled)
    with open(inp2, "w") as f:
        f.write("".join("%d\t%d\n" % p for p in shuffled))
    rc, _, err = run([binary, "build", "-q", "--threads", "1", "-o", out2] + opts + [inp2])
    tally.check(rc == 0 and open(out2, "rb").read() == idx.data,
                "%s: deterministic (shuffled input with repeats, 1 thread: same bytes)" % name, err.strip())
    rc, vout, _ = run([binary, "verify", out])
    tally.check(rc == 0, "%s: simdex verify" % name, vout.strip()[:200])
    # info
    try:
        ci = cpp_info(binary, out)
    except (RuntimeError, ValueError) as e:
        tally.check(False, "%s: simdex info --json" % name, str(e))
        return
    pi = simdex_ref.info(idx)
    fields = ["format", "scheme_name", "max_distance", "fingerprint_count", "id_count", "block_bytes", "file_bytes",
              "ids_bytes"]
    diff = [f for f in fields if ci.get(f) != pi[f]]
    ct = [(t["prefix_bits"], t["blocks"], t["bytes"]) for t in ci["tables"]]
    pt = [(t["prefix_bits"], t["blocks"], t["bytes"]) for t in pi["tables"]]
    if ct != pt:
        diff.append("tables")
    tally.check(not diff, "%s: info figures" % name, "differ: %s" % diff)
    by_input = {f for f, _ in pairs}
    tally.check(idx.n == len(by_input) and idx.id_count == len(set(pairs)),
                "%s: n and id_count match the input" % name, "n %d id_count %d" % (idx.n, idx.id_count))
    # queries
    K = idx.max_distance
    queries = make_queries(rng, [f for f, _ in pairs], K, 60)
    for k in sorted({K, rng.randint(0, K), 0}):
        try:
            cpp = cpp_query(binary, out, queries, k)
        except RuntimeError as e:
            tally.check(False, "%s: simdex query -k %d" % (name, k), str(e))
            continue
        bad = None
        hits_total = 0
        for q in queries:
            want = normalize_hits(brute_force(pairs, q, k))
            hits_total += len(want)
            py = normalize_hits(simdex_ref.query(idx, q, k))
            probe = normalize_hits(simdex_ref.query_probe(idx, q, k))
            c = normalize_hits(cpp.get(q, []))
            if not (want == py == probe == c):
                bad = "query %d k %d: input %s python %s probe %s C++ %s" % (q, k, want[:3], py[:3], probe[:3], c[:3])
                break
        tally.check(bad is None, "%s: %d queries at k=%d (%d hits) agree" % (name, len(queries), k, hits_total), bad or "")


def main(argv):
    if len(argv) < 2:
        print("usage: reference_random_test.py SIMDEX_BINARY|--python-only [--seed N] [--rounds N] [-v]")
        return 2
    binary = None if argv[1] == "--python-only" else argv[1]
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 20240505
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 3
    tally = Tally(verbose="-v" in argv)
    tmp = tempfile.mkdtemp(prefix="simdex-ref-random-")
    t0 = time.time()
    # The pure-Python XXH3-64 against libxxhash (every length 0..2000 and some larger ones).
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "spec", "reference"))
    import xxh3_test
    r = xxh3_test.run()
    if r is None:
        print("SKIP: XXH3-64 against libxxhash (library not found)")
    else:
        tally.check(r[1] == 0, "XXH3-64 == libxxhash on %d inputs" % sum(r), "%d mismatches" % r[1])
    # The spec's writer and reader alone: BLOCK_DIRECTORY (§5.3) and the probes of §9.
    rng = random.Random(seed)
    for name, fps, tables, K, B in python_cases(rng):
        check_python_case(rng, name, fps, tables, K, B, tally)
    if binary is None:
        shutil.rmtree(tmp, ignore_errors=True)
        return tally.finish()
    try:
        for rnd in range(rounds):
            rng = random.Random(seed + rnd)
            for name, opts, pairs in cases(rng):
                check_case(binary, tmp, rng, "%s#%d" % (name, rnd), opts, pairs, tally)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if tally.verbose:
        print("time %.1f s" % (time.time() - t0))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
