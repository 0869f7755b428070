#!/usr/bin/env python3
"""Queries per second through `simdex query --serve`'s pipes (issue 16), standard library only.

Builds an index of N random fingerprints with `simdex build`, then for each process count P starts P
servers (`simdex query --serve INDEX`), each driven by its own client process, and measures:
  lock-step  one query in flight per server: write a line, read its answer up to the empty line
             (what a program asking one question at a time sees; bound by the pipe round trip);
  streamed   the client writes its queries while a thread reads the answers (bound by simdex).
Half the queries are stored fingerprints with bits flipped (they have hits), half random.

usage: bench/serve_qps.py SIMDEX [--n 1000000] [--seconds 3] [--procs 1,8]
"""
import argparse
import multiprocessing as mp
import os
import random
import subprocess
import sys
import tempfile
import threading
import time


def make_queries(stored, count, seed):
    r = random.Random(seed)
    out = []
    for i in range(count):
        if i % 2:
            out.append(r.getrandbits(64))
        else:
            fp = stored[r.randrange(len(stored))]
            for _ in range(r.randrange(4)):
                fp ^= 1 << r.randrange(64)
            out.append(fp)
    return out


def read_answer(fd):
    """Reads one answer: hit lines, then the empty line (an answer without hits is that line alone)."""
    answer = b""
    while answer != b"\n" and not answer.endswith(b"\n\n"):
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            raise EOFError("server ended")
        answer += chunk
    return answer


def lock_step(simdex, index, queries, seconds, result):
    p = subprocess.Popen([simdex, "query", "--serve", index], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    fd = p.stdout.fileno()
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for q in queries[done % len(queries): done % len(queries) + 100]:
            p.stdin.write(b"%d\n" % q)
            read_answer(fd)
            done += 1
    elapsed = time.perf_counter() - start
    p.stdin.close()
    p.wait()
    result.put(done / elapsed)


def streamed(simdex, index, queries, seconds, result):
    p = subprocess.Popen([simdex, "query", "--serve", index], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    payload = b"".join(b"%d\n" % q for q in queries)
    answers = [0]

    def reader():  # counts the empty lines that end the answers
        tail = b""
        while True:
            chunk = os.read(p.stdout.fileno(), 1 << 20)
            if not chunk:
                return
            lines = (tail + chunk).split(b"\n")
            tail = lines.pop()
            answers[0] += lines.count(b"")

    t = threading.Thread(target=reader)
    t.start()
    start = time.perf_counter()
    rounds = 0
    while time.perf_counter() - start < seconds:
        p.stdin.write(payload)
        rounds += 1
    p.stdin.close()
    t.join()
    elapsed = time.perf_counter() - start
    p.wait()
    assert answers[0] == rounds * len(queries), "an answer is missing"
    result.put(rounds * len(queries) / elapsed)


def run(mode, simdex, index, stored, procs, seconds):
    result = mp.Queue()
    workers = [mp.Process(target=mode, args=(simdex, index, make_queries(stored, 20000, i), seconds, result))
               for i in range(procs)]
    for w in workers:
        w.start()
    rates = [result.get() for _ in workers]
    for w in workers:
        w.join()
    return sum(rates)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("simdex")
    ap.add_argument("--n", type=int, default=1000000)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--procs", default="1,8")
    args = ap.parse_args()
    r = random.Random(1)
    stored = [r.getrandbits(64) for _ in range(args.n)]
    with tempfile.TemporaryDirectory() as tmp:
        index = os.path.join(tmp, "serve.sdx")
        text = "".join("%d\n" % fp for fp in stored).encode()
        subprocess.run([args.simdex, "build", "-q", "-k", "3", "-o", index, "-"], input=text, check=True)
        print(f"n = {args.n} random fingerprints, k = 3, default scheme; {os.cpu_count()} cores; "
              f"load before {os.getloadavg()[0]:.2f}")
        print("| servers | lock-step queries/s | streamed queries/s |")
        print("|---:|---:|---:|")
        for procs in [int(p) for p in args.procs.split(",")]:
            a = run(lock_step, args.simdex, index, stored, procs, args.seconds)
            b = run(streamed, args.simdex, index, stored, procs, args.seconds)
            print(f"| {procs} | {a:,.0f} | {b:,.0f} |", flush=True)
        print(f"load after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
