"""Progress bars (issue 16): on a terminal every long command shows stage, bar, done/total (bytes of
the input file, compressed bytes for a compressed one) and, once it knows, a rate and an ETA; nothing
with --quiet, nothing when stderr is not a terminal; `build -o -` refuses a terminal as stdout. The
terminal is a pseudo-terminal (pty module).

usage: cli_progress_test.py SIMDEX
"""
import gzip
import os
import pty
import random
import re
import subprocess
import sys
import tempfile
import time

SIMDEX = sys.argv[1]
failures = []


def check(name, condition, detail=""):
    if not condition:
        failures.append(name)
        print(f"FAIL {name} {detail[-800:]}")


def on_pty(args, stdin=None):
    """Runs simdex with stderr on a pseudo-terminal (stdout to /dev/null); returns (rc, stderr, seconds)."""
    master, slave = pty.openpty()
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen([SIMDEX, *args], stdin=stdin or subprocess.DEVNULL, stdout=null, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the pty's last writer closed it
            break
        if not chunk:
            break
        seen += chunk
    rc = p.wait()
    os.close(master)
    return rc, seen.decode(errors="replace"), time.perf_counter() - start


BAR = re.compile(r"\[[#.]{24}\] +\d+% ")


def main():
    r = random.Random(3)
    with tempfile.TemporaryDirectory() as tmp:
        fps = os.path.join(tmp, "in.tsv")
        with open(fps, "w") as f:
            for i in range(400000):
                f.write("%d\t%d\n" % (r.getrandbits(64), i))
        size = os.path.getsize(fps)
        lone = os.path.join(tmp, "queries.txt")  # what query reads: one fingerprint a line
        with open(fps) as f, open(lone, "w") as out:
            for line in f:
                out.write(line.split("\t")[0] + "\n")
        with open(fps, "rb") as f:
            gz = os.path.join(tmp, "in.tsv.gz")
            with gzip.open(gz, "wb") as g:
                g.write(f.read())
        gz_size = os.path.getsize(gz)
        index = os.path.join(tmp, "a.sdx")
        docs = os.path.join(tmp, "docs.jsonl")
        words = ["w%d" % i for i in range(2000)]
        with open(docs, "w") as f:
            for i in range(20000):
                f.write('{"id": %d, "text": "%s"}\n' % (i, " ".join(r.choice(words) for _ in range(30))))

        def human(n):  # the bar's byte count, as cli/progress.cpp writes it
            for unit in ["B", "kB", "MB", "GB"]:
                if n < 1000:
                    return f"{n:.0f} B" if unit == "B" else f"{n:.1f} {unit}"
                n /= 1000
            return f"{n:.1f} TB"

        rc, err, seconds = on_pty(["build", "-o", index, fps])
        check("build: exit 0", rc == 0, err)
        check("build: a bar while reading", re.search(r"reading " + BAR.pattern, err) is not None, err)
        check("build: total = the file's size", f"/{human(size)}" in err, f"{human(size)} not in {err!r}")
        check("build: later stages shown", "tables [" in err, err)
        check("build: summary still printed", "simdex: wrote" in err, err)
        rc, err, _ = on_pty(["build", "-o", index, gz])
        check("build .gz: total = the compressed size", f"/{human(gz_size)}" in err, f"{human(gz_size)} not in {err!r}")

        for name, args in [("fingerprint", ["fingerprint", docs]), ("join", ["join", index, fps, "-k", "1"]),
                           ("pairs", ["pairs", index]), ("clusters", ["clusters", index]),
                           ("query from a file", ["query", index, "-k", "1"])]:
            stdin = open(lone) if name == "query from a file" else None
            rc, err, seconds = on_pty(args, stdin)
            check(f"{name}: exit 0", rc == 0, err)
            check(f"{name}: a bar", BAR.search(err) is not None, err)
            if seconds > 1.5:  # long enough for the rate (after 0.2 s) and a redraw (every 0.25 s)
                check(f"{name}: rate and ETA", re.search(r"/s  ETA \d+:\d\d", err) is not None, err)
            rc, err, _ = on_pty(args + ["--quiet"], stdin and open(lone))
            check(f"{name} --quiet: nothing on the terminal", rc == 0 and err == "", err)
            with open(os.devnull, "wb") as null:
                p = subprocess.run([SIMDEX, *args], stdin=stdin and open(lone), stdout=null, stderr=subprocess.PIPE)
            check(f"{name}: nothing when stderr is not a terminal", p.returncode == 0 and p.stderr == b"", p.stderr.decode())
        # dedup: the longest stage shows how much of the input is read, against its size.
        rc, err, _ = on_pty(["dedup", docs, "-o", os.path.join(tmp, "kept.jsonl")])
        check("dedup: exit 0", rc == 0, err)
        check("dedup: a bar while reading", re.search(r"reading " + BAR.pattern, err) is not None, err)
        check("dedup: total = the file's size", f"/{human(os.path.getsize(docs))}" in err, err)
        rc, err, _ = on_pty(["build", "-q", "-o", index, fps])
        check("build -q: nothing on the terminal", rc == 0 and err == "", err)
        # --progress into a log (stderr a pipe): whole lines, a stage's start and end, no redraws.
        for name, args in [("build", ["build", "-o", index, fps]), ("pairs", ["pairs", index])]:
            p = subprocess.run([SIMDEX, *args, "--progress"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            log = p.stderr.decode()
            check(f"{name} --progress to a log: exit 0", p.returncode == 0, log)
            check(f"{name} --progress to a log: no carriage returns", "\r" not in log, repr(log))
            bars = [line for line in log.splitlines() if BAR.search(line)]
            check(f"{name} --progress to a log: a few lines", (4 if name == "build" else 1) <= len(bars) <= 12,
                  repr(log))
            check(f"{name} --progress to a log: each stage's end once",
                  all(sum(1 for b in bars if b.startswith(s + " [") and "100%" in b) == 1
                      for s in {b.split(" [")[0] for b in bars}), repr(log))
        p = subprocess.run([SIMDEX, "build", "-q", "--progress", "-o", index, fps], stderr=subprocess.PIPE)
        check("-q and --progress exclude each other", p.returncode == 2 and b"excludes" in p.stderr, p.stderr.decode())
        # An index is not written to a terminal (-o - with stdout on one).
        master, slave = pty.openpty()
        p = subprocess.run([SIMDEX, "build", "-q", "-o", "-", fps], stdout=slave, stderr=subprocess.PIPE)
        os.close(slave)
        os.close(master)
        check("build -o - refuses a terminal", p.returncode == 2 and b"is a terminal" in p.stderr, p.stderr.decode())

    print(f"cli_progress_test: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
