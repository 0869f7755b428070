"""simdex.key_id and simdex.KeyMap (spec/KEYS.md): the ids the CLI gives string-keyed documents, and
the key map it writes beside an index, read from Python as `--keys` reads them."""

import json
import os

import numpy as np
import pytest

import simdex
from conftest import run


def test_keys_of_an_index_built_by_the_cli(tmp_path, cli):
    # Documents keyed by URLs (a few alike, to be found together), a key with a TAB and one with
    # bytes that are not UTF-8 in a directory's file name: queries answer with ids, the key map
    # gives the keys back, as `query --keys` prints them.
    docs = [{"url": f"https://example.org/{i}", "text": f"document number {i} about topic {i % 7} "
             "with enough words in it to shingle"} for i in range(200)]
    docs.append({"url": "tab\there", "text": docs[0]["text"]})
    with open(tmp_path / "docs.jsonl", "w") as f:
        for d in docs:
            f.write(json.dumps(d) + "\n")
    run(cli, "build", "-q", "--text", "--id-field", "url", str(tmp_path / "docs.jsonl"), "-o", str(tmp_path / "d.sdx"))
    keys = simdex.KeyMap(tmp_path / "d.sdx.keys.tsv")
    assert len(keys) == len(docs)
    assert sorted(keys.keys_of(keys.ids())) == sorted(d["url"] for d in docs)
    # Every entry read as it goes: (id, key), ids ascending; iteration gives the ids, as a dict's.
    items = keys.items()
    assert next(items) == min((simdex.key_id(d["url"]), d["url"]) for d in docs)
    assert [next(items)] + list(items) == sorted((simdex.key_id(d["url"]), d["url"]) for d in docs)[1:]
    assert list(items) == [] and list(keys) == keys.ids().tolist() and len(dict(keys.items())) == len(docs)
    for d in docs[:20] + docs[-1:]:
        assert keys[simdex.key_id(d["url"])] == d["url"] and simdex.key_id(d["url"]) in keys
    assert keys.get(12345) is None and keys.get(12345, "-") == "-" and 12345 not in keys
    with pytest.raises(KeyError):
        keys[12345]
    with simdex.open(tmp_path / "d.sdx") as index:
        hit = index.query(simdex.fingerprint([docs[0]["text"]])[0], k=0)[0]
        assert sorted(keys.keys_of(hit.ids)) == sorted([docs[0]["url"], "tab\there"])
    cli_line = run(cli, "query", "--keys", "-k", "0", str(tmp_path / "d.sdx"),
                   str(simdex.fingerprint([docs[0]["text"]])[0]))
    assert "tab\\there" in cli_line and docs[0]["url"] in cli_line  # escaped by the CLI, not here
    assert keys.keys_of([simdex.key_id("tab\there"), 7]) == ["tab\there", None]

    # A file name that is not UTF-8: its key comes back as str with surrogate escapes, and key_id
    # of that str (or of the bytes) is the id the CLI gave it.
    (tmp_path / "dir").mkdir()
    odd = b"caf\xe9.txt"
    with open(os.path.join(os.fsencode(tmp_path / "dir"), odd), "w") as f:
        f.write("a text in a file whose name is Latin-1")
    run(cli, "fingerprint", "-q", str(tmp_path / "dir"), "-o", str(tmp_path / "dir.fp"))
    listed = simdex.KeyMap(str(tmp_path / "dir.fp.keys.tsv"))
    (key,) = listed.keys_of(listed.ids())
    assert os.fsencode(key) == odd and simdex.key_id(key) == simdex.key_id(odd) == int(listed.ids()[0])


