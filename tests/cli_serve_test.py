"""`simdex query --serve` driven from Python as a co-process (standard library only): each query line
is answered at once (hits, then an empty line; --json: one object per query), an empty answer too,
SIGHUP after replacing the index by rename serves the new one, and without --serve the output waits
in its buffer until the end of input.

usage: cli_serve_test.py SIMDEX
"""
import json
import os
import pty
import random
import select
import shutil
import signal
import subprocess
import sys
import tempfile

SIMDEX = sys.argv[1]
failures = []


def check(name, condition, detail=""):
    if not condition:
        failures.append(name)
        print(f"FAIL {name} {detail}")


def build(path, pairs):
    text = "".join(f"{fp}\t{i}\n" for fp, i in pairs)
    subprocess.run([SIMDEX, "build", "-q", "-o", path, "-k", "3", "-"], input=text.encode(), check=True)


def brute_force(pairs, query, k):
    """The answer `simdex query` gives: (fingerprint, distance, ids) by (distance, fingerprint)."""
    ids = {}
    for fp, i in pairs:
        ids.setdefault(fp, set()).add(i)
    hits = [(bin(fp ^ query).count("1"), fp) for fp in ids]
    return [(fp, d, sorted(ids[fp])) for d, fp in sorted(h for h in hits if h[0] <= k)]


