#!/usr/bin/env python3
"""`simdex dedup` throughput against the pipeline it replaces and a pure-Python near-duplicate finder.

  python3 bench/dedup_bench.py SIMDEX [--runs N] [--records N] [--templated N] [--out FILE]

On the demo corpus (data/corpus/docs.jsonl.gz) and on a generated set of --records JSON Lines
records (60-word texts, 15% near-duplicates with one word changed, string keys), and on --templated
records filled in from one 400-word template (6 words replaced in each: one cluster whose
fingerprints are mostly distinct and within k of each other, every pair of it found; the pure-Python
finder, quadratic there, is left out), times (median of
--runs, wall clock; the pure-Python finder runs once):
  - `simdex dedup INPUT -o OUT` (k = 7, the default);
  - the pipeline of CLI steps: `fingerprint`, `build -k 7`, `clusters --ids`, then the glue that
    keeps the first record of each cluster (awk, as tests/dedup_pipeline.sh);
  - a small pure-Python finder (below; stdlib only): word 3-shingles hashed with BLAKE2b-64, a
    frequency-weighted simhash, 8 blocks of 8 bits as buckets (k = 7: two fingerprints within 7 bits
    agree on one block), union-find, the first of each cluster kept.
MB/s = bytes of the uncompressed input / wall time. Writes a Markdown section (machine, date,
commit, commands, figures) to --out (default bench/dedup/RESULTS.md), which scripts/bench_report.py
puts into bench/RESULTS.md.
"""
import argparse
import gzip
import hashlib
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORD = re.compile(r"\w+")


# --- the pure-Python near-duplicate finder ------------------------------------------------------
def simhash(text, shingle=3):
    words = WORD.findall(text.lower())
    grams = [" ".join(words[i:i + shingle]) for i in range(max(1, len(words) - shingle + 1))] if words else []
    hashes = [int.from_bytes(hashlib.blake2b(g.encode(), digest_size=8).digest(), "little") for g in grams]
    # Bit b is set when more than half of the shingles' hashes have it (frequency weighting).
    return sum(1 << bit for bit in range(64) if 2 * sum(h >> bit & 1 for h in hashes) > len(hashes))


def python_dedup(input_path, output_path, k=7, field="text"):
    opener = gzip.open if input_path.endswith(".gz") else open
    with opener(input_path, "rb") as f:
        lines = [line for line in f if line.strip()]
    fps = [simhash(json.loads(line)[field]) for line in lines]
    parent = list(range(len(fps)))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    blocks = k + 1
    width = 64 // blocks
    for b in range(blocks):
        buckets = {}
        for i, fp in enumerate(fps):
            buckets.setdefault(fp >> (b * width) & ((1 << width) - 1), []).append(i)
        for members in buckets.values():
            for x in range(len(members)):
                for y in range(x + 1, len(members)):
                    i, j = members[x], members[y]
                    if (fps[i] ^ fps[j]).bit_count() <= k:
                        parent[find(i)] = find(j)
    first = {}
    for i in range(len(fps)):
        first.setdefault(find(i), i)
    kept = set(first.values())
    with open(output_path, "wb") as out:
        out.writelines(line for i, line in enumerate(lines) if i in kept)
    return len(lines) - len(kept)


# --- the data and the timings -------------------------------------------------------------------
def generate(path, records, seed=16):
    rng = random.Random(seed)
    originals = []
    with open(path, "w") as f:
        for i in range(records):
            if len(originals) > 100 and rng.random() < 0.15:
                words = rng.choice(originals).split()
                words[rng.randrange(60)] = "x%d" % rng.randrange(5000)
                text = " ".join(words)
            else:
                text = " ".join("w%d" % rng.randrange(5000) for _ in range(60))
                originals.append(text)
            f.write(json.dumps({"url": "https://site.example/p/%d" % i, "text": text}) + "\n")


def generate_templated(path, records, seed=17):
    rng = random.Random(seed)
    template = ["w%d" % rng.randrange(5000) for _ in range(400)]
    with open(path, "w") as f:
        for i in range(records):
            words = list(template)
            for _ in range(6):
                words[rng.randrange(400)] = "w%d" % rng.randrange(5000)
            f.write(json.dumps({"id": i, "text": " ".join(words)}) + "\n")


