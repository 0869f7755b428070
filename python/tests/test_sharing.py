"""One Index shared by threads and by forked processes; no leak over 10,000 opens; close() while
other threads query."""

import gc
import multiprocessing
import os
import pickle
import subprocess
import sys
import threading

import numpy as np
import pytest

import simdex
from conftest import brute_force, clustered_fingerprints

STORED = clustered_fingerprints(20000, seed=21)
QUERIES = STORED[::97] ^ np.uint64(0b1011)
_shared = None  # the Index the forked children inherit


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    p = tmp_path_factory.mktemp("sharing") / "shared.sdx"
    simdex.build(p, STORED, k=3)
    return str(p)


def expected_answers():
    return [sorted(brute_force(STORED, q, 3).items()) for q in QUERIES]


def answers(index, queries=QUERIES):
    return [sorted((h.fingerprint, h.distance) for h in index.query(q)) for q in queries]


def test_threads_share_one_index(path):
    expected = expected_answers()
    with simdex.open(path) as index:
        results, errors = {}, []

        def worker(n):
            try:
                for _ in range(5):
                    results[n] = answers(index)
                    m = index.join(QUERIES, threads=2)
                    assert len(set(zip(m.query.tolist(), m.fingerprint.tolist()))) == sum(map(len, expected))
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert all(r == expected for r in results.values()) and len(results) == 8


def test_close_while_other_threads_query(path):
    for _ in range(5):
        index = simdex.open(path)
        outcomes = []

        def worker():
            try:
                while True:
                    index.query(QUERIES[0])
            except ValueError as e:
                outcomes.append(str(e))

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        index.close()
        for t in threads:
            t.join()
        assert len(outcomes) == 4 and all("closed" in o for o in outcomes)


def _child_answers(chunk):
    return answers(_shared, QUERIES[chunk::4])


def test_forked_processes_share_the_mapping(path):
    global _shared
    _shared = simdex.open(path)
    try:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(4) as pool:
            parts = pool.map(_child_answers, range(4))
        expected = expected_answers()
        for chunk, part in enumerate(parts):
            assert part == expected[chunk::4]
        # An Index pickles as its path: a spawned process reopens it.
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            assert pool.apply(len, (_shared,)) == len(np.unique(STORED))
    finally:
        _shared.close()


def _fds():
    return len(os.listdir("/proc/self/fd"))


def _rss_kib():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def test_no_leak_over_10000_opens(path):
    for _ in range(200):  # warm up: allocator pools, thread-local buffers, the error classes
        with simdex.open(path) as index:
            index.query(QUERIES[0])
    gc.collect()
    fds, rss = _fds(), _rss_kib()
    for n in range(10000):
        index = simdex.open(path)
        index.query(QUERIES[n % len(QUERIES)])
        if n % 2:
            index.close()  # the other half are closed by garbage collection
        del index
    for _ in range(1000):
        with pytest.raises(simdex.FileError):
            simdex.open(path + ".missing")
    gc.collect()
    assert _fds() == fds
    assert _rss_kib() - rss < 8 * 1024, "RSS grew by more than 8 MiB over 10,000 opens"


