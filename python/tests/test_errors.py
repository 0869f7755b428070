"""Bad inputs raise clear errors: wrong dtypes, k too large, corrupt, missing and closed files."""

import os
import pickle

import numpy as np
import pytest

import simdex
from conftest import random_fingerprints


@pytest.fixture()
def index_path(tmp_path):
    path = tmp_path / "x.sdx"
    simdex.build(path, random_fingerprints(2000, 1), k=3)
    return path


def test_error_hierarchy_and_codes(tmp_path):
    with pytest.raises(simdex.FileError) as e:
        simdex.open(tmp_path / "missing.sdx")
    assert isinstance(e.value, simdex.Error) and isinstance(e.value, OSError)
    assert e.value.code == "io" and "missing.sdx" in str(e.value)
    (tmp_path / "text.sdx").write_text("hello, not an index\n" * 200)
    with pytest.raises(simdex.FormatError) as e:
        simdex.open(tmp_path / "text.sdx")
    assert e.value.code == "bad_magic" and type(e.value).__module__ == "simdex"
    (tmp_path / "empty.sdx").write_bytes(b"")
    with pytest.raises(simdex.Error) as e:
        simdex.open(tmp_path / "empty.sdx")
    assert e.value.code == "file_too_small"


def test_corrupt_files_raise_format_errors(index_path, tmp_path):
    data = bytearray(index_path.read_bytes())
    rng = np.random.default_rng(7)
    codes = set()
    for trial in range(60):
        bad = bytearray(data)
        pos = int(rng.integers(0, len(bad)))
        bad[pos] ^= 1 << int(rng.integers(0, 8))
        path = tmp_path / f"bad{trial}.sdx"
        path.write_bytes(bytes(bad))
        try:
            with simdex.open(path) as index:
                report = index.verify()
                assert not report.ok, f"a flipped bit at {pos} went unnoticed"
                codes.update(p.code for p in report.problems)
                assert all(p.code in simdex._simdex.error_codes for p in report.problems)
        except simdex.Error as e:
            assert e.code in simdex._simdex.error_codes and e.code not in ("usage", "io")
            codes.add(e.code)
    truncated = tmp_path / "truncated.sdx"
    truncated.write_bytes(bytes(data[: len(data) // 2]))
    with pytest.raises(simdex.FormatError):
        simdex.open(truncated)
    assert codes  # the spec's rule names


def test_k_too_large_is_a_usage_error(index_path):
    with simdex.open(index_path) as index:
        for call in (lambda: index.query(1, k=4), lambda: index.join([1, 2], k=9), lambda: index.pairs(k=4),
                     lambda: index.clusters(k=64)):
            with pytest.raises(simdex.UsageError) as e:
                call()
            assert isinstance(e.value, ValueError) and e.value.code == "usage" and "k = " in str(e.value)
        for k in (-1, True, 1.0, 2**40):  # as join's k: a UsageError (a ValueError) naming k
            with pytest.raises(simdex.UsageError, match="k must be an integer"):
                index.query(1, k=k)
    with pytest.raises(simdex.UsageError):
        simdex.build(index_path.parent / "y.sdx", [1, 2, 3], k=3, block_bytes=33)
    # Negative or non-integer counts name their parameter (pybind11 said "incompatible function arguments").
    with simdex.open(index_path) as index:
        for call, name in ((lambda: index.join([1], threads=-1), "threads"),
                           (lambda: index.clusters(min_size=-1), "min_size"),
                           (lambda: index.pairs(k=True), "k"), (lambda: index.join([1], k=2**40), "k")):
            with pytest.raises(simdex.UsageError, match=f"^{name} must be an integer"):
                call()
    simdex.Builder(k=np.int64(3), threads=np.uint8(1))  # numpy's integers are integers
    for kwargs in (dict(k=-1), dict(memory=-1), dict(threads=1.5), dict(block_bytes=None), dict(k=np.bool_(1))):
        with pytest.raises(simdex.UsageError, match=f"^{next(iter(kwargs))} must be an integer"):
            simdex.Builder(**kwargs)
    for bad in (0, 33):  # when the Builder is made, not at write() after every add
        with pytest.raises(simdex.UsageError, match="block_bytes"):
            simdex.Builder(block_bytes=bad)
    with pytest.raises(simdex.UsageError):
        simdex.build(index_path.parent / "y.sdx", [1, 2, 3], scheme="paper-99")


def test_flags_and_the_set_calls_counts_are_checked_as_everywhere(index_path, tmp_path):
    # force="yes" was pybind11's "incompatible function arguments"; force=1, wait=2 and an add's
    # k=True were taken as True and k=1.
    s = tmp_path / "s.sdxs"
    with simdex.open(index_path) as index:
        for call, name in ((lambda: index.join([1], force="yes"), "force"), (lambda: index.pairs(force=1), "force"),
                           (lambda: index.clusters(force=None), "force")):
            with pytest.raises(simdex.UsageError, match=f"^{name} must be True or False"):
                call()
    for kwargs in (dict(merge="no"), dict(wait=2)):
        with pytest.raises(simdex.UsageError, match=f"^{next(iter(kwargs))} must be True or False"):
            simdex.add(s, [1, 2], **kwargs)
    for kwargs in (dict(k=True), dict(k=-1), dict(block_bytes=-8), dict(memory=-1), dict(threads="2")):
        with pytest.raises(simdex.UsageError, match=f"^{next(iter(kwargs))} must be an integer"):
            simdex.add(s, [1, 2], **kwargs)
    assert not s.exists()  # refused before a set was made
    simdex.add(s, [1, 2], k=np.uint8(2), block_bytes=np.int64(64))
    with pytest.raises(simdex.UsageError, match="^wait must be True or False"):
        simdex.remove(s, [1], wait="no")
    for kwargs, what in ((dict(wait=1), "True or False"), (dict(memory=-1), "an integer"),
                         (dict(threads=1.0), "an integer")):
        with pytest.raises(simdex.UsageError, match=f"^{next(iter(kwargs))} must be {what}"):
            simdex.merge(s, **kwargs)
    with pytest.raises(simdex.UsageError, match="^detect_changes must be True or False"):
        simdex.open(s, detect_changes="no")
    for preload in (3, b"all", "ALL"):
        with pytest.raises(simdex.UsageError, match="preload must be None, 'keys' or 'all'"):
            simdex.open(s, preload=preload)
    with simdex.open(s, detect_changes=np.bool_(False), preload="keys") as again:
        assert again.k == 2 and [h.fingerprint for h in again.query(1, k=0)] == [1]


def test_wrong_dtypes_and_shapes(index_path):
    with simdex.open(index_path) as index:
        with pytest.raises(TypeError, match="np.uint64"):
            index.join(np.array([1.5, 2.0]))
        with pytest.raises(TypeError, match="np.uint64"):
            index.join(["0x12"])
        with pytest.raises(TypeError, match="NoneType"):  # None is an item, not "nothing found"
            index.join([1, None])
        with pytest.raises(ValueError, match="negative"):
            index.join(np.array([-1, 2], dtype=np.int64))
        with pytest.raises(ValueError, match="1-D"):
            index.join(np.zeros((2, 2), dtype=np.uint64))
        with pytest.raises(ValueError, match="ids has 1 values for 2"):
            index.join(np.array([1, 2], dtype=np.uint64), ids=[5])
        with pytest.raises(TypeError):
            index.query(1.5)
        for out_of_range in (-1, 2**64):  # as join's arrays: a value error naming the range
            with pytest.raises(simdex.UsageError, match=r"0\.\.2\*\*64-1"):
                index.query(out_of_range)
        for call in (lambda: index.query(True), lambda: index.ids_of(False), lambda: True in index,
                     lambda: index.join([True, 2]), lambda: index.join((2, np.bool_(False))),
                     lambda: simdex.build(index_path.parent / "b.sdx", [1, 2], ids=[3, True])):
            with pytest.raises(TypeError):  # a bool is no fingerprint (join refuses them too)
                call()
        assert index.query(np.uint64(2**64 - 1), k=0) == [] and index.ids_of(np.int64(5)).size == 0
        # Accepted: any unsigned or non-negative integer array, Python ints up to 2**64 - 1.
        assert index.join([2**64 - 1, 0]).query.dtype == np.int64
        assert index.join(np.array([3], dtype=np.uint32)).fingerprint.dtype == np.uint64
        assert index.join([]).query.size == 0
    with pytest.raises(TypeError, match="np.uint64"):
        simdex.build(index_path.parent / "z.sdx", np.array([0.5]))
    with pytest.raises(ValueError, match="ids has 2 values for 3"):
        simdex.build(index_path.parent / "z.sdx", [1, 2, 3], ids=[1, 2])
    assert not (index_path.parent / "z.sdx").exists()


def test_closed_index_and_spent_builder(index_path, tmp_path):
    index = simdex.open(index_path)
    index.close()
    index.close()  # twice is fine
    for call in (lambda: index.query(1), lambda: index.info, lambda: len(index), lambda: index.pairs()):
        with pytest.raises(ValueError, match="closed"):
            call()
    b = simdex.Builder()
    b.add([1, 2, 3])
    b.write(str(tmp_path / "b.sdx"))
    with pytest.raises(ValueError, match="written"):
        b.add([4])
    with pytest.raises(ValueError, match="written"):
        b.write(str(tmp_path / "c.sdx"))


def test_a_second_init_is_refused_not_ignored(index_path, tmp_path):
    # pybind11 ignores __init__ on an object made already: the Builder kept its old k, the Index
    # stayed on its old file, and nothing said so.
    other = tmp_path / "other.sdx"
    simdex.build(other, [5, 6, 7])
    index = simdex.open(index_path)
    with pytest.raises(TypeError, match="open already"):
        index.__init__(str(other))
    assert index.path == str(index_path) and index.reopen().path == str(index_path)
    builder = simdex.Builder(k=3)
    builder.add([1, 2])
    with pytest.raises(TypeError, match="made already"):
        builder.__init__(k=5)
    assert builder.k == 3 and builder.pairs_added == 2
    fresh = simdex.Index.__new__(simdex.Index)  # the first __init__ still works
    fresh.__init__(str(other))
    assert len(fresh) == 3


def test_objects_whose_init_never_ran_raise_type_errors(index_path):
    # cls.__new__(cls) alone: pybind11 2.10 handed such an object's methods uninitialized memory
    # (a segfault); every method and property now raises TypeError, repr() says so.
    index_calls = [lambda x: x.query(1), lambda x: x.join([1]), lambda x: x.pairs(), lambda x: x.clusters(),
                   lambda x: x.ids_of(1), lambda x: 1 in x, lambda x: len(x), lambda x: x.info,
                   lambda x: x.verify(), lambda x: x.close(), lambda x: x.closed, lambda x: x.path,
                   lambda x: x.k, lambda x: x.fingerprint_count, lambda x: x.is_set, lambda x: x.reopen(),
                   lambda x: x.detect_changes, lambda x: simdex.Index(reopen=x)]
    for call in index_calls:
        with pytest.raises(TypeError, match="not initialized"):
            call(simdex.Index.__new__(simdex.Index))
    assert repr(simdex.Index.__new__(simdex.Index)) == "<simdex.Index (not initialized)>"
    with pytest.raises(TypeError, match="not initialized"):
        pickle.dumps(simdex.Index.__new__(simdex.Index))
    builder_calls = [lambda b: b.add([1]), lambda b: b.write(index_path.parent / "y.sdx"),
                     lambda b: b.pairs_added, lambda b: b.written, lambda b: b.k, lambda b: len(b)]
    for call in builder_calls:
        with pytest.raises(TypeError, match="not initialized"):
            call(simdex.Builder.__new__(simdex.Builder))
    assert repr(simdex.Builder.__new__(simdex.Builder)) == "<simdex.Builder (not initialized)>"
    import copy
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):  # 0 and 1 aborted the interpreter
        with pytest.raises(TypeError, match="cannot pickle a simdex.Builder"):
            pickle.dumps(simdex.Builder(), protocol=protocol)
    with pytest.raises(TypeError, match="cannot pickle"):
        copy.copy(simdex.Builder())
    assert not (index_path.parent / "y.sdx").exists()
    # KeyMap too (len() segfaulted, `in` read uninitialized memory, get() answered None).
    keymap_calls = [lambda k: len(k), lambda k: 1 in k, lambda k: k[1], lambda k: k.get(1), lambda k: k.ids(),
                    lambda k: k.keys_of([1])]
    for cls in (simdex.KeyMap, simdex._simdex.KeyMap):
        for call in keymap_calls:
            with pytest.raises(TypeError, match="not initialized"):
                call(cls.__new__(cls))
    # The compiled classes themselves refuse pickling at every protocol (0 and 1 aborted the
    # interpreter); the simdex classes pickle as before.
    keys = index_path.parent / "k.keys.tsv"
    keys.write_text("#simdex-keys 1\n%d\tdoc\n" % simdex.key_id("doc"))
    raw = [simdex._simdex.Index(str(index_path)), simdex._simdex.Builder(), simdex._simdex.KeyMap(str(keys))]
    for obj in raw:
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            with pytest.raises(TypeError, match="made directly"):
                pickle.dumps(obj, protocol=protocol)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert len(pickle.loads(pickle.dumps(simdex.KeyMap(keys), protocol=protocol))) == 1
        assert len(pickle.loads(pickle.dumps(simdex.open(index_path), protocol=protocol))) == 2000
    # Another object where an Index belongs: pybind11's usual TypeError, naming what is accepted.
    with pytest.raises(TypeError, match="incompatible"):
        simdex.Index(reopen=5)
    with pytest.raises(TypeError, match="incompatible"):
        simdex.Index.query(5, 1)
    # Constructed objects work as before.
    with simdex.open(index_path) as index:
        assert len(index) == 2000 and index.reopen().k == index.k


def test_a_path_that_is_not_utf8_is_refused_clearly(tmp_path):
    name = os.fsencode(str(tmp_path)) + b"/\xff.sdx"  # a surrogate-escaped str after os.fsdecode
    for path in (name, os.fsdecode(name)):
        with pytest.raises(simdex.UsageError, match="UTF-8"):
            simdex.build(path, [1, 2])
        with pytest.raises(simdex.UsageError, match="UTF-8"):
            simdex.open(path)
    assert os.listdir(tmp_path) == []


def test_a_builder_refuses_a_bad_k_before_any_pair_is_added():
    for k in (33, 65):
        with pytest.raises(simdex.UsageError, match=r"out of range \(0\.\.32\)"):
            simdex.Builder(k=k)
    assert simdex.Builder(k=32).k == 32


def test_write_errors_leave_nothing(tmp_path):
    with pytest.raises(simdex.FileError, match="does not exist"):
        simdex.build(tmp_path / "no" / "such" / "dir.sdx", [1, 2])
    os.mkdir(tmp_path / "a_directory.sdx")
    with pytest.raises(simdex.Error):
        simdex.build(tmp_path / "a_directory.sdx", [1, 2])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_directory.sdx"]


def test_results_and_errors_pickle(index_path):
    """What a multiprocessing worker sends back: hits, reports and errors, with their codes."""
    import pickle
    with simdex.open(index_path) as index:
        hit = index.query(random_fingerprints(2000, 1)[0])[0]
        assert pickle.loads(pickle.dumps(hit)) == hit and type(pickle.loads(pickle.dumps(hit))) is simdex.Hit
        report = index.verify()
        assert pickle.loads(pickle.dumps(report)) == report
        with pytest.raises(simdex.UsageError) as e:
            index.query(1, k=10)
    again = pickle.loads(pickle.dumps(e.value))
    assert type(again) is simdex.UsageError and again.code == "usage" and str(again) == str(e.value)


def test_a_file_truncated_under_an_open_index(tmp_path):
    """No SIGBUS: every call that reads the file raises FileChangedError (spec: file_changed)."""
    fps = random_fingerprints(200000, 3)
    path = tmp_path / "changing.sdx"
    simdex.build(path, fps)
    index = simdex.open(path)
    assert index.query(fps[0])[0].fingerprint == int(fps[0])
    with open(path, "r+b") as f:
        f.truncate(path.stat().st_size // 2)
    for call in (lambda: index.query(fps[1]), index.verify, lambda: index.join(fps[:1000]), index.pairs):
        with pytest.raises(simdex.FileChangedError) as e:
            call()
        assert e.value.code == "file_changed"
    index.close()


LATE_HANDLER = """
import faulthandler, os, signal, sys
import numpy as np
import simdex
fps = np.random.default_rng(4).integers(0, 2**63, 100000, dtype=np.uint64)
simdex.build("a.sdx", fps)
simdex.build("b.sdx", fps)
first = simdex.open("a.sdx")
if sys.argv[1] == "faulthandler":
    faulthandler.enable()
else:
    signal.signal(signal.SIGBUS, lambda *args: None)
second = simdex.open("b.sdx")
os.truncate("b.sdx", 300)
try:
    second.join(fps[:10000])
except simdex.FileChangedError:
    print("FileChangedError")
"""


@pytest.mark.parametrize("late", ["faulthandler", "signal"])
def test_a_sigbus_handler_put_in_after_the_first_open(tmp_path, late):
    # Python's faulthandler.enable() (or signal.signal) after an index was opened replaced simdex's
    # handler for the indexes opened later: a truncated one then crashed ("Fatal Python error: Bus
    # error") or hung at 100% CPU. The next open installs simdex's on top again.
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(simdex.__file__))))
    result = subprocess.run([sys.executable, "-c", LATE_HANDLER, late], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout == "FileChangedError\n", result.stdout + result.stderr


def test_a_path_with_a_nul_byte_is_refused_not_cut_short(tmp_path, index_path):
    # The C library would stop at the NUL and read or write another file: ValueError, as open().
    victim = tmp_path / "victim"
    fps = random_fingerprints(10, 2)
    for call in (lambda: simdex.build(str(victim) + "\x00.sdx", fps),
                 lambda: simdex.open(str(index_path) + "\x00more"),
                 lambda: simdex.dedup(["a text", "a text"], str(victim) + "\x00.jsonl"),
                 lambda: simdex.add(str(victim) + "\x00.sdxs", fps, k=3),
                 lambda: simdex.Builder(temp_dir=str(tmp_path) + "\x00x")):
        with pytest.raises(ValueError, match="null byte"):
            call()
    assert not victim.exists()


def test_buffers_of_bytes_are_refused_not_read_one_number_a_byte(index_path, tmp_path):
    import mmap
    raw = np.array([0x1234, 2**64 - 1], dtype="<u8").tobytes()
    (tmp_path / "raw.bin").write_bytes(raw)
    with open(tmp_path / "raw.bin", "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        with simdex.open(index_path) as index:
            for buffer in (raw, bytearray(raw), memoryview(raw), mapped):
                with pytest.raises(TypeError, match=r"np\.frombuffer\(fingerprints, dtype='<u8'\)"):
                    index.join(buffer)
                with pytest.raises(TypeError, match="buffer of bytes"):
                    simdex.build(tmp_path / "b.sdx", buffer)
            # The way it names works, and a buffer of uint64 passes as it is.
            assert index.join(np.frombuffer(mapped, dtype="<u8")).query.dtype == np.int64
            import array
            assert index.join(array.array("Q", [5, 6])).query.size == index.join([5, 6]).query.size
    assert not (tmp_path / "b.sdx").exists()


def test_masked_values_and_numpy_bools_are_refused(index_path):
    with simdex.open(index_path) as index:
        masked = np.ma.masked_array(np.array([1, 2], dtype=np.uint64), mask=[False, True])
        with pytest.raises(simdex.UsageError, match="masked"):
            index.join(masked)
        unmasked = np.ma.masked_array(np.array([1, 2], dtype=np.uint64), mask=[False, False])
        assert index.join(unmasked).query.size == index.join([1, 2]).query.size
        for call in (lambda: index.query(np.bool_(True)), lambda: index.ids_of(np.bool_(False)),
                     lambda: np.bool_(True) in index):
            with pytest.raises(TypeError, match="not numpy.bool"):
                call()
        with pytest.raises(simdex.UsageError, match="k must be an integer"):
            index.query(1, k=np.bool_(True))


def test_file_errors_are_the_builtin_oserror_of_their_errno(tmp_path, index_path):
    import errno
    with pytest.raises(FileNotFoundError) as e:
        simdex.open(tmp_path / "missing.sdx")
    assert isinstance(e.value, simdex.FileError) and e.value.errno == errno.ENOENT
    assert type(e.value).__name__ == "FileError" and type(e.value).__module__ == "simdex"
    again = pickle.loads(pickle.dumps(e.value))  # from a pool's worker: the same kind
    assert isinstance(again, FileNotFoundError) and isinstance(again, simdex.FileError)
    assert again.errno == errno.ENOENT and str(again) == str(e.value)
    assert e.value.strerror == again.strerror == os.strerror(errno.ENOENT)  # as an OSError's
    assert "missing.sdx" in str(e.value)  # the message, naming the file, stays str(e)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        simdex.build(tmp_path / "no" / "such" / "dir.sdx", [1, 2])
    os.mkdir(tmp_path / "d.sdx")
    with pytest.raises(IsADirectoryError) as e:
        simdex.open(tmp_path / "d.sdx")
    assert e.value.errno == errno.EISDIR


def test_a_closed_index_cannot_begin_a_with_block(index_path):
    index = simdex.open(index_path)
    index.close()
    with pytest.raises(simdex.UsageError, match="closed"):
        with index:
            pass


def test_an_index_takes_a_path_object_as_open_does(index_path):
    import pathlib
    index = simdex.Index(pathlib.Path(index_path))
    try:
        assert len(index) == len(simdex.open(index_path))
    finally:
        index.close()
