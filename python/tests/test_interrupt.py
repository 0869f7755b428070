"""Ctrl-C stops long work: the library runs without the GIL, and would otherwise hear SIGINT only
once it returned (minutes later on a large or dense index). Each case runs in a child process that
sends itself SIGINT while the work runs; it must raise KeyboardInterrupt soon after, and leave no
output and no temporary file behind."""

import os
import subprocess
import sys
import textwrap

import pytest

import simdex

# The child imports the simdex under test, whatever the directory it runs in.
ENV = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(simdex.__file__))))

SETUP = """
import os, signal, sys, threading, time
import numpy as np
import simdex
rng = np.random.default_rng(1)
# 200,000 fingerprints in one prefix of 40 bits: every table is one group, pairs compare 2e10
# times (forced past the work limit): a minute or more of work, not a second.
dense = (np.uint64(0xABCDEF1234) << np.uint64(24)) | rng.integers(0, 1 << 24, 200000, dtype=np.uint64)
simdex.build("dense.sdx", dense, k=3)
index = simdex.open("dense.sdx")
with open("docs.txt", "w") as f:
    for i in range(2000000):
        f.write(f"document number {i} with a few words {i % 1000}\\n")
builder = simdex.Builder(k=3, threads=1)
builder.add(rng.integers(0, 2**63, 10000000, dtype=np.uint64))
before = set(os.listdir("."))
"""

WORK = {
    "pairs": "index.pairs(force=True, threads=1)",
    "join": "index.join(dense[:100000] ^ np.uint64(1), force=True, threads=2)",
    "clusters": "index.clusters(force=True, threads=2)",
    "build": 'builder.write("built.sdx")',
    "dedup": 'simdex.dedup("docs.txt", "kept.txt", input_format="lines", threads=1)',
}

RUN = """
# Python leaves SIGINT ignored when it starts so (a command run with `&` by a shell script):
# the handler of an interactive Ctrl-C, whatever the test runner's.
signal.signal(signal.SIGINT, signal.default_int_handler)
def interrupt():
    print("SIGINT sent at", time.monotonic() - start, file=sys.stderr)
    os.kill(os.getpid(), signal.SIGINT)
start = time.monotonic()
threading.Timer(0.5, interrupt).start()
try:
    {work}
    print("finished", time.monotonic() - start)
except KeyboardInterrupt:
    print("interrupted", time.monotonic() - start)
    print("left", sorted(set(os.listdir(".")) - before))
"""


@pytest.mark.parametrize("work", sorted(WORK))
def test_ctrl_c_stops_the_work_and_leaves_nothing(work, tmp_path):
    script = textwrap.dedent(SETUP) + textwrap.dedent(RUN).format(work=WORK[work])
    result = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=ENV, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.split("\n")
    assert lines[0].startswith("interrupted"), result.stdout + result.stderr
    # SIGINT came at 0.5 s; heard within a few seconds (at most a build's table or stage)
    assert float(lines[0].split()[1]) < 8, result.stdout
    assert lines[1] == "left []", result.stdout
