"""Test data of tests/mpi/*.sh (standard library only): fingerprint lines, seeded.

  gen_data.py random N SEED      lone FINGERPRINTs (ids: line numbers), near and exact repeats, blank lines
  gen_data.py clustered N SEED   FINGERPRINT<TAB>ID in clusters within a few bits; repeated fingerprints and ids
  gen_data.py queries N SEED FILE  queries: random ones and ones near the fingerprints of FILE
"""
import random
import sys


def near(rng, fp, bits):
    for b in rng.sample(range(64), bits):
        fp ^= 1 << b
    return fp


def show(rng, fp):
    return f"0x{fp:016x}" if rng.random() < 0.3 else str(fp)


def main():
    kind, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    out = []
    if kind == "random":
        seen = []
        for _ in range(n):
            r = rng.random()
            if seen and r < 0.05:
                fp = near(rng, rng.choice(seen), rng.randint(1, 4))
            elif seen and r < 0.08:
                fp = rng.choice(seen)  # an exact repeat: one fingerprint, several ids
            else:
                fp = rng.getrandbits(64)
            seen.append(fp)
            out.append(show(rng, fp))
            if rng.random() < 0.01:
                out.append("")
    elif kind == "clustered":
        while len(out) < n:
            center = rng.getrandbits(64)
            for _ in range(rng.randint(1, 25)):
                fp = near(rng, center, rng.randint(0, 4))
                out.append(f"{show(rng, fp)}\t{rng.randint(0, n * 2)}")
        out = out[:n]
    else:
        stored = [int(line.split("\t")[0], 0) for line in open(sys.argv[4]) if line.strip()]
        for _ in range(n):
            fp = near(rng, rng.choice(stored), rng.randint(0, 4)) if rng.random() < 0.6 else rng.getrandbits(64)
            out.append(show(rng, fp))
    sys.stdout.write("\n".join(out) + "\n")


main()