def timed(fn, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def sh(cmd):
    subprocess.run(cmd, shell=True, check=True, stdout=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("simdex")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--records", type=int, default=100000)
    ap.add_argument("--templated", type=int, default=40000)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "dedup", "RESULTS.md"))
    a = ap.parse_args()
    simdex = os.path.abspath(a.simdex)
    work = tempfile.mkdtemp(prefix="simdex-dedup-bench.")
    generated = os.path.join(work, "generated.jsonl")
    generate(generated, a.records)
    templated = os.path.join(work, "templated.jsonl")
    generate_templated(templated, a.templated)
    sets = [("demo corpus (data/corpus/docs.jsonl.gz, 3,000 documents)", os.path.join(ROOT, "data/corpus/docs.jsonl.gz"), "id", True),
            ("generated: %s records, 60 words, 15%% near-duplicates, string keys" % format(a.records, ","), generated, "url", True),
            ("templated: %s records, one 400-word template, 6 words replaced in each" % format(a.templated, ","), templated, "id", False)]
    glue = ". %s/tests/dedup_pipeline.sh && keep_first %s/p.fp %s/p.clusters {input} > %s/p.out" % (ROOT, work, work, work)
    rows, commands = [], []
    for name, path, field, with_python in sets:
        size = len(gzip.open(path).read()) if path.endswith(".gz") else os.path.getsize(path)
        dedup = "%s dedup %s --id-field %s -o %s/d.out -q" % (simdex, path, field, work)
        steps = ["%s fingerprint %s --id-field %s -o %s/p.fp" % (simdex, path, field, work),
                 "%s build -q -k 7 -o %s/p.sdx %s/p.fp" % (simdex, work, work),
                 "%s clusters %s/p.sdx --ids > %s/p.clusters" % (simdex, work, work)]
        t_dedup = timed(lambda: sh(dedup), a.runs)
        t_steps = timed(lambda: [sh(c) for c in steps], a.runs)
        t_glue = timed(lambda: subprocess.run(["bash", "-c", glue.format(input=path)], check=True), a.runs)
        removed = []
        t_python = timed(lambda: removed.append(python_dedup(path, os.path.join(work, "py.out"))), 1) if with_python else None
        same = subprocess.run(["cmp", "-s", work + "/d.out", work + "/p.out"]).returncode == 0
        dedup_lines = sum(1 for _ in open(work + "/d.out"))
        records = sum(1 for line in (gzip.open(path) if path.endswith(".gz") else open(path, "rb")) if line.strip())
        mb = size / 1e6
        rows.append((name, mb, t_dedup, t_steps, t_steps + t_glue, t_python, records - dedup_lines,
                     removed[-1] if removed else None, same))
        commands += [dedup] + steps + ["bash -c '%s'" % glue.format(input=path)]
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
    lines = ["## dedup: one command against the pipeline and a pure-Python finder (bench/dedup_bench.py)", "",
             "Written by `python3 bench/dedup_bench.py %s --runs %d --records %d --templated %d` on %s, commit %s." % (
                 os.path.relpath(simdex, ROOT), a.runs, a.records, a.templated, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), commit),
             "Machine: %s, %d cores, load average at the end %s. Wall clock, median of %d runs (pure Python: one"
             " run); MB = 10^6 bytes of uncompressed input. The pure-Python finder uses its own simhash (BLAKE2b shingle hashes), so its"
             " clusters differ from simdex's; its removed count is given for scale." % (
                 cpu, os.cpu_count(), " ".join("%.2f" % x for x in os.getloadavg()), a.runs), "",
             "| data | MB | `simdex dedup` s | MB/s | pipeline (CLI steps) s | MB/s | pipeline + keep-first glue s | pure Python s | MB/s | removed: simdex / Python | dedup output = pipeline's |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, mb, td, ts, tg, tp, rs, rp, same in rows:
        python = ("%.2f | %.2f" % (tp, mb / tp)) if tp is not None else "not run | "
        lines.append("| %s | %.1f | %.2f | %.1f | %.2f | %.1f | %.2f | %s | %d / %s | %s |" % (
            name, mb, td, mb / td, ts, mb / ts, tg, python, rs, "-" if rp is None else rp, "yes" if same else "NO"))
    commands = [c.replace(ROOT + "/", "").replace(work, "$WORK") for c in commands]
    lines += ["", "Commands ($WORK: a temporary directory):", ""] + ["    " + c for c in commands] + [""]
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    open(a.out, "w").write("\n".join(lines))
    print("\n".join(lines))
    shutil.rmtree(work)
    return 0 if all(r[-1] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