class Server:
    def __init__(self, *args):
        self.p = subprocess.Popen([SIMDEX, "query", "--serve", *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        self.pending = b""

    def readline(self, timeout=10.0):
        while b"\n" not in self.pending:
            ready, _, _ = select.select([self.p.stdout], [], [], timeout)
            if not ready:
                raise TimeoutError("no answer within %s s" % timeout)
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk:
                raise EOFError("the server ended")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line.decode()

    def ask_text(self, query):
        self.p.stdin.write(f"{query}\n".encode())
        lines = []
        while (line := self.readline()) != "":
            lines.append(line)
        return lines

    def ask_json(self, query):
        self.p.stdin.write(f"{query}\n".encode())
        return json.loads(self.readline())

    def close(self):
        self.p.stdin.close()
        rc = self.p.wait(timeout=30)
        return rc, self.p.stderr.read().decode()


def text_hits(lines):
    out = []
    for line in lines:
        q, fp, d, ids = line.split("\t")
        out.append((int(fp), int(d), [int(i) for i in ids.split(",")]))
    return out


def main():
    r = random.Random(16)
    with tempfile.TemporaryDirectory() as tmp:
        index = os.path.join(tmp, "docs.sdx")
        # Clusters of fingerprints a few bits apart, and random ones.
        bases = [r.getrandbits(64) for _ in range(300)]
        first = [(b ^ (1 << r.randrange(64)) * (j > 0), 10 * n + j) for n, b in enumerate(bases) for j in range(3)]
        first += [(r.getrandbits(64), 100000 + i) for i in range(2000)]
        build(index, first)
        queries = [b ^ (1 << r.randrange(64)) for b in bases[:100]] + [r.getrandbits(64) for _ in range(100)]

        server = Server(index)
        empty = 0
        for q in queries:
            want = brute_force(first, q, 3)
            got = text_hits(server.ask_text(q))
            check(f"text answer to {q}", got == want, f"{got} != {want}")
            empty += not want
        check("some queries have no hit (their empty answers came)", empty > 0)
        rc, err = server.close()
        check("text server exits 0", rc == 0, err)

        server = Server("--json", "-k", "2", index)
        for q in queries[:50] + queries[-20:]:
            want = brute_force(first, q, 2)
            answer = server.ask_json(q)
            got = [(h["fingerprint"], h["distance"], h["ids"]) for h in answer["hits"]]
            check(f"json answer to {q}", answer["query"] == q and got == want, f"{answer}")
        bad = server.ask_json("0xnothex")
        check("json error answer", bad.get("query") == "0xnothex" and "not a 64-bit fingerprint" in bad.get("error", ""), f"{bad}")
        # A line that is not UTF-8: the answer is still JSON text (the bytes become U+FFFD).
        server.p.stdin.write(b"\x89\xff0x1\n")
        bad = json.loads(server.readline())
        check("json error answer to bytes that are not UTF-8", bad.get("query") == "\ufffd\ufffd0x1", f"{bad}")

        # Replace by rename, then SIGHUP: the next answer comes from the new index.
        second = [(r.getrandbits(64), 500000 + i) for i in range(1000)]
        staged = os.path.join(tmp, "next.sdx")
        build(staged, second)
        os.replace(staged, index)
        server.p.send_signal(signal.SIGHUP)
        q = second[0][0]
        answer = server.ask_json(q)
        got = [(h["fingerprint"], h["distance"], h["ids"]) for h in answer["hits"]]
        check("after SIGHUP the new index answers", got == brute_force(second, q, 2), f"{answer}")
        q = queries[0]
        answer = server.ask_json(q)
        got = [(h["fingerprint"], h["distance"], h["ids"]) for h in answer["hits"]]
        check("after SIGHUP the old index is gone", got == brute_force(second, q, 2), f"{answer}")
        rc, err = server.close()
        check("json server exits 0", rc == 0, err)

        # An index set: SIGHUP reopens it as Index::reopen does, so an older manifest copied back over
        # the one served is refused (stale_manifest, spec/SET.md 5) and the newer one still serves.
        sdxs = os.path.join(tmp, "s.sdxs")
        for pairs, flags in (([(100, 1)], []), ([(200, 2)], ["--no-merge"])):
            subprocess.run([SIMDEX, "add", "-q", *flags, sdxs, "-"], check=True,
                           input="".join(f"{f}\t{i}\n" for f, i in pairs).encode())
            if not flags:
                shutil.copy(sdxs, os.path.join(tmp, "generation1"))
        server = Server("--json", "-k", "0", sdxs)
        check("the set's second member answers", server.ask_json(200)["hits"] != [])
        os.replace(os.path.join(tmp, "generation1"), sdxs)
        server.p.send_signal(signal.SIGHUP)
        answer = server.ask_json(200)
        check("after an older manifest and SIGHUP, the newer snapshot still answers", answer["hits"] != [], f"{answer}")
        rc, err = server.close()
        check("the refused manifest is named", "stale_manifest" in err, err)

        # An answer that fails part way is dropped whole, past the 64 KiB output buffer too: a key map
        # whose line for id 2500 is malformed fails the answer of a fingerprint with 3,000 keyed ids
        # (330 KB) at its 2,500th id. The answer is an error answer, and the next query's answer
        # follows it (the reader got the answer cut short and the error appended, out of step).
        keyed = os.path.join(tmp, "keyed.sdx")
        build(keyed, [(0xAAAA, i) for i in range(3000)] + [(0x5555, 5)])
        lines = ["#simdex-keys 1\n"] + [f"{i}\thttps://example.com/{i:04d}/{'x' * 90}\n" for i in range(3000)]
        lines[1 + 2500] = "2500 no tab here\n"
        with open(keyed + ".keys.tsv", "w") as f:
            f.write("".join(lines))
        for json_mode in (False, True):
            server = Server(*(["--json"] if json_mode else []), "--keys", "-k", "0", keyed)
            if json_mode:
                bad = server.ask_json(0xAAAA)
                check("a failed answer is one error answer", set(bad) == {"query", "error"} and
                      "no TAB" in bad["error"], str(bad)[:300])
                good = server.ask_json(0x5555)
                check("the answer after it is the next query's", good["query"] == 0x5555 and
                      good["hits"][0]["ids"] == ["https://example.com/0005/" + "x" * 90], str(good)[:300])
            else:
                check("a failed text answer is an empty answer", server.ask_text(0xAAAA) == [])
                good = server.ask_text(0x5555)
                check("the text answer after it is the next query's", len(good) == 1 and
                      good[0].endswith("\thttps://example.com/0005/" + "x" * 90), str(good)[:300])
            rc, err = server.close()
            check("the failed answer's error is on stderr, the server exits 0", rc == 0 and "no TAB" in err, err)
        # A key map truncated in place to nothing is no map without keys: the server ends (it printed
        # every id in decimal instead of its key).
        lines[1 + 2500] = "2500\tfixed\n"
        with open(keyed + ".keys.tsv", "w") as f:
            f.write("".join(lines))
        server = Server("--json", "--keys", "-k", "0", keyed)
        check("a keyed answer", server.ask_json(0x5555)["hits"][0]["ids"][0].startswith("https://"))
        os.truncate(keyed + ".keys.tsv", 0)
        server.p.stdin.write(b"0x5555\n")
        try:
            leftover = server.readline()
        except EOFError:
            leftover = None
        rc, err = server.close()
        check("a key map truncated to nothing ends the server", leftover is None and rc == 1 and
              "empty file is not a key map" in err, f"{leftover} {rc} {err}")

        # Lines: one longer than 4 KiB is refused however it arrives (it was read as a query when it
        # came in one piece); a byte order mark before the first query is dropped, as `query` drops it.
        server = Server("--json", index)
        server.p.stdin.write(b"\xef\xbb\xbf" + f"{second[0][0]}\n".encode())
        check("a byte order mark before the first query", server.readline().startswith(f'{{"query":{second[0][0]},'))
        server.p.stdin.write(b"1" * 4500 + b"\n")
        long_line = json.loads(server.readline())
        check("a line of 4,500 bytes is refused", "line longer than 4096 bytes" in long_line.get("error", ""),
              str(long_line))
        server.close()
        # Standard input closed: the index is not opened as descriptor 0 and read as queries.
        p = subprocess.run(["sh", "-c", 'exec "$0" query --serve "$1" <&-', SIMDEX, index], capture_output=True)
        check("a closed stdin is an error", p.returncode == 1 and p.stdout == b"" and
              b"Bad file descriptor" in p.stderr, f"{p}")

        p = subprocess.run(["sh", "-c", 'exec "$0" query "$1" <&-', SIMDEX, index], capture_output=True)
        check("query with stdin closed: an error, not its index read as queries",
              p.returncode == 1 and b"Bad file descriptor" in p.stderr and b"SDX" not in p.stderr, f"{p}")
        # An index read from stdin that is a terminal: a usage error, where it waited for one typed in.
        controller, terminal = pty.openpty()
        try:
            p = subprocess.run([SIMDEX, "query", "-", "0x1"], stdin=terminal, capture_output=True, timeout=30)
            check("query - from a terminal", p.returncode == 2 and b"is a terminal" in p.stderr, f"{p}")
        finally:
            os.close(controller)
            os.close(terminal)

        # Without --serve the answers are block-buffered: nothing comes before the end of input.
        p = subprocess.Popen([SIMDEX, "query", index, "-k", "0"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, bufsize=0)
        p.stdin.write(f"{second[0][0]}\n".encode())
        ready, _, _ = select.select([p.stdout], [], [], 0.5)
        check("without --serve nothing is flushed per query", not ready)
        p.stdin.close()
        out = p.stdout.read().decode()
        check("without --serve the answer comes at the end", out.startswith(f"{second[0][0]}\t"), out)
        p.wait(timeout=30)

    print(f"cli_serve_test: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
