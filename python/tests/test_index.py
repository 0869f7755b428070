"""Build, query, join, pairs, clusters and info against brute force and against the CLI, on random
and clustered data."""

import numpy as np
import pytest

import simdex
from conftest import brute_force, clustered_fingerprints, json_lines, popcount, random_fingerprints, run

DATA = {
    "random": lambda: random_fingerprints(6000, seed=1),
    "clustered": lambda: clustered_fingerprints(6000, seed=2),
}


def with_planted(stored, seed):
    """Queries: stored fingerprints with 0..4 bits flipped, and random ones."""
    rng = np.random.default_rng(seed)
    base = stored[rng.integers(0, len(stored), size=200)]
    for _ in range(4):
        flip = rng.random(len(base)) < 0.6
        base = np.where(flip, base ^ (np.uint64(1) << rng.integers(0, 64, size=len(base)).astype(np.uint64)), base)
    return np.concatenate([base, random_fingerprints(50, seed)])


@pytest.fixture(scope="module", params=sorted(DATA))
def built(request, tmp_path_factory, cli):
    """(path, fingerprints, ids) of an index built by Python; the same pairs also built by the CLI."""
    stored = DATA[request.param]()
    ids = np.random.default_rng(3).permutation(len(stored)).astype(np.uint64) * 7
    stored[:40] = stored[40:80]  # some fingerprints with several ids
    d = tmp_path_factory.mktemp(request.param)
    path = str(d / "py.sdx")
    summary = simdex.build(path, stored, ids, k=3)
    assert summary.fingerprint_count == len(np.unique(stored))
    assert summary.id_count == len(set(zip(stored.tolist(), ids.tolist())))
    cli_path = str(d / "cli.sdx")
    (d / "pairs.tsv").write_text("".join(f"{f}\t{i}\n" for f, i in zip(stored.tolist(), ids.tolist())))
    run(cli, "build", "-q", "-k", "3", "-o", cli_path, str(d / "pairs.tsv"))
    return path, cli_path, stored, ids


def test_same_bytes_as_the_cli(built):
    path, cli_path, _, _ = built
    with open(path, "rb") as a, open(cli_path, "rb") as b:
        assert a.read() == b.read()


def test_builder_in_parts_gives_the_same_file(built, tmp_path):
    path, _, stored, ids = built
    b = simdex.Builder(k=3)
    order = np.random.default_rng(5).permutation(len(stored))
    for part in np.array_split(order, 7):
        b.add(stored[part], ids[part])
    assert b.pairs_added == len(stored) and len(b) == len(stored)
    b.write(tmp_path / "parts.sdx")  # a PathLike
    assert (tmp_path / "parts.sdx").read_bytes() == open(path, "rb").read()
    assert "written" in repr(b)


def test_query_equals_brute_force_and_ids(built):
    path, _, stored, ids = built
    with simdex.open(path) as index:
        for q in with_planted(stored, seed=11)[:120]:
            for k in (0, 2, 3):
                hits = index.query(q, k=k)
                assert {h.fingerprint: h.distance for h in hits} == brute_force(stored, q, k)
                assert [(h.distance, h.fingerprint) for h in hits] == sorted((h.distance, h.fingerprint) for h in hits)
                for h in hits:
                    assert list(h.ids) == sorted(ids[stored == np.uint64(h.fingerprint)].tolist())
                    assert isinstance(h, simdex.Hit) and h == (h.fingerprint, h.distance, h.ids)
        assert index.query(int(stored[0]))[0].distance == 0  # k=None: the index's k
        assert index.query(np.uint64(stored[0]), k=0)[0].fingerprint == int(stored[0])


def test_preload_changes_no_answer(built):
    path, _, stored, _ = built
    queries = with_planted(stored, seed=13)[:60]
    with simdex.open(path) as plain:
        expect = [plain.query(q) for q in queries]
    for preload in ("keys", "all"):
        with simdex.open(path, preload=preload) as index:
            assert [index.query(q) for q in queries] == expect
    with pytest.raises(ValueError, match="preload"):
        simdex.open(path, preload="most")