def test_a_malformed_or_missing_key_map_is_an_error_naming_it(tmp_path):
    bad = tmp_path / "bad.keys.tsv"
    bad.write_bytes(b"#simdex-keys 1\n5\ta\n3\tb\n")
    with pytest.raises(simdex.InputError, match=r"bad.keys.tsv': the line at byte 19: ids must be strictly ascending"):
        simdex.KeyMap(bad)
    # A fault in the middle: opening (O(1)) reads the first and last lines only; a lookup that
    # reads the faulty line, and ids() (every line), name it.
    middle = tmp_path / "middle.keys.tsv"
    middle.write_bytes(b"#simdex-keys 1\n5\ta\n99\tb\n10\tc\n")
    keys = simdex.KeyMap(middle)
    assert len(keys) == 3 and keys[5] == "a" and keys[10] == "c"
    with pytest.raises(simdex.InputError, match=r"middle.keys.tsv': the line at byte 19: ids must be strictly"):
        keys.get(7)
    with pytest.raises(simdex.InputError, match=r"middle.keys.tsv:4: ids must be strictly ascending"):
        keys.ids()
    items = keys.items()  # the entries before the fault, then its error
    assert next(items) == (5, "a") and next(items) == (99, "b")
    with pytest.raises(simdex.InputError, match=r"middle.keys.tsv:4: ids must be strictly ascending"):
        next(items)
    with pytest.raises(TypeError):  # made by items() only
        type(items)()
    with pytest.raises(simdex.FileError, match="cannot open key map"):
        simdex.KeyMap(tmp_path / "none.keys.tsv")
    with pytest.raises(TypeError):
        simdex.key_id(5)
    good = tmp_path / "good.keys.tsv"
    good.write_bytes(b"#simdex-keys 1\n5\ta\n")
    with pytest.raises(ValueError):  # as every uint64 argument of simdex: no wrapping
        simdex.KeyMap(good).keys_of([-1])
    # One id as an Index takes one fingerprint: an int in 0..2**64-1 (else UsageError naming it), a
    # numpy integer too, never a bool or a float (TypeError).
    keys = simdex.KeyMap(good)
    for call in (lambda: keys[-1], lambda: keys.get(2**64), lambda: -1 in keys):
        with pytest.raises(simdex.UsageError, match=r"an id is an integer in 0..2\*\*64-1, not "):
            call()
    for not_an_int in (True, 5.0, "5", None):  # said as such, not as "incompatible function arguments"
        with pytest.raises(TypeError, match=r"^an id is an int \(or a numpy integer\), not "):
            keys[not_an_int]
    assert keys[np.uint64(5)] == "a" and keys.get(6) is None and 5 in keys and 6 not in keys


def _keys_in_worker(keys, ids):
    return keys.keys_of(ids)


def test_a_key_map_pickles_by_path_and_answers_in_other_processes(tmp_path, monkeypatch):
    import multiprocessing
    import pickle

    path = tmp_path / "m.keys.tsv"
    path.write_bytes(b"#simdex-keys 1\n5\ta\n10\tb\\tc\n")
    keys = simdex.KeyMap(path)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):  # 0 and 1 aborted the interpreter once
        again = pickle.loads(pickle.dumps(keys, protocol))
        assert again.keys_of([5, 10, 7]) == ["a", "b\tc", None] and len(again) == 2
    assert list(keys) == [5, 10] and dict((i, keys[i]) for i in keys) == {5: "a", 10: "b\tc"}
    assert repr(keys) == f"simdex.KeyMap({str(path)!r})"
    monkeypatch.chdir(tmp_path)  # by its absolute path: a worker elsewhere finds it
    relative = simdex.KeyMap("m.keys.tsv")
    monkeypatch.chdir("/")
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.apply(_keys_in_worker, (relative, [10, 5])) == ["b\tc", "a"]


def test_key_id_of_a_lone_surrogate_is_the_cli_id_of_its_json_escape(tmp_path, cli):
    # json.loads gives "\ud800" as a lone surrogate, which UTF-8 cannot hold; simdex reads that
    # escape as U+FFFD (spec/KEYS.md), and key_id of the str says the same id (it raised
    # UnicodeEncodeError). A surrogate escape of a byte (U+DC80..U+DCFF) stays that byte.
    keys = ["a\ud800", "\udfff\ud800b", "x\ud83d\ude00"]  # lone ones, and a pair that json.dumps escapes
    with open(tmp_path / "docs.jsonl", "w") as f:
        for i, k in enumerate(keys):
            f.write(json.dumps({"id": k, "text": f"text number {i}"}) + "\n")
    run(cli, "fingerprint", "-q", "--json", str(tmp_path / "docs.jsonl"), "-o", str(tmp_path / "fp.jsonl"))
    with open(tmp_path / "fp.jsonl") as f:
        got = [json.loads(line)["id"] for line in f]
    assert got == [simdex.key_id(json.loads(json.dumps(k))) for k in keys] == [simdex.key_id(k) for k in keys]
    assert simdex.key_id("a\ud800") == simdex.key_id("a\ufffd")
    assert simdex.key_id("x\ud83d\ude00") == simdex.key_id("x\U0001f600")  # two code points: one pair
    assert simdex.key_id("caf\udcc3\udca9") == simdex.key_id("café") == simdex.key_id(b"caf\xc3\xa9")
