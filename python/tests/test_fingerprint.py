"""simdex.fingerprint against `simdex fingerprint`, across options and thread counts."""

import gzip
import json
import os
import subprocess
import warnings

import numpy as np
import pytest

import simdex
from conftest import run


def corpus(source_dir):
    path = os.path.join(source_dir, "data", "corpus", "docs.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        docs = [json.loads(line) for line in f if line.strip()]
    return path, [d["id"] for d in docs], [d["text"] for d in docs]


def cli_fingerprints(cli, path, *flags):
    ids, fps = [], []
    for line in run(cli, "fingerprint", path, *flags).splitlines():
        fp, doc_id = line.split("\t")
        fps.append(int(fp, 16))
        ids.append(int(doc_id))
    return ids, np.array(fps, dtype=np.uint64)


@pytest.mark.parametrize("flags,kwargs", [
    ([], {}),
    (["--shingle", "1", "--weighting", "binary", "--stopwords", "english"],
     dict(shingle=1, weighting="binary", stopwords="english")),
    (["--shingle", "5"], dict(shingle=5)),
])
def test_equal_to_the_cli_on_the_corpus(cli, source_dir, flags, kwargs):
    path, ids, texts = corpus(source_dir)
    cli_ids, expected = cli_fingerprints(cli, path, *flags)
    assert cli_ids == ids
    got = simdex.fingerprint(texts, **kwargs)
    assert got.dtype == np.uint64 and got.shape == (len(texts),)
    np.testing.assert_array_equal(got, expected)


def test_thread_counts_and_input_kinds_agree(source_dir):
    _, _, texts = corpus(source_dir)
    texts = texts[:700]
    one = simdex.fingerprint(texts, threads=1)
    for threads in (2, 7, 0):
        np.testing.assert_array_equal(simdex.fingerprint(texts, threads=threads), one)
    np.testing.assert_array_equal(simdex.fingerprint(t for t in texts), one)  # a generator
    np.testing.assert_array_equal(simdex.fingerprint(tuple(texts)), one)
    np.testing.assert_array_equal(simdex.fingerprint([t.encode() for t in texts]), one)  # UTF-8 bytes
    np.testing.assert_array_equal(simdex.fingerprint(np.array(texts)), one)  # numpy str array


def test_edge_texts(cli, tmp_path):
    texts = ["", "   ", "one", "Héllo, WORLD", "ＦＵＬＬ width", "中文字的文本", "a\u0000b", "x" * 100000]
    lines = tmp_path / "docs.jsonl"
    lines.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts)))
    _, expected = cli_fingerprints(cli, str(lines))
    np.testing.assert_array_equal(simdex.fingerprint(texts), expected)
    assert simdex.fingerprint([""])[0] == 0
    assert simdex.fingerprint([]).shape == (0,)
    # Ill-formed input is repaired, not refused: a lone surrogate, invalid UTF-8 bytes.
    assert simdex.fingerprint(["a \ud800 b c"]).shape == (1,)
    assert simdex.fingerprint([b"a \xff b c"])[0] == simdex.fingerprint(["a \ufffd b c"])[0]


