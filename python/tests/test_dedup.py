"""simdex.dedup: the answers of `simdex dedup` (same engine), on paths and on iterables of texts."""

import errno
import gzip
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import simdex
from conftest import popcount, run

WORDS = [f"w{i}" for i in range(5000)]


def planted_texts(n_base, seed):
    """Random texts and near-duplicates of some of them (a word or two changed, words added)."""
    rng = np.random.default_rng(seed)
    texts = []
    for _ in range(n_base):
        base = list(rng.choice(WORDS, size=int(rng.integers(40, 120))))
        texts.append(" ".join(base))
        for _ in range(int(rng.integers(0, 3))):  # 0..2 near-duplicates
            copy = list(base)
            for _ in range(int(rng.integers(0, 3))):
                copy[int(rng.integers(0, len(copy)))] = str(rng.choice(WORDS))
            if rng.random() < 0.3:
                copy += list(rng.choice(WORDS, size=2))
            texts.append(" ".join(copy))
    order = rng.permutation(len(texts))
    return [texts[i] for i in order]


def write_jsonl(path, records):
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


def cli_dedup(cli, source, tmp_path, *flags):
    """(output bytes, report) of `simdex dedup SOURCE FLAGS`."""
    out, report = tmp_path / "cli-out.jsonl", tmp_path / "cli-report.json"
    run(cli, "dedup", str(source), "-o", str(out), "--report", str(report), "-q", *flags)
    with open(report, encoding="utf-8") as f:
        return out.read_bytes(), json.load(f)


def assert_same_as_report(result, report):
    assert result.documents == report["documents"]
    assert len(result.removed) == report["removed"] and len(result.keep) == report["kept"]
    assert result.k == report["k"] and result.keep_policy == report["keep"]
    assert len(result.without_words) == report["without_words"]
    assert len(result.clusters) == report["clusters_count"] == len(report["clusters"])
    for c, r in zip(result.clusters, report["clusters"]):
        members = r["members"]
        assert c.documents.tolist() == [m["document"] for m in members]
        assert c.kept == next(m["document"] for m in members if m["kept"])
        assert c.distances.tolist() == [m["distance"] for m in members]
        assert [f"0x{f:016x}" for f in c.fingerprints.tolist()] == [m["fingerprint"] for m in members]
        assert c.ids.tolist() == [m["id"] for m in members]
        assert c.lines.tolist() == [m["line"] for m in members]
        keys = [m["key"] for m in members]
        assert c.keys == (None if all(k is None for k in keys) else keys)


def assert_consistent(result):
    """keep and removed partition the documents; each cluster keeps exactly one member."""
    assert result.keep.dtype == np.int64 and result.removed.dtype == np.int64
    assert np.all(np.diff(result.keep) > 0) and np.all(np.diff(result.removed) > 0)
    assert len(np.intersect1d(result.keep, result.removed)) == 0
    assert len(result.keep) + len(result.removed) == result.documents
    kept = set(result.keep.tolist())
    for c in result.clusters:
        assert len(c.documents) >= 2 and c.kept in c.documents.tolist()
        assert [d in kept for d in c.documents.tolist()].count(True) == 1
    assert len(result.removed) == sum(len(c.documents) - 1 for c in result.clusters)


def plain(cluster):
    """A DedupCluster with lists for arrays, to compare with ==."""
    return tuple(x.tolist() if isinstance(x, np.ndarray) else x for x in cluster)


