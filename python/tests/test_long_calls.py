"""Long calls: progress= reports them, and Ctrl-C stops them. The library runs without the GIL, and
would otherwise hear SIGINT only once it returned (minutes later on a large or dense index). Each
Ctrl-C case runs in a child process that sends itself SIGINT while the work runs; it must raise
KeyboardInterrupt soon after, and leave no output and no temporary file behind."""

import os
import subprocess
import sys
import textwrap

import numpy as np
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
# 1M pairs of 65,536 fingerprints, about 100 blocks a table: 20,000 queries are one group that meets
# hundreds of entries a block (a tenth of a second each), the table one chunk (it ran on for 10 s).
few = (np.uint64(0xABCDEF0123) << np.uint64(24)) | rng.integers(0, 1 << 16, 1000000, dtype=np.uint64)
simdex.build("few.sdx", few, k=3)
few_blocks = simdex.open("few.sdx")
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
    "join_few_blocks": "few_blocks.join(few[:20000], force=True, threads=2)",
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


ADD = """
import os, signal, sys, threading, time
import numpy as np
import simdex
signal.signal(signal.SIGINT, signal.default_int_handler)
pairs = np.random.default_rng(1).integers(0, 2**63, 20000000, dtype=np.uint64)
def interrupted(call):
    threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    start = time.monotonic()
    try:
        call()
        print("finished")
    except KeyboardInterrupt:
        print("interrupted", time.monotonic() - start, sorted(os.listdir(".")))
b = simdex.Builder(k=3, memory=8 << 20, threads=1)
interrupted(lambda: b.add(pairs))
print(0 < b.pairs_added < len(pairs))
try:
    b.add(pairs[:1])
except simdex.UsageError as e:
    print("refused:", e)
del b
interrupted(lambda: simdex.build("b.sdx", pairs, memory=8 << 20, threads=1, temp_dir="."))
"""