def test_threads_share_one_builder(tmp_path):
    b = simdex.Builder(k=3)
    parts = np.array_split(np.arange(len(STORED)), 16)
    threads = [threading.Thread(target=lambda p=p: b.add(STORED[p], p.astype(np.uint64))) for p in parts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert b.pairs_added == len(STORED)
    b.write(str(tmp_path / "threads.sdx"))
    simdex.build(tmp_path / "one.sdx", STORED, k=3)
    assert (tmp_path / "threads.sdx").read_bytes() == (tmp_path / "one.sdx").read_bytes()


def test_pickled_index_reopens_the_same_file_from_another_directory(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    simdex.build(tmp_path / "a" / "x.sdx", np.arange(10, dtype=np.uint64))
    simdex.build(tmp_path / "b" / "x.sdx", np.arange(1000, dtype=np.uint64))
    monkeypatch.chdir(tmp_path / "a")
    index = simdex.open("x.sdx", preload="keys")
    blob = pickle.dumps(index)
    monkeypatch.chdir(tmp_path / "b")
    again = pickle.loads(blob)
    assert len(again) == 10 and os.path.isabs(again.path)
    assert len(pickle.loads(pickle.dumps(again.reopen()))) == 10
    index.close()
    with pytest.raises(ValueError, match="closed"):
        pickle.dumps(index)


def test_reopen_and_pickle_name_the_file_opened_after_a_chdir(tmp_path, monkeypatch):
    # The same relative names in two directories: after a chdir, reopen() and a pickle of an
    # Index(path) or of a set opened the other directory's file.
    for d, values in (("a", range(10)), ("b", range(1000, 1100))):
        (tmp_path / d).mkdir()
        simdex.build(tmp_path / d / "x.sdx", np.array(values, dtype=np.uint64))
        simdex.add(tmp_path / d / "s.sdx", np.array(values, dtype=np.uint64), ids=np.array(values, dtype=np.uint64))
    monkeypatch.chdir(tmp_path / "a")
    opened = [simdex.open("x.sdx"), simdex.Index("x.sdx"), simdex.open("s.sdx"), simdex.Index("s.sdx")]
    monkeypatch.chdir(tmp_path / "b")
    for index in opened:
        for again in (index.reopen(), pickle.loads(pickle.dumps(index)), pickle.loads(pickle.dumps(index.reopen()))):
            assert len(again) == 10 and 5 in again and 1005 not in again, (index, again)
    assert opened[1].path == "x.sdx"  # shown as given


def test_a_pickled_index_is_the_snapshot_pickled_or_an_error(tmp_path):
    # A worker that unpickles an Index after its path was given another index (a file replaced by
    # rename, a set added to) would answer from that one while the pickling process answers from
    # its snapshot: it raises FileChangedError instead; a reopen() pickles the new one.
    path, set_path = str(tmp_path / "x.sdx"), str(tmp_path / "s.sdxs")
    simdex.build(path, np.arange(10, dtype=np.uint64))
    simdex.add(set_path, np.arange(10, dtype=np.uint64))
    with simdex.open(path) as index, simdex.open(set_path) as snapshot:
        assert index.info["header_checksum"] == index.checksum != 0
        assert snapshot.info["manifest_checksum"] == snapshot.checksum != index.checksum
        blobs = [pickle.dumps(index), pickle.dumps(snapshot)]
        assert [len(pickle.loads(b)) for b in blobs] == [10, 10]  # unchanged: reopened
        simdex.build(path + ".new", np.arange(10, dtype=np.uint64), ids=np.arange(1, 11, dtype=np.uint64))
        os.replace(path + ".new", path)  # the same fingerprints, other ids: another index
        simdex.add(set_path, np.arange(10, 20, dtype=np.uint64), ids=np.arange(10, 20, dtype=np.uint64))
        for blob, name in zip(blobs, (path, set_path)):
            with pytest.raises(simdex.FileChangedError, match="another index than the one pickled") as e:
                pickle.loads(blob)
            assert e.value.code == "file_changed" and name in str(e.value)
        assert len(index) == 10 and len(snapshot) == 10  # the snapshots themselves answer as before
        with index.reopen() as new, snapshot.reopen() as grown:
            assert list(pickle.loads(pickle.dumps(new)).ids_of(3)) == [4]
            assert len(pickle.loads(pickle.dumps(grown))) == 20


@pytest.mark.parametrize("work", ["fingerprint", "join", "query", "dedup"])
def test_interpreter_exit_while_a_daemon_thread_works(tmp_path, work):
    # A daemon thread calls into simdex in a loop when the interpreter exits: taking the GIL back
    # after a call then ended the thread by an unwinding that aborted the process (exit 134, every
    # run). Such a thread now waits for the process to end.
    script = f"""
import threading, time, numpy as np, simdex
texts = ["text %d words here" % i for i in range(70_000)]
fps = np.random.default_rng(1).integers(0, 2**63, 20_000, dtype=np.uint64)
simdex.build({str(tmp_path / "x.sdx")!r}, fps, scheme="paper-10")
index = simdex.open({str(tmp_path / "x.sdx")!r})
unit = {{"fingerprint": lambda: simdex.fingerprint(texts, threads=1),
         "join": lambda: index.join(fps, threads=1),
         "query": lambda: [index.query(int(f)) for f in fps[:2000]],
         "dedup": lambda: simdex.dedup(texts[:20000], threads=1)}}[{work!r}]
started = threading.Event()
def run():
    started.set()
    while True:
        unit()
threading.Thread(target=run, daemon=True).start()
started.wait()
time.sleep(0.2)
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
