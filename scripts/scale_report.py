#!/usr/bin/env python3
"""Writes the markdown section of one scale run (called by scripts/scale with its measurements)."""
import datetime
import os
import re
import sys


def seconds(elapsed):
    """GNU time's "h:mm:ss" or "m:ss.ss" as seconds."""
    total = 0.0
    for part in elapsed.split(":"):
        total = total * 60 + float(part)
    return total


def main(argv):
    out, work, n, scheme, memory, cmd, peak_disk, verify_s, first_s, second_s, cold, found = argv[1:]
    n = int(n)
    time_txt = open(os.path.join(work, "time.txt")).read()

    def field(name):
        return re.search(re.escape(name) + r": (.*)", time_txt).group(1).strip()

    wall = seconds(field("Elapsed (wall clock) time (h:mm:ss or m:ss)"))
    rss_kib = int(field("Maximum resident set size (kbytes)"))
    build_log = open(os.path.join(work, "build.log")).read().replace("\r", "\n")
    summary = re.search(r"simdex: wrote .*", build_log).group(0)
    file_bytes = int(re.search(r"(\d+) bytes in", summary).group(1))
    tables = int(re.search(r"(\d+) tables", summary).group(1))
    distinct, ids = (int(x) for x in re.search(r"(\d+) fingerprints, (\d+) ids", summary).groups())
    temp = re.search(r"(\d+) temporary files, at most (\d+) bytes at once", summary)
    info = open(os.path.join(work, "info.txt")).read()
    bits = re.search(r"bits/entry\s+([0-9.]+) per table on average; floor.*= ([0-9.]+)", info)
    verify = open(os.path.join(work, "verify.txt")).read().strip().splitlines()
    queries = sum(1 for _ in open(os.path.join(work, "queries.txt")))
    gib = float(1 << 30)
    bound = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(memory[-1:].upper(), 1)
    bound_bytes = float(memory[:-1]) * bound if bound > 1 else float(memory)
    rows = [
        ("wall time of the build (generating and parsing the input included)", "%.1f s" % wall),
        ("build throughput", "%.2f M fingerprints/s, %.2f M table entries/s (%d tables)" % (n / wall / 1e6, n * tables / wall / 1e6, tables)),
        ("peak RSS (GNU time, largest process)", "%.1f MiB against a bound of %.1f MiB (%s): %s" % (
            rss_kib / 1024, bound_bytes / (1 << 20), memory, "within" if rss_kib * 1024 <= bound_bytes else "EXCEEDED")),
        ("temporary files", "%s files, at most %.2f GiB at once" % (temp.group(1), int(temp.group(2)) / gib) if temp else "none (sorted in memory)"),
        ("peak disk growth (temporary files + output, df every 2 s)", "%.2f GiB" % (float(peak_disk) / gib)),
        ("distinct fingerprints, ids", "%s, %s%s" % (format(distinct, ","), format(ids, ","),
                                                     "" if distinct == ids else " (a repeated fingerprint: the file needs id offsets, 8 bytes per fingerprint)")),
        ("final file", "%.2f GiB, %.1f bytes per fingerprint" % (file_bytes / gib, file_bytes / n)),
        ("bits per entry per table (simdex info)", "%s (floor log2 C(2^64, n)/n: %s)" % bits.groups()),
        ("simdex verify (reads the whole file)", "%.0f s: %s" % (float(verify_s), verify[-1] if verify else "")),
        ("%d planted queries through `simdex query`, one new process (page cache %s)" % (queries, "dropped before" if cold == "yes" else "as the build left it"),
         "%.2f s, %.0f µs per query (open, parsing and output included)" % (float(first_s), float(first_s) / queries * 1e6)),
        ("the same queries again, a new process (the pages are cached, but the process maps each on first touch)",
         "%.2f s, %.0f µs per query" % (float(second_s), float(second_s) / queries * 1e6)),
        ("answers", found),
    ]
    lines = ["### %s random fingerprints, %s, --memory %s" % (format(n, ","), scheme, memory), "",
             "Run on %s UTC, %d cores, %s." % (datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"), os.cpu_count(),
                                                "root" if os.geteuid() == 0 else "not root"), "",
             "    " + cmd, "", "| figure | value |", "|---|---|"]
    lines += ["| %s | %s |" % r for r in rows]
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv)
