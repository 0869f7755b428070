"""Helpers shared by run_conformance.py, make_good.py, make_bad.py and
tests/reference_random_test.py. Standard library only."""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "spec", "reference"))

import simdex_ref  # noqa: E402,F401

M64 = (1 << 64) - 1


def parse_fp(text):
    text = text.strip()
    v = int(text, 16) if text.lower().startswith("0x") else int(text, 10)
    if not 0 <= v <= M64:
        raise ValueError("fingerprint out of range: %r" % text)
    return v


def read_input(path):
    """(fingerprint, id) pairs of a `simdex build` input file: FINGERPRINT[<TAB>ID] lines; a line
    without an id gets its 0-based line number. (The inputs of this suite have no blank lines.)"""
    pairs = []
    with open(path) as f:
        for lineno, line in enumerate(f.read().split("\n")):
            if not line.strip():
                continue
            parts = line.split("\t")
            fp = parse_fp(parts[0])
            ident = int(parts[1]) if len(parts) > 1 else lineno
            pairs.append((fp, ident))
    return pairs


def brute_force(pairs, F, k):
    """Exact answer from the input pairs alone: [(f, distance, [ids])] by (distance, f)."""
    by_f = {}
    for f, i in pairs:
        by_f.setdefault(f, set()).add(i)
    hits = []
    for f, ids in by_f.items():
        d = (f ^ F).bit_count()
        if d <= k:
            hits.append((f, d, sorted(ids)))
    hits.sort(key=lambda x: (x[1], x[0]))
    return hits


def run(cmd, input_text=None, timeout=120):
    p = subprocess.run(cmd, input=input_text, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def command(binary):
    """A reader's command line prefix: a path, or a list (an outside reader: ["python3", "r.py"])."""
    return list(binary) if isinstance(binary, (list, tuple)) else [binary]


def cpp_query(binary, index, queries, k):
    """{query: [(f, distance, [ids])]} from `simdex query --json` (queries on stdin)."""
    text = "".join("%d\n" % q for q in queries)
    rc, out, err = run(command(binary) + ["query", index, "-k", str(k), "--json"], text)
    if rc != 0:
        raise RuntimeError("simdex query failed (%d): %s" % (rc, err.strip()))
    answers = {q: [] for q in queries}
    for line in out.splitlines():
        if not line.strip():
            continue
        o = json.loads(line)
        answers.setdefault(o["query"], []).append((o["fingerprint"], o["distance"], list(o["ids"])))
    return answers


def cpp_info(binary, index):
    rc, out, err = run(command(binary) + ["info", "--json", index])
    if rc != 0:
        raise RuntimeError("simdex info failed (%d): %s" % (rc, err.strip()))
    return json.loads(out)


def normalize_hits(hits):
    return [[f, d, list(ids)] for f, d, ids in hits]


class Tally:
    def __init__(self, verbose=False):
        self.passed = 0
        self.failed = 0
        self.verbose = verbose

    def check(self, ok, name, detail=""):
        if ok:
            self.passed += 1
            if self.verbose:
                print("PASS %s" % name)
        else:
            self.failed += 1
            print("FAIL %s%s" % (name, (": " + detail) if detail else ""))
        sys.stdout.flush()
        return ok

    def finish(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        return 0 if self.failed == 0 and self.passed > 0 else 1


def random_fps(rng, n):
    """n random 64-bit fingerprints."""
    return [rng.getrandbits(64) for _ in range(n)]


def clustered_fps(rng, bases, per, max_flips):
    """`bases` random centers, each followed by per - 1 variants 1..max_flips bits away."""
    out = []
    for _ in range(bases):
        b = rng.getrandbits(64)
        out.append(b)
        for _ in range(per - 1):
            x = b
            for bit in rng.sample(range(64), rng.randint(1, max_flips)):
                x ^= 1 << bit
            out.append(x)
    return out


def python_open_verified(tally, path, label):
    """Opens `path` with the reference reader and checks that verify finds nothing; the open index,
    or None when it does not open."""
    try:
        idx = simdex_ref.open_index(path)
    except simdex_ref.SimdexError as e:
        tally.check(False, "%s: python open" % label, str(e))
        return None
    problems = simdex_ref.verify_index(idx)
    tally.check(problems == [], "%s: python verify" % label, repr(problems[:3]))
    return idx
