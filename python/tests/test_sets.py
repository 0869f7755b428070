"""Index sets from Python (spec/SET.md): add, remove, merge, open and reopen; the answers equal brute
force over the set's live pairs."""

import numpy as np
import pytest

import simdex
from conftest import brute_force, clustered_fingerprints, popcount


class Live:
    """The pairs a set should hold: every pair added whose id is not removed since."""

    def __init__(self):
        self.fps = np.empty(0, dtype=np.uint64)
        self.ids = np.empty(0, dtype=np.uint64)

    def add(self, fps, ids):
        self.fps = np.concatenate([self.fps, fps])
        self.ids = np.concatenate([self.ids, ids])

    def remove(self, ids):
        keep = ~np.isin(self.ids, ids)
        self.fps, self.ids = self.fps[keep], self.ids[keep]


def check_answers(index, live, k, queries):
    assert len(index) == len(np.unique(live.fps))
    for q in queries:
        hits = index.query(q, k)
        assert {h.fingerprint: h.distance for h in hits} == brute_force(live.fps, q, k)
        for h in hits:
            assert list(h.ids) == sorted(set(live.ids[live.fps == np.uint64(h.fingerprint)].tolist()))
    m = index.join(queries, k)
    rows = sorted(zip(m.query.tolist(), m.fingerprint.tolist(), m.id.tolist()))
    expected = set()
    for qi, q in enumerate(queries):
        near = popcount(live.fps ^ np.uint64(q)) <= k
        expected |= {(qi, int(f), int(i)) for f, i in zip(live.fps[near], live.ids[near])}
    assert rows == sorted(expected)
    u = np.unique(live.fps)
    p = index.pairs(k)
    want = sorted((int(a), int(b)) for i, a in enumerate(u) for b in u[i + 1:][popcount(u[i + 1:] ^ a) <= k])
    assert sorted(zip(p.a.tolist(), p.b.tolist())) == want


def test_add_remove_merge_reopen_against_brute_force(tmp_path):
    path = tmp_path / "docs.sdxs"
    fps = clustered_fingerprints(3000, seed=16)
    live = Live()
    for part in range(3):  # three members (no merge), ids unique across them
        chunk = fps[part * 1000:(part + 1) * 1000]
        ids = np.arange(part * 1000, (part + 1) * 1000, dtype=np.uint64)
        change = simdex.add(path, chunk, ids=ids, k=4, merge=False)
        live.add(chunk, ids)
        assert change.members == part + 1
    queries = np.concatenate([fps[::97], clustered_fingerprints(20, seed=3)])
    with simdex.open(path) as s:
        assert s.k == 4 and s.is_set
        info = s.info
        assert len(info["members"]) == 3 and info["tombstone_count"] == 0 and info["generation"] >= 3
        assert sum(m["id_count"] for m in info["members"]) == 3000
        check_answers(s, live, 4, queries)
        removed = np.arange(0, 3000, 7, dtype=np.uint64)
        simdex.remove(path, removed)
        before = Live()
        before.add(live.fps, live.ids)
        live.remove(removed)
        check_answers(s, before, 3, queries[:10])  # a snapshot: the removal is not seen
        fresh = s.reopen()
    with fresh:
        check_answers(fresh, live, 4, queries)
    change = simdex.merge(path)
    assert change.members == 1
    with simdex.open(path) as s:
        check_answers(s, live, 4, queries)
        assert s.verify().ok and s.info["tombstone_count"] == 0 and len(s.info["members"]) == 1
    plain = tmp_path / "plain.sdx"
    simdex.build(plain, live.fps, ids=live.ids, k=4)
    with simdex.open(plain) as index:
        assert not index.is_set and "members" not in index.info
        check_answers(index, live, 4, queries[:10])


def test_set_errors(tmp_path):
    path = tmp_path / "s.sdxs"
    simdex.add(path, [1, 2, 3], k=3)
    with pytest.raises(simdex.UsageError, match="ids"):
        simdex.add(path, [4, 5])
    with pytest.raises(simdex.UsageError):
        simdex.add(path, [4], ids=[9], k=5)
    with pytest.raises(simdex.FileError):
        simdex.remove(tmp_path / "none.sdxs", [1])
    with pytest.raises(simdex.FileError):
        simdex.merge(tmp_path / "none.sdxs")
    assert not (tmp_path / "none.sdxs.lock").exists()  # a writer that made no set leaves no lock