def brute_force_components(fps, k):
    """Groups (sorted lists of positions) of the documents connected within k bits, 2 or more."""
    fps = np.asarray(fps, dtype=np.uint64)
    parent = list(range(len(fps)))

    def root(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i in range(len(fps)):
        for j in np.flatnonzero(popcount(fps[i + 1:] ^ fps[i]) <= k):
            parent[root(i)] = root(i + 1 + int(j))
    groups = {}
    for i in range(len(fps)):
        groups.setdefault(root(i), []).append(i)
    return sorted(g for g in groups.values() if len(g) >= 2)


@pytest.fixture(scope="module")
def texts():
    return planted_texts(400, seed=15)


def test_corpus_equals_the_cli(cli, source_dir, tmp_path):
    corpus = os.path.join(source_dir, "data", "corpus", "docs.jsonl.gz")
    cli_out, report = cli_dedup(cli, corpus, tmp_path)  # the CLI's default k and keep
    out = tmp_path / "py-out.jsonl"
    result = simdex.dedup(corpus, out)
    assert result.k == simdex.DOCUMENT_K and result.keep_policy == "first"
    assert_same_as_report(result, report)
    assert out.read_bytes() == cli_out
    assert result.output == str(out)
    assert_consistent(result)
    assert 0 < len(result.removed) < result.documents
    with gzip.open(corpus, "rt", encoding="utf-8") as f:
        lines = [line for line in f if line.strip()]
    assert out.read_text(encoding="utf-8").splitlines(True) == [lines[i] for i in result.keep]


@pytest.mark.parametrize("keep", simdex.KEEP_POLICIES)
def test_planted_duplicates_with_keys_equal_the_cli(cli, texts, tmp_path, keep):
    # String keys, integer-less records (line numbers) mixed in: keys come back where there are any.
    records = [{"url": f"https://example.org/{i}", "text": t} if i % 3 else {"text": t}
               for i, t in enumerate(texts)]
    source = tmp_path / "docs.jsonl"
    write_jsonl(source, records)
    cli_out, report = cli_dedup(cli, source, tmp_path, "--id-field", "url", "--keep", keep, "-k", "5")
    out = tmp_path / "py-out.jsonl.gz"
    result = simdex.dedup(source, out, id_field="url", keep=keep, k=5)
    assert_same_as_report(result, report)
    assert gzip.decompress(out.read_bytes()) == cli_out
    assert_consistent(result)
    assert any(c.keys for c in result.clusters)


@pytest.mark.parametrize("form", ["dir", "lines"])
def test_directories_and_lines_equal_the_cli(cli, texts, tmp_path, form):
    if form == "dir":  # files keyed by their paths; the output lists the kept paths
        source = tmp_path / "docs"
        for i, t in enumerate(texts[:200]):
            (source / f"{i % 7}").mkdir(parents=True, exist_ok=True)
            (source / f"{i % 7}" / f"doc-{i}.txt").write_text(t, encoding="utf-8")
    else:
        source = tmp_path / "docs.txt"
        source.write_text("\n".join(texts) + "\n", encoding="utf-8")
    cli_out, report = cli_dedup(cli, source, tmp_path, "--input-format", form)
    out = tmp_path / "py-out.txt"
    result = simdex.dedup(source, out, input_format=form)
    assert_same_as_report(result, report)
    assert out.read_bytes() == cli_out
    assert_consistent(result)
    assert result.clusters
    if form == "dir":
        assert all(len(c.keys) == len(c.documents) and all(c.keys) for c in result.clusters)


def test_texts_that_are_not_valid_unicode_are_repaired_not_refused():
    odd = ["lone \ud800 surrogate w1 w2 w3", "lone \ud800 surrogate w1 w2 w3", b"\xff\xfe w1 w2"]
    result = simdex.dedup(odd)
    assert result.removed.tolist() == [1]
    fps = simdex.fingerprint(odd)
    assert result.clusters[0].fingerprints.tolist() == fps[:2].tolist()


def test_clusters_are_the_brute_force_components(texts):
    result = simdex.dedup(texts, k=6)
    fps = simdex.fingerprint(texts)
    assert [c.documents.tolist() for c in result.clusters] == brute_force_components(fps, 6)
    for c in result.clusters:
        assert c.fingerprints.tolist() == fps[c.documents].tolist()
        assert c.distances.tolist() == popcount(c.fingerprints ^ fps[c.kept]).tolist()
    assert_consistent(result)
    assert len(result.clusters) > 20  # the planted duplicates were found


def test_a_result_pickles_with_every_protocol(texts):
    import pickle
    result = simdex.dedup(texts, k=6)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):  # __slots__ alone took 2 and above only
        again = pickle.loads(pickle.dumps(result, protocol))
        assert type(again) is simdex.DedupResult and repr(again) == repr(result)
        assert again.keep.tolist() == result.keep.tolist() and again.removed.tolist() == result.removed.tolist()
        assert [plain(c) for c in again.clusters] == [plain(c) for c in result.clusters]
        assert type(again.clusters[0]) is simdex.DedupCluster
    with pytest.raises(ValueError, match="read-only"):  # the result's own: a copy is the caller's
        result.keep[0] = 99


def test_texts_equal_the_path_form(texts, tmp_path):
    source = tmp_path / "texts.jsonl"
    write_jsonl(source, [{"text": t} for t in texts])
    by_path = simdex.dedup(source, k=5, keep="longest")
    for form, output in ((texts, None), (iter(texts), None), (tuple(texts), tmp_path / "out.jsonl")):
        by_texts = simdex.dedup(form, output, k=5, keep="longest")
        assert by_texts.documents == by_path.documents == len(texts)
        assert by_texts.keep.tolist() == by_path.keep.tolist()
        assert by_texts.removed.tolist() == by_path.removed.tolist()
        assert [plain(c) for c in by_texts.clusters] == [plain(c) for c in by_path.clusters]