def test_surrogates_are_read_as_the_cli_reads_the_json_escapes(cli, tmp_path):
    # A pair of surrogates in a str (as some decoders leave astral characters) is its code point,
    # as the CLI reads json.dumps's escapes of it (each half was repaired to U+FFFD: 𝐀 and 𝔸 fold
    # to "a" and the texts below came out as "a b c d"); a lone one is U+FFFD; a surrogate escape
    # is its byte. The same rule for stopwords (a lone surrogate in one raised pybind11's TypeError).
    texts = ["a\ud835\udc00b c d", "\ud835\udd38 x y z", "lone \ud800 one two", "high at the end \udbff"]
    lines = tmp_path / "docs.jsonl"
    lines.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts)))
    _, expected = cli_fingerprints(cli, str(lines))
    got = simdex.fingerprint(texts)
    np.testing.assert_array_equal(got, expected)
    assert got[0] == simdex.fingerprint(["a\U0001d400b c d"])[0] != simdex.fingerprint(["a b c d"])[0]
    # A text read with errors="surrogateescape" has the fingerprint of its bytes, as the CLI reads
    # the file they came from.
    raw = tmp_path / "raw.txt"
    raw.write_bytes(b"caf\xc3\xa9 au lait\nbad \xff byte here\n")
    _, expected = cli_fingerprints(cli, str(raw), "--input-format", "lines")
    escaped = raw.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    assert escaped[0] == "café au lait" and escaped[1] == "bad \udcff byte here"
    np.testing.assert_array_equal(simdex.fingerprint(escaped), expected)
    assert simdex.fingerprint(["caf\udcc3\udca9 au lait"])[0] == expected[0]
    base = simdex.fingerprint(["alpha beta gamma"], shingle=1)[0]
    assert simdex.fingerprint(["alpha beta \U0001d400x gamma"], shingle=1, stopwords=["\ud835\udc00x"])[0] == base
    with pytest.warns(UserWarning, match="never matches"):  # U+FFFD, a separator: no token
        assert simdex.fingerprint(["alpha \ufffd beta gamma"], shingle=1, stopwords=["\ud800"])[0] == base
    with pytest.raises(TypeError, match="a stopword is a str or bytes, not int"):
        simdex.fingerprint(["a"], stopwords=[3])


def test_custom_stopwords_are_dropped():
    base = simdex.fingerprint(["alpha beta gamma delta"], shingle=1)[0]
    assert simdex.fingerprint(["alpha beta ZETA gamma delta"], shingle=1, stopwords=["zeta"])[0] == base


def test_a_stopword_that_never_matches_is_warned_of():
    with pytest.warns(UserWarning, match=r'stopword "don\'t" is 2 tokens: "don" "t"; it never matches') as seen:
        got = simdex.fingerprint(["don't stop me now"], shingle=1, stopwords=["don't", "now"])
    assert len(seen) == 1 and seen[0].filename == __file__  # the caller's line, not the wrapper's
    assert got[0] == simdex.fingerprint(["don't stop me"], shingle=1)[0]  # "now" dropped, "don't" not
    with pytest.warns(UserWarning, match="\ufffd"):  # bytes that are not UTF-8: shown repaired
        simdex.fingerprint(["a"], stopwords=[b"\xff"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        simdex.fingerprint(["a"], stopwords=["the", "手机"])  # words: no warning
        with pytest.raises(UserWarning):  # a warning made an error stops the call
            simdex.fingerprint(["a"], stopwords=["--"])


def test_bad_arguments():
    with pytest.raises(TypeError, match="iterable of texts"):
        simdex.fingerprint("one text")
    with pytest.raises(TypeError, match="item 1 is int"):
        simdex.fingerprint(["ok", 5])
    for bad in (0, 17, -1, 2**40):  # one message for every value out of range, as the CLI's
        with pytest.raises(simdex.UsageError, match=rf"^shingle must be an integer in 1\.\.16, not {bad}$"):
            simdex.fingerprint(["a"], shingle=bad)
        with pytest.raises(simdex.UsageError, match=r"shingle must be an integer in 1\.\.16"):
            simdex.dedup(["a"], shingle=bad)
    with pytest.raises(ValueError, match="weighting"):
        simdex.fingerprint(["a"], weighting="tfidf")
    with pytest.raises(ValueError, match="stopwords"):
        simdex.fingerprint(["a"], stopwords="french")


def test_ctrl_c_stops_a_long_run():
    """SIGINT reaches Python between batches: a KeyboardInterrupt, not a run to the end."""
    import signal
    import threading

    def texts():
        for i in range(20_000_000):  # never reached: the interrupt comes first
            yield f"document {i} with a few words"
        raise AssertionError("SIGINT did not stop simdex.fingerprint")

    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            simdex.fingerprint(texts())
    finally:
        timer.cancel()


def test_unicode_version_is_the_clis_and_at_least_the_specs(cli):
    # spec/FINGERPRINT.md: Unicode 15.0's data is normative; later versions agree on its characters.
    version = simdex.unicode_version()
    assert tuple(int(x) for x in version.split(".")[:2]) >= (15, 0)
    out = subprocess.run([cli, "--version"], capture_output=True, text=True, check=True).stdout
    assert f"Unicode {version}" in out