def test_an_add_of_nothing_leaves_a_set_as_it_is(tmp_path):
    path = tmp_path / "s.sdxs"
    first = simdex.add(path, [], ids=[], k=3)  # the first add creates the set all the same
    assert first.generation == 1 and first.members == 1
    last = simdex.add(path, [1, 2], ids=[10, 20])
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    change = simdex.add(path, np.empty(0, dtype=np.uint64), ids=[])
    assert (change.generation, change.members) == (last.generation, last.members) == (2, 2)
    assert (change.written, change.bytes_written, change.removed) == ([], 0, [])
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # no member, no manifest
    with simdex.open(path) as s:
        assert list(s.ids_of(2)) == [20]
    change = simdex.remove(path, [])  # a removal of nothing, likewise
    assert (change.generation, change.members, change.written, change.bytes_written) == (2, 2, [], 0)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    with pytest.raises(simdex.FileError, match="no index set"):
        simdex.remove(tmp_path / "none.sdxs", [])


def test_an_add_whose_merge_fails_warns_and_is_done(tmp_path):
    path = tmp_path / "s.sdxs"
    for i in (1, 2, 3):
        assert simdex.add(path, [i << 12], ids=[i], merge=False).merge_failure is None
    # The merge after the next add (generation 4) finds its name, generation 5's, taken.
    (tmp_path / "s.sdxs-0000000000000005.sdx").write_text("not simdex's")
    with pytest.warns(RuntimeWarning, match=r"the pairs were added \(generation 4\), but the merge") as told:
        change = simdex.add(path, [4 << 12], ids=[4])
    assert told[0].filename == __file__  # the caller's line, not the wrapper's
    assert "exists" in change.merge_failure
    assert (change.generation, change.members, change.merged_entries) == (4, 4, 0)
    with simdex.open(path) as s:
        assert [list(s.ids_of(i << 12)) for i in (1, 2, 3, 4)] == [[1], [2], [3], [4]]


def test_reopen_of_a_set_gone_is_a_file_error(tmp_path):
    path = tmp_path / "s.sdxs"
    simdex.add(path, [1, 2, 3], ids=[1, 2, 3])
    with simdex.open(path) as s:
        path.unlink()
        with pytest.raises(simdex.FileError, match="No such file"):  # was FormatError member_missing
            s.reopen()
        assert s.query(2, k=0)[0].ids == (2,)  # the snapshot still answers


def test_a_current_link_moved_to_another_set_reopens_that_set(tmp_path):
    # A manifest reached through a symbolic link is the set of the file it names (spec/SET.md §2.2);
    # moving the link to a newer set (whose generation may be lower) switches reopen() to it, where
    # an old manifest copied over the same file is still refused as stale.
    (tmp_path / "v1").mkdir()
    (tmp_path / "v2").mkdir()
    simdex.add(tmp_path / "v1" / "s.sdxs", [0x10], ids=[1])
    simdex.add(tmp_path / "v1" / "s.sdxs", [0x20], ids=[2], merge=False)
    simdex.add(tmp_path / "v2" / "s.sdxs", [0x30], ids=[3])
    current = tmp_path / "current.sdxs"
    current.symlink_to("v1/s.sdxs")
    with simdex.open(current) as index:
        assert len(index) == 2 and len(index.info["members"]) == 2
        current.unlink()
        current.symlink_to("v2/s.sdxs")
        with index.reopen() as moved:
            assert len(moved) == 1 and moved.ids_of(0x30).tolist() == [3]
    old = (tmp_path / "v2" / "s.sdxs").read_bytes()
    simdex.add(tmp_path / "v2" / "s.sdxs", [0x40], ids=[4], merge=False)
    with simdex.open(current) as index:
        (tmp_path / "v2" / "s.sdxs").write_bytes(old)
        with pytest.raises(simdex.FormatError, match="older than the 2 already open") as e:
            index.reopen()
        assert e.value.code == "stale_manifest"