def test_join_equals_queries_and_the_cli(built, cli, tmp_path):
    path, _, stored, _ = built
    queries = with_planted(stored, seed=12)
    qids = np.arange(len(queries), dtype=np.uint64) + 1000
    with simdex.open(path) as index:
        m = index.join(queries, k=3, ids=qids)
        rows = list(zip(m.query.tolist(), m.query_id.tolist(), m.fingerprint.tolist(), m.distance.tolist(),
                        m.id.tolist()))
        expected = []
        for qi, q in enumerate(queries):
            for h in index.query(q, k=3):
                expected += [(qi, int(qids[qi]), h.fingerprint, h.distance, i) for i in h.ids]
        assert rows == expected
        assert m.distance.dtype == np.int32 and m.id.dtype == np.uint64
        np.testing.assert_array_equal(popcount(m.fingerprint ^ queries[m.query]), m.distance)
        m2 = index.query_many(queries.astype(np.int64) if queries.max() < 2**63 else queries, k=2)
        assert len(m2.query) <= len(m.query)
    (tmp_path / "q.tsv").write_text("".join(f"{q}\t{i}\n" for q, i in zip(queries.tolist(), qids.tolist())))
    cli_rows = sorted((r["query_id"], r["fingerprint"], r["distance"], i)
                      for r in json_lines(run(cli, "join", path, str(tmp_path / "q.tsv"), "-k", "3", "--json"))
                      for i in r["ids"])
    assert sorted(zip(m.query_id.tolist(), m.fingerprint.tolist(), m.distance.tolist(), m.id.tolist())) == cli_rows


def test_pairs_equal_brute_force_and_the_cli(built, cli):
    path, _, stored, _ = built
    with simdex.open(path) as index:
        p = index.pairs(k=3)
    u = np.unique(stored)
    expected = []
    for i, a in enumerate(u.tolist()):
        d = popcount(u[i + 1:] ^ np.uint64(a))
        expected += [(a, int(b), int(x)) for b, x in zip(u[i + 1:][d <= 3], d[d <= 3])]
    got = list(zip(p.a.tolist(), p.b.tolist(), p.distance.tolist()))
    assert got == sorted(expected)
    cli_pairs = sorted(tuple(int(x) for x in line.split("\t")) for line in run(cli, "pairs", path).splitlines())
    assert got == cli_pairs


def test_clusters_equal_the_cli(built, cli):
    path, _, stored, ids = built
    with simdex.open(path) as index:
        clusters = index.clusters(k=3)
        by_ids = index.clusters(k=3, min_size=3, size_in_ids=True)
    cli_fp = [c["fingerprints"] for c in json_lines(run(cli, "clusters", path, "--format", "json"))]
    assert [c.fingerprints.tolist() for c in clusters] == cli_fp
    cli_ids = [c["ids"] for c in json_lines(run(cli, "clusters", path, "--ids", "--min-size", "3", "--format", "json"))]
    assert [c.ids.tolist() for c in by_ids] == cli_ids
    for c in clusters:  # every id of every member, each member's ids in turn
        assert c.ids.tolist() == [i for f in c.fingerprints.tolist() for i in sorted(ids[stored == np.uint64(f)].tolist())]


def test_info_equals_the_cli(built, cli):
    path, _, _, _ = built
    import json
    expected = json.loads(run(cli, "info", path, "--json"))
    with simdex.open(path) as index:
        info, checksum = index.info, index.checksum
        assert index.k == info["max_distance"] == 3
        assert len(index) == index.fingerprint_count == info["fingerprint_count"]
    assert info.keys() == expected.keys()
    for key, value in expected.items():
        if key == "tables":
            assert [t.keys() for t in info[key]] == [t.keys() for t in value]
            for t, u in zip(info[key], value):
                assert t == pytest.approx(u, abs=1e-4)
        elif isinstance(value, float):
            assert info[key] == pytest.approx(value, abs=1e-4)
        elif key == "header_checksum":  # "0x..." in JSON, as fingerprints are; an int here
            assert info[key] == int(value, 16) == checksum
        else:
            assert info[key] == value