def test_ctrl_c_during_add_stops_it_and_the_builder_refuses_to_go_on(tmp_path):
    # An add of 20M pairs (seconds) heard Ctrl-C only once done, then raised KeyboardInterrupt with
    # every pair in: an add again gave them twice. simdex.build's sort files stayed while the
    # exception (its traceback, holding the Builder) lived.
    result = subprocess.run([sys.executable, "-c", ADD], cwd=tmp_path, env=ENV, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.split("\n")
    assert lines[0].startswith("interrupted") and float(lines[0].split()[1]) < 3, result.stdout
    assert lines[1] == "True", result.stdout
    assert lines[2].startswith("refused: an add() was interrupted after "), result.stdout
    assert lines[3].startswith("interrupted") and lines[3].endswith(" []"), result.stdout


def test_progress_reports_each_call_and_ends_at_its_total(tmp_path):
    rng = np.random.default_rng(3)
    fps = rng.integers(0, 2**64, 200000, dtype=np.uint64, endpoint=False)
    calls = []
    summary = simdex.build(tmp_path / "p.sdx", fps, progress=lambda *a: calls.append(a))
    stages = [c[0] for c in calls]
    assert "sort" in stages and stages[-1] == "tables"
    assert calls[-1] == ("tables", summary.table_count, summary.table_count)
    assert all(isinstance(s, str) and 0 <= d and (t == 0 or d <= t) for s, d, t in calls)
    index = simdex.open(tmp_path / "p.sdx")
    for name, call in [("join", lambda p: index.join(fps[:50000] ^ np.uint64(1), progress=p)),
                       ("pairs", lambda p: index.pairs(progress=p)),
                       ("clusters", lambda p: index.clusters(progress=p))]:
        calls = []
        call(lambda *a: calls.append(a))
        assert calls and {c[0] for c in calls} == {name}
        assert calls[-1][1] == calls[-1][2] > 0  # the last report is the whole
    docs = tmp_path / "docs.txt"
    docs.write_text("".join(f"document {i} with words {i % 50}\n" for i in range(20000)))
    calls = []
    simdex.dedup(str(docs), input_format="lines", progress=lambda *a: calls.append(a))
    stages = [c[0] for c in calls]
    assert stages[0] == "reading" and ("reading", docs.stat().st_size, docs.stat().st_size) in calls
    assert "clusters" in stages


def test_pairs_and_clusters_of_a_set_report_its_merge_first(tmp_path, monkeypatch):
    # A set of several members is written as one temporary index (in TMPDIR) for pairs and
    # clusters: its stages come first, then the job's; a stop in the merge leaves no file.
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    fps = np.random.default_rng(6).integers(0, 2**64, 60000, dtype=np.uint64, endpoint=False)
    for part in range(3):
        ids = np.arange(part * 20000, (part + 1) * 20000, dtype=np.uint64)
        simdex.add(tmp_path / "s.sdxs", fps[part * 20000:(part + 1) * 20000] ^ np.uint64(part), ids=ids, merge=False)
    index = simdex.open(tmp_path / "s.sdxs")
    for name, call in [("pairs", lambda p: index.pairs(progress=p)),
                       ("clusters", lambda p: index.clusters(progress=p))]:
        calls = []
        call(lambda *a: calls.append(a))
        stages = [c[0] for c in calls]
        assert stages[0].startswith("merging members: ") and stages[-1] == name
        assert calls[-1][1] == calls[-1][2] > 0
    assert os.listdir(scratch) == []

    class Stop(Exception):
        pass

    def stop(stage, done, total):
        if stage.startswith("merging members: "):
            raise Stop(stage)

    with pytest.raises(Stop):
        index.clusters(progress=stop)
    assert os.listdir(scratch) == []


def test_an_exception_in_progress_stops_the_work_and_leaves_nothing(tmp_path):
    class Stop(Exception):
        pass

    def stop(stage, done, total):
        if stage == "tables":
            raise Stop(stage)

    fps = np.random.default_rng(4).integers(0, 2**64, 100000, dtype=np.uint64, endpoint=False)
    with pytest.raises(Stop):
        simdex.build(tmp_path / "s.sdx", fps, progress=stop)
    assert os.listdir(tmp_path) == []
    simdex.add(tmp_path / "set", fps[:1000], ids=np.arange(1000, dtype=np.uint64))
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(Stop):
        simdex.add(tmp_path / "set", fps[1000:], ids=np.arange(1000, 100000, dtype=np.uint64), progress=stop)
    assert sorted(os.listdir(tmp_path)) == before and len(simdex.open(tmp_path / "set")) == 1000
    with pytest.raises(TypeError, match="callable"):
        simdex.build(tmp_path / "t.sdx", fps, progress="yes")


def test_progress_misuse_and_edges(tmp_path):
    fps = np.random.default_rng(5).integers(0, 2**64, 300000, dtype=np.uint64, endpoint=False)
    # A write's callback calling add() or write() on its own Builder waited for its own lock forever.
    b = simdex.Builder()
    b.add(fps)
    with pytest.raises(simdex.UsageError, match="is writing"):
        b.write(tmp_path / "a.sdx", progress=lambda *a: b.add([1]))
    # Stopped after the pairs were used up: the Builder says so (not written: nothing was), and
    # refuses more.
    assert not b.written and not (tmp_path / "a.sdx").exists() and "write failed" in repr(b)
    with pytest.raises(simdex.UsageError, match="failed or was stopped"):
        b.add([1])
    # A stage's first and last reports always come: "merge" of a spilled sort, one 100% of reading.
    calls = []
    simdex.build(tmp_path / "m.sdx", fps, memory=1 << 20, progress=lambda *a: calls.append(a))
    merges = [c for c in calls if c[0] == "merge"]
    assert merges[0][1] == 0 and merges[-1][1] == merges[-1][2] > 0, merges
    docs = tmp_path / "docs.txt"
    docs.write_text("".join(f"doc {i} words {i % 70}\n" for i in range(100000)))
    calls = []
    simdex.dedup(str(docs), input_format="lines", progress=lambda *a: calls.append(a))
    size = docs.stat().st_size
    assert calls.count(("reading", size, size)) == 1
    # Waiting for another writer's set lock: the callback is told ("lock", 0, 0) and may give up.
    import fcntl
    simdex.add(tmp_path / "set", fps[:10], ids=np.arange(10, dtype=np.uint64))
    with open(str(tmp_path / "set") + ".lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)

        def give_up(stage, done, total):
            if stage == "lock":
                raise TimeoutError("gave up waiting")

        with pytest.raises(TimeoutError):
            simdex.add(tmp_path / "set", fps[10:20], ids=np.arange(10, 20, dtype=np.uint64), progress=give_up)
    assert len(simdex.open(tmp_path / "set")) == 10


def exit_during(work, seen, tmp_path):
    """Runs a Python process that starts `work` (statements) on a daemon thread, waits until a file
    that `seen(name)` picks is in its folder (tmp_path), then exits: returns what the folder holds
    after, checking that such a file was seen."""
    script = textwrap.dedent("""
        import os, threading, time
        import numpy as np
        import simdex
        def work():
    """) + textwrap.indent(textwrap.dedent(work), "    ") + textwrap.dedent(f"""
        threading.Thread(target=work, daemon=True).start()
        seen = {seen}
        for _ in range(1000):  # until the work has its temporary files
            if any(seen(f) for f in os.listdir(".")):
                break
            time.sleep(0.005)
        print("temporary files seen:", [f for f in sorted(os.listdir(".")) if seen(f)])
    """)
    result = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=ENV, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "seen: []" not in result.stdout, result.stdout
    return sorted(os.listdir(tmp_path))


def test_a_daemon_thread_in_dedup_of_texts_at_exit_leaves_no_copy_of_them(tmp_path):
    # dedup(texts, output) copies the texts to a temporary file (they are read twice): the library's
    # own, so the module's exit removes it too (a Python temporary file stayed, the dataset's size).
    left = exit_during("""
        texts = ["word%d other stuff here" % i for i in range(200000)]
        simdex.dedup(texts, "out.jsonl", temp_dir=".")
    """, 'lambda f: f.startswith(".simdex-dedup-tmp-") and f.endswith(".jsonl")', tmp_path)
    assert left in ([], ["out.jsonl"]), left


def test_a_daemon_thread_building_at_exit_leaves_no_temporary_file(tmp_path):
    # The interpreter exits while a daemon thread builds: the thread never returns to remove its
    # temporary files; the module removes them once the interpreter is finalized.
    left = exit_during("""
        b = simdex.Builder(threads=1)
        b.add(np.random.default_rng(6).integers(0, 2**63, 10000000, dtype=np.uint64))
        b.write("out.sdx")
    """, 'lambda f: ".tmp" in f or ".simdex-" in f', tmp_path)
    assert left in ([], ["out.sdx"]), left


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_during_a_build_leave_no_temporary_file(tmp_path, sig):
    # A scheduler's stop (SIGTERM) or a closed terminal (SIGHUP) ends the process by the signal, as
    # without simdex, and its temporary files (the sort's runs, the output's .tmp) go with it.
    script = textwrap.dedent(f"""
        import os, signal
        import numpy as np
        import simdex
        def stop(stage, done, total):
            if stage == "tables":
                os.kill(os.getpid(), signal.{sig})
        fps = np.random.default_rng(7).integers(0, 2**63, 400000, dtype=np.uint64)
        simdex.build("out.sdx", fps, memory=1 << 20, progress=stop)
    """)
    env = dict(ENV, TMPDIR=str(tmp_path))
    result = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == -getattr(__import__("signal"), sig), result.stderr[-2000:]
    assert os.listdir(tmp_path) == [], os.listdir(tmp_path)


def test_a_program_that_handles_sigterm_keeps_its_handler(tmp_path):
    # Only a signal left to its default action is taken: a handler the program set stays.
    script = textwrap.dedent("""
        import signal
        signal.signal(signal.SIGTERM, lambda *a: print("handled"))
        import simdex
        signal.raise_signal(signal.SIGTERM)
        print("alive")
    """)
    result = subprocess.run([sys.executable, "-c", script], env=ENV, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.split() == ["handled", "alive"], result


def test_a_join_whose_rows_would_not_fit_stops_with_a_work_limit_error(tmp_path):
    """5,000 queries of a fingerprint stored with 5,000 ids: 25M rows (2.5 GB). Under a 3 GiB
    address-space limit the bound is half of it: the call stops with WorkLimitError, not MemoryError
    or the kernel's OOM killer, and the process goes on (a small join works after it)."""
    code = textwrap.dedent("""
        import resource, sys
        import numpy as np
        import simdex
        simdex.build("many_ids.sdx", np.full(5000, 7, dtype=np.uint64), ids=np.arange(5000, dtype=np.uint64))
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, resource.RLIM_INFINITY))
        with simdex.open("many_ids.sdx") as index:
            try:
                index.join(np.full(5000, 7, dtype=np.uint64), threads=2)
                print("no error")
            except simdex.WorkLimitError as e:
                print("WorkLimitError:", e)
            print("small join:", index.join([7, 7]).query.size)
    """)
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=dict(ENV, OPENBLAS_NUM_THREADS="1"),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "WorkLimitError: Index.join's result passed" in r.stdout and "force=True" in r.stdout, r.stdout
    assert "small join: 10000" in r.stdout, r.stdout