def test_texts_output_holds_the_kept_texts(texts, tmp_path):
    odd = ["caf\u00e9 \u00fcber \"quoted\"\n\tline", "", b"bytes w1 w2 w3"]
    everything = texts + odd + [odd[0]]  # an exact duplicate of a text with escapes
    out = tmp_path / "kept.jsonl"
    result = simdex.dedup(everything, out)
    kept = [json.loads(line)["text"] for line in out.read_text(encoding="utf-8").splitlines()]
    as_str = [t.decode() if isinstance(t, bytes) else t for t in everything]
    assert kept == [as_str[i] for i in result.keep]
    assert len(everything) - 1 in result.removed  # the duplicate of odd[0] goes


def test_a_full_temp_dir_is_a_file_error(tmp_path):
    # The texts' temporary file past a file size limit (EFBIG, as a full disk's ENOSPC; Python
    # ignores SIGXFSZ): simdex.FileError naming the file, nothing left, the output not written.
    code = """
import resource, sys, simdex
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))
try:
    simdex.dedup(["some words of text number %d" % i for i in range(2000)], sys.argv[1], temp_dir=sys.argv[2])
except simdex.FileError as e:
    print("FileError:", e, e.errno)
"""
    spool_dir = tmp_path / "tmp"
    spool_dir.mkdir()
    out = tmp_path / "kept.jsonl"
    got = subprocess.run([sys.executable, "-c", code, str(out), str(spool_dir)], capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    assert "FileError: cannot write the texts' temporary file" in got.stdout and "File too large 27" in got.stdout
    assert not out.exists() and list(spool_dir.iterdir()) == []


def test_an_exception_of_the_iterable_goes_through(texts):
    def failing():
        yield from texts * 6  # past the first batch (4096 texts)
        raise RuntimeError("the source broke")

    with pytest.raises(RuntimeError, match="the source broke"):
        simdex.dedup(failing())
    assert simdex.dedup(texts[:10]).documents == 10  # and the module still works


def test_keep_policies_pick_by_length(texts):
    sizes = np.array([len(t.encode()) for t in texts])
    by = {keep: simdex.dedup(texts, keep=keep) for keep in simdex.KEEP_POLICIES}
    for first, longest, shortest in zip(*(by[p].clusters for p in ("first", "longest", "shortest"))):
        d = first.documents
        assert longest.documents.tolist() == shortest.documents.tolist() == d.tolist()
        assert first.kept == d[0]
        assert longest.kept == d[np.argmax(sizes[d])] and shortest.kept == d[np.argmin(sizes[d])]
    assert simdex.KEEP_POLICIES == ("first", "longest", "shortest")


def test_index_is_kept_when_asked(texts, tmp_path):
    path = tmp_path / "docs.sdx"
    result = simdex.dedup(texts, index=path, k=4)
    with simdex.open(path) as index:
        assert index.k == 4 and len(index) == len(np.unique(simdex.fingerprint(texts)))
        # The index records how its fingerprints were made (spec/FORMAT.md §5.2).
        assert index.info["fingerprint_settings"] == {
            "fingerprint_version": 1, "shingle_size": 3, "weighting": "frequency", "stopwords": []}
        assert index.info["format"] == "2.2"
    simdex.dedup(texts, index=path, k=4, shingle=2, weighting="binary", stopwords="english")
    with simdex.open(path) as index:
        settings = index.info["fingerprint_settings"]
        assert settings["shingle_size"] == 2 and settings["weighting"] == "binary"
        assert settings["stopwords"] == sorted(settings["stopwords"]) and "the" in settings["stopwords"]
    assert "clusters (k=4, keep='first')" in repr(result) and f"{len(texts)} documents" in repr(result)


def test_empty_input(tmp_path):
    result = simdex.dedup([], tmp_path / "out.jsonl")
    assert result.documents == 0 and len(result.keep) == 0 and result.clusters == []
    assert (tmp_path / "out.jsonl").read_bytes() == b""


def test_documents_without_words_are_kept_and_listed(cli, tmp_path):
    # All have the fingerprint 0: they were one cluster of "near-duplicates", all but one removed.
    texts = ["\U0001F600\U0001F389", "the river runs under the old stone bridge all night", "!!! ???", "",
             "the river runs under the old stone bridge all night", "\u27a1\ufe0f"]
    result = simdex.dedup(texts)
    assert result.without_words.tolist() == [0, 2, 3, 5]
    assert result.without_words.dtype == np.int64
    assert result.removed.tolist() == [4]
    assert "4 without words kept" in repr(result)
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    _, report = cli_dedup(cli, path, tmp_path)
    assert report["without_words"] == 4 and report["removed"] == 1


def test_bad_arguments_raise_clear_errors(texts, tmp_path):
    with pytest.raises(simdex.UsageError, match="keep policy 'best'"):
        simdex.dedup(texts, keep="best")
    for k in (33, -1, 2.5, "7"):
        with pytest.raises(simdex.UsageError, match="k must be"):
            simdex.dedup(texts, k=k)
    with pytest.raises(simdex.UsageError, match="input format 'xml'"):
        simdex.dedup(tmp_path, input_format="xml")
    with pytest.raises(simdex.UsageError, match="shingle"):
        simdex.dedup(texts, shingle=0)
    with pytest.raises(simdex.UsageError, match="weighting"):
        simdex.dedup(texts, weighting="tfidf")
    with pytest.raises(simdex.UsageError, match="describe a file"):
        simdex.dedup(texts, id_field="url")
    with pytest.raises(TypeError, match="item 1 is int"):
        simdex.dedup(["a text", 3])
    with pytest.raises(TypeError, match="path or an iterable"):
        simdex.dedup(42)
    with pytest.raises(simdex.FileError, match="missing.jsonl") as missing:
        simdex.dedup(tmp_path / "missing.jsonl")
    assert missing.value.errno == errno.ENOENT and isinstance(missing.value, OSError)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "fine"}\n{"text": 3}\n')
    with pytest.raises(simdex.InputError, match=":2"):
        simdex.dedup(bad)
    with pytest.raises(simdex.FileError):
        simdex.dedup(texts, tmp_path / "no-such-dir" / "out.jsonl")
    # With an output, texts are copied before the run: bad settings are found before any is read
    # (an iterable is read once), and a missing temp_dir is a FileError.
    read = []
    def once():
        for t in texts:
            read.append(t)
            yield t
    for bad_args in (dict(keep="last"), dict(shingle=0), dict(weighting="x")):
        with pytest.raises(simdex.UsageError):
            simdex.dedup(once(), tmp_path / "out.jsonl", **bad_args)
    with pytest.raises(simdex.FileError):
        simdex.dedup(once(), tmp_path / "no-such-dir" / "out.jsonl")
    assert read == []
    with pytest.raises(simdex.FileError, match="temporary directory"):
        simdex.dedup(texts, tmp_path / "out.jsonl", temp_dir=tmp_path / "no-such-dir")
    assert not (tmp_path / "out.jsonl").exists()