def test_ids_of_verify_and_repr(built):
    path, _, stored, ids = built
    with simdex.open(path) as index:
        f = stored[0]
        assert index.ids_of(f).tolist() == sorted(ids[stored == f].tolist())
        assert f in index
        missing = next(x for x in random_fingerprints(100, 9) if x not in set(stored.tolist()))
        assert index.ids_of(missing).size == 0 and missing not in index
        # An array (one of many fingerprints, masked, 2-D) has __index__ too, refused in numpy's words
        # ("only integer scalar arrays can ..."): said as any other type.
        for call in (lambda: index.query(1.0), lambda: index.ids_of("1"), lambda: None in index,
                     lambda: index.query(np.array([f, f])), lambda: index.query(np.ma.masked),
                     lambda: index.ids_of(np.array([[f]]))):
            with pytest.raises(TypeError, match=r"^a fingerprint is an int \(or a numpy integer\), not "):
                call()
        assert index.ids_of(np.array(f)).tolist() == index.ids_of(f).tolist()  # a 0-d array is a number
        report = index.verify()
        assert report.ok and report.problems == [] and report.blocks_checked > 0
        assert repr(index).startswith("<simdex.Index ") and "k=3" in repr(index)
    assert index.closed and "(closed)" in repr(index)


def test_schemes_and_options(tmp_path):
    fps = random_fingerprints(3000, 4)
    for scheme, k in (("paper-16", 3), ("blocks-6", 2), ("auto", 1)):
        s = simdex.build(tmp_path / f"{scheme}.sdx", fps, k=k, scheme=scheme, block_bytes=64, threads=2)
        assert s.scheme_name.startswith(scheme.split("-")[0])
        with simdex.open(tmp_path / f"{scheme}.sdx") as index:
            assert index.k == k and index.info["block_bytes"] == 64
            q = fps[17] ^ np.uint64(5)
            assert {h.fingerprint for h in index.query(q)} == set(brute_force(fps, q, k))
    # A small memory bound sorts in temporary files (beside the output): the same bytes.
    fps = random_fingerprints(200000, 6)
    simdex.build(tmp_path / "in_memory.sdx", fps)
    s = simdex.build(tmp_path / "external.sdx", fps, memory=1 << 20)
    assert s.temp_files > 0
    assert (tmp_path / "external.sdx").read_bytes() == (tmp_path / "in_memory.sdx").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".simdex")) == []


def test_direct_io_gives_the_same_bytes(built, tmp_path):
    # "on": the tables and ids written straight to the disk (O_DIRECT), the same file as "off".
    path, _, stored, ids = built
    for mode in ("on", "off"):
        simdex.build(tmp_path / f"{mode}.sdx", stored, ids, k=3, direct_io=mode, threads=2)
        assert (tmp_path / f"{mode}.sdx").read_bytes() == open(path, "rb").read()
    b = simdex.Builder(k=3, direct_io="on")
    b.add(stored, ids)
    b.write(tmp_path / "builder.sdx")
    assert (tmp_path / "builder.sdx").read_bytes() == open(path, "rb").read()
    with pytest.raises(simdex.UsageError, match="direct_io must be 'auto', 'on' or 'off'"):
        simdex.Builder(direct_io="yes")
    with pytest.raises(TypeError, match="direct_io"):
        simdex.Builder(direct_io=True)


def test_build_sorts_beside_its_output(tmp_path, monkeypatch):
    """simdex.build's sort runs go beside the output (as the CLI's), not to $TMPDIR; a Builder's,
    made before it knows its output, to $TMPDIR."""
    system_tmp = tmp_path / "system-tmp"
    out_dir = tmp_path / "out"
    system_tmp.mkdir()
    out_dir.mkdir()
    monkeypatch.setenv("TMPDIR", str(system_tmp))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)
    seen = {"beside": 0, "system": 0}

    def look(stage, done, total):
        seen["beside"] += sum(f.name.startswith(".simdex-sort-") for f in out_dir.iterdir())
        seen["system"] += sum(f.name.startswith(".simdex-sort-") for f in system_tmp.iterdir())

    fps = random_fingerprints(400000, seed=9)
    summary = simdex.build(out_dir / "a.sdx", fps, memory=1 << 20, progress=look)
    assert summary.temp_files > 0
    assert seen["beside"] > 0 and seen["system"] == 0
    seen.update(beside=0, system=0)
    b = simdex.Builder(memory=1 << 20)
    b.add(fps)
    b.write(out_dir / "b.sdx", progress=look)
    assert seen["system"] > 0 and seen["beside"] == 0
    assert (out_dir / "a.sdx").read_bytes() == (out_dir / "b.sdx").read_bytes()
