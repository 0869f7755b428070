#!/usr/bin/env python3
"""The Python package against the C++ API and against a pure-Python simhash index.

    scripts/build release
    PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py [--build build] [--n 1000000]

Measures (figures in bench/RESULTS.md, "Python"):
  1. single-query latency, Python index.query against the same queries in a C++ loop
     (build/bench/python_baseline): the difference is the binding's cost per call;
  2. index.join of 1M queries against simdex::join in C++;
  3. simdex.fingerprint MB/s on the demo corpus, 1 and 2 threads, against fingerprint_all in C++;
  4. a dedup job (fingerprint -> build -> clusters, keep one document per cluster) against
     PyBucketIndex below, a pure-Python simhash index in the manner of 1e0ng's simhash (k + 1
     blocks of the 64 bits, a dict of buckets per block value; pigeonhole: two fingerprints within
     k bits agree on some block), with union-find for the clusters. Both must keep the same documents.
"""

import argparse
import gzip
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

import numpy as np

import simdex

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def best_of(repeats, fn):
    """(least seconds of `repeats` runs, the last result)."""
    best, result = None, None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        t = time.perf_counter() - start
        best = t if best is None else min(best, t)
    return best, result


def clustered(n, seed):
    """n fingerprints around n/20 random centres, each up to 4 random bits away."""
    rng = np.random.default_rng(seed)
    centres = rng.integers(0, 2**64, size=max(1, n // 20), dtype=np.uint64, endpoint=False)
    out = centres[rng.integers(0, len(centres), size=n)]
    for _ in range(4):
        flip = rng.random(n) < 0.5
        out = np.where(flip, out ^ (np.uint64(1) << rng.integers(0, 64, size=n).astype(np.uint64)), out)
    return out


def flipped(fps, bits, seed):
    """Each fingerprint with `bits` distinct random bits flipped (planted near-duplicates)."""
    rng = np.random.default_rng(seed)
    out = fps.copy()
    for i in range(len(out)):
        for b in rng.choice(64, size=bits, replace=False):
            out[i] ^= np.uint64(1) << np.uint64(b)
    return out


class PyBucketIndex:
    """A pure-Python simhash index, 1e0ng-style: k + 1 blocks, a bucket per (block, value)."""

    def __init__(self, k=3, f=64):
        self.k = k
        width = f // (k + 1)
        self.blocks = [(i * width, (1 << (width if i < k else f - i * width)) - 1) for i in range(k + 1)]
        self.buckets = defaultdict(list)

    def keys(self, fp):
        return [(i, (fp >> shift) & mask) for i, (shift, mask) in enumerate(self.blocks)]

    def add(self, fp, doc_id):
        for key in self.keys(fp):
            self.buckets[key].append((fp, doc_id))

    def near(self, fp):
        """The ids stored within k bits of fp."""
        found = set()
        for key in self.keys(fp):
            for other, doc_id in self.buckets.get(key, ()):
                if (fp ^ other).bit_count() <= self.k:
                    found.add(doc_id)
        return found


def py_dedup(fps, ids, k):
    """Ids to keep (the least id of each cluster, and every document alone), by PyBucketIndex."""
    parent = {}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    index = PyBucketIndex(k)
    for fp, doc_id in zip(fps, ids):
        parent[doc_id] = doc_id
        for other in index.near(fp):
            a, b = find(doc_id), find(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
        index.add(fp, doc_id)
    return {i for i in ids if find(i) == i}


def simdex_dedup(fps, ids, k, path):
    """The same with simdex: build, clusters (in documents), keep the least id of each."""
    simdex.build(path, fps, ids, k=k)
    with simdex.open(path) as index:
        drop = set()
        for c in index.clusters(size_in_ids=True):
            drop.update(c.ids.tolist())
            drop.discard(int(c.ids.min()))
    return set(ids) - drop


def py_simhash(text, width=3):
    """A pure-Python simhash of a text, as 1e0ng's does it: word shingles, MD5, a weighted bit tally."""
    words = re.findall(r"\w+", text.lower())
    features = [" ".join(words[i:i + width]) for i in range(max(1, len(words) - width + 1))]
    tally = [0] * 64
    for feature in features:
        h = int.from_bytes(hashlib.md5(feature.encode()).digest()[:8], "little")
        for b in range(64):
            tally[b] += 1 if (h >> b) & 1 else -1
    return sum(1 << b for b in range(64) if tally[b] > 0)


def baseline(build, *args):
    out = subprocess.run([os.path.join(build, "bench", "python_baseline"), *map(str, args)], check=True,
                         capture_output=True, text=True, env={**os.environ, "SIMDEX_SOURCE_DIR": ROOT}).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="the CMake build (python_baseline)")
    ap.add_argument("--n", type=int, default=1_000_000, help="stored fingerprints (and join queries)")
    ap.add_argument("--queries", type=int, default=10_000, help="single queries timed")
    args = ap.parse_args()
    lines = []

    def say(line=""):
        print(line, flush=True)
        lines.append(line)

    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    say(f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} at commit {commit} by "
        f"`bench/python_bench.py --n {args.n}`: {cpu}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, numpy {np.__version__}; load average before "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}.")
    say()
    tmp = tempfile.mkdtemp(prefix="simdex-pybench.")
    stored = clustered(args.n, 1)
    path = os.path.join(tmp, "bench.sdx")
    t_build, summary = best_of(1, lambda: simdex.build(path, stored, k=3))
    say(f"Index: {args.n:,} clustered fingerprints, k = 3, {summary.scheme_name} ({summary.table_count} tables); "
        f"simdex.build took {t_build:.2f} s.")
    say()

    # 1. Single queries.
    rng = np.random.default_rng(2)
    queries = flipped(stored[rng.integers(0, args.n, size=args.queries)], 3, 3)
    qfile = os.path.join(tmp, "queries.u64")
    queries.tofile(qfile)
    as_ints = queries.tolist()
    # C++ and Python passes alternate, the Python variants in turn first (7 rounds, the best of each
    # kept): a shared machine's load and the caches a C++ process leaves then weigh on all alike.
    cxx_ns, times = [], {"int": [], "np": [], "k0": []}
    passes = {"int": lambda: [index.query(q) for q in as_ints],
              "np": lambda: [index.query(q) for q in queries],
              "k0": lambda: [index.query(q, 0) for q in as_ints]}
    with simdex.open(path) as index:
        for r in range(7):
            cxx_ns.append(baseline(args.build, path, qfile, 3)["query_mean_ns"])
            order = list(passes)[r % 3:] + list(passes)[:r % 3]
            for name in order:
                times[name].append(best_of(3, passes[name])[0])
        found = sum(len(h.ids) for q in as_ints for h in index.query(q))
    cxx = baseline(args.build, path, qfile, 1)
    cxx["query_mean_ns"] = min(cxx_ns)
    t_py, t_np, t_k0 = (min(times[name]) for name in ("int", "np", "k0"))
    assert found == cxx["ids_found"], (found, cxx["ids_found"])
    py_ns, np_ns = t_py / len(as_ints) * 1e9, t_np / len(as_ints) * 1e9
    say(f"| single query ({args.queries:,} planted, 3 bits flipped; mean per query of the best pass, C++ and Python alternating) | µs per query |")
    say("|---|---:|")
    say(f"| C++ `Index::query` in a loop (`python_baseline`) | {cxx['query_mean_ns'] / 1000:.2f} |")
    say(f"| Python `index.query(q)`, q a Python int | {py_ns / 1000:.2f} |")
    say(f"| Python `index.query(q)`, q an `np.uint64` (iterating an array) | {np_ns / 1000:.2f} |")
    say(f"| Python `index.query(q, 0)` (the call with next to no search) | {t_k0 / len(as_ints) * 1e6:.2f} |")
    say(f"| binding overhead per call (Python int - C++) | {(py_ns - cxx['query_mean_ns']) / 1000:.2f} |")
    say()

    # 2. Join of n queries.
    jq = np.concatenate([flipped(stored[rng.integers(0, args.n, size=args.n // 100)], 3, 4),
                         stored[rng.integers(0, args.n, size=args.n - args.n // 100)] ^ np.uint64(1 << 40)])
    jfile = os.path.join(tmp, "join.u64")
    jq.tofile(jfile)
    cxx_join = min((baseline(args.build, path, jfile, 0) for _ in range(3)), key=lambda r: r["join_s"])
    with simdex.open(path) as index:
        t_join, m = best_of(3, lambda: index.join(jq))
    assert len(m.id) == cxx_join["join_rows"], (len(m.id), cxx_join["join_rows"])
    say(f"| join of {len(jq):,} queries, all cores ({os.cpu_count()}) | seconds | rows |")
    say("|---|---:|---:|")
    say(f"| C++ `simdex::join` (`python_baseline`, best of 3; rows counted, nothing kept) | {cxx_join['join_s']:.2f} | {cxx_join['join_rows']:,} |")
    say(f"| Python `index.join(queries)` (best of 3; sorted numpy arrays out) | {t_join:.2f} | {len(m.id):,} |")
    say()

    # 3. Fingerprints of the demo corpus.
    with gzip.open(os.path.join(ROOT, "data", "corpus", "docs.jsonl.gz"), "rt", encoding="utf-8") as f:
        docs = [json.loads(line) for line in f if line.strip()]
    texts = [d["text"] for d in docs]
    ids = [d["id"] for d in docs]
    mb = sum(len(t.encode()) for t in texts) / 1e6
    cxx_fp = baseline(args.build, "--fingerprint", 1, 2)
    t1, fps = best_of(5, lambda: simdex.fingerprint(texts, threads=1))
    t2, _ = best_of(5, lambda: simdex.fingerprint(texts, threads=2))
    say(f"| fingerprints, demo corpus ({len(texts):,} documents, {mb:.1f} MB UTF-8; best of 5) | MB/s, 1 thread | MB/s, 2 threads |")
    say("|---|---:|---:|")
    say(f"| C++ `fingerprint_all` | {cxx_fp['mb_per_s_1']:.1f} | {cxx_fp['mb_per_s_2']:.1f} |")
    say(f"| Python `simdex.fingerprint(texts)` | {mb / t1:.1f} | {mb / t2:.1f} |")
    say()

    # 4. Dedup: the corpus end to end, then the index part at scale.
    t_pyfp, py_fps = best_of(1, lambda: [py_simhash(t) for t in texts])
    fps_list = fps.tolist()
    t_pyidx, py_keep = best_of(1, lambda: py_dedup(fps_list, ids, 3))
    t_sdx, sdx_keep = best_of(3, lambda: simdex_dedup(simdex.fingerprint(texts), ids, 3, os.path.join(tmp, "c.sdx")))
    t_sdx_idx, _ = best_of(3, lambda: simdex_dedup(fps, ids, 3, os.path.join(tmp, "c.sdx")))
    assert py_keep == sdx_keep, "the pure-Python index kept other documents"
    n_big = min(args.n, 1_000_000)
    big = stored[:n_big]
    big_ids = list(range(n_big))
    t_py_big, py_big = best_of(1, lambda: py_dedup(big.tolist(), big_ids, 3))
    t_sdx_big, sdx_big = best_of(1, lambda: simdex_dedup(big, big_ids, 3, os.path.join(tmp, "big.sdx")))
    assert py_big == sdx_big, "the pure-Python index kept other fingerprints"
    say("| dedup job (k = 3; keep one per cluster; both keep the same documents) | pure Python (s, one thread) | "
        f"simdex (s, {os.cpu_count()} threads but where a row says) | ratio |")
    say("|---|---:|---:|---:|")
    say(f"| corpus, {len(texts):,} documents: fingerprints (pure-Python MD5 simhash / `simdex.fingerprint`) | "
        f"{t_pyfp:.2f} | {t1:.3f} (1 thread) | {t_pyfp / t1:.0f}x |")
    say(f"| corpus: index + clusters on the same fingerprints (`PyBucketIndex` / build + clusters) | "
        f"{t_pyidx:.3f} | {t_sdx_idx:.3f} | {t_pyidx / t_sdx_idx:.1f}x |")
    say(f"| corpus end to end (text in, ids to keep out; {len(sdx_keep):,} kept) | {t_pyfp + t_pyidx:.2f} | "
        f"{t_sdx:.3f} | {(t_pyfp + t_pyidx) / t_sdx:.0f}x |")
    say(f"| {n_big:,} clustered fingerprints: index + clusters ({len(sdx_big):,} kept) | {t_py_big:.1f} | "
        f"{t_sdx_big:.2f} | {t_py_big / t_sdx_big:.0f}x |")
    say()
    say(f"Load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}.")
    subprocess.run(["rm", "-rf", tmp])
    return 0


if __name__ == "__main__":
    sys.exit(main())