def test_help_teaches():
    doc = simdex.dedup.__doc__
    for word in ("DedupResult", "keep", "DOCUMENT_K", "iterable of str", "simdex dedup", "output"):
        assert word in doc
    assert simdex.DOCUMENT_K == 7


def test_texts_output_is_valid_utf8_whatever_the_texts(tmp_path):
    # Lone surrogates and bytes that are not UTF-8 went to the JSON Lines output as they were: a file
    # no JSON reader could read. They are written repaired, with the fingerprints fingerprint() gives.
    texts = ["caf\ud800 au lait", "tea for two", b"\xff\xfe raw bytes", "plain \U0001f600 text"]
    out = tmp_path / "o.jsonl"
    result = simdex.dedup(texts, out)
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [line["text"] for line in lines] == ["caf\ufffd au lait", "tea for two",
                                                "\ufffd\ufffd raw bytes", "plain \U0001f600 text"]
    assert len(result.keep) == 4 and len(result.removed) == 0
    assert (simdex.fingerprint(texts) == simdex.fingerprint([line["text"] for line in lines])).all()


def test_nothing_is_written_inside_a_directory_source(tmp_path):
    # The output (or index) inside the directory of documents changed the input while it was read
    # ("the input changed between its two reads") and became a document of the next run.
    (tmp_path / "d" / "sub").mkdir(parents=True)
    for name in ("a.txt", "sub/b.txt"):
        (tmp_path / "d" / name).write_text("ships sail on the sea")
    for kwargs in ({"output": tmp_path / "d" / "out.txt"}, {"output": None, "index": tmp_path / "d" / "sub" / "i.sdx"}):
        with pytest.raises(simdex.UsageError, match="lies in the input directory"):
            simdex.dedup(tmp_path / "d", **kwargs)
    assert sorted(p.name for p in (tmp_path / "d").rglob("*") if p.is_file()) == ["a.txt", "b.txt"]
    assert len(simdex.dedup(tmp_path / "d", tmp_path / "out.txt").removed) == 1
