#!/usr/bin/env python3
"""Regenerate the golden index sets of tests/conformance/sets/ (spec/SET.md). Maintainers only:

    python3 tests/conformance/make_sets.py build/cli/simdex

Good sets are made by the C++ writer (`simdex add/remove/merge`), except `subdir_names`, whose
manifest the spec's encoder (simdex_ref.encode_manifest) writes; every good set's sidecar
(expected.json) holds answers computed here from the operations alone (the live pairs of SET.md §4,
by brute force), not by any reader. Bad sets are copies of a good one with one rule of SET.md §5
broken, listed in sets/bad/MANIFEST.tsv (DIR<TAB>RULE<TAB>DESCRIPTION).
"""

import json
import os
import random
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import brute_force, clustered_fps, simdex_ref  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SETS = os.path.join(HERE, "sets")
K = 3


def sh(*cmd, stdin=None):
    subprocess.run(cmd, input=stdin, text=True, check=True, capture_output=True)


def tsv(pairs):
    return "".join("%d\t%d\n" % p for p in pairs)


class Model:
    """The live pairs (SET.md §4): add puts pairs in, remove takes every pair of an id out."""

    def __init__(self):
        self.live = set()

    def add(self, pairs):
        self.live |= set(pairs)

    def remove(self, ids):
        self.live = {p for p in self.live if p[1] not in set(ids)}


def sidecar(directory, model, rng, note):
    live = sorted(model.live)
    fps = sorted({f for f, _ in live})
    queries, seen = [], set()
    for i in range(24):
        q = rng.getrandbits(64) if i % 4 == 3 or not fps else fps[rng.randrange(len(fps))] ^ (
            (1 << rng.randrange(64)) if i % 2 else 0)
        if q in seen:
            continue
        seen.add(q)
        hits = brute_force(live, q, K)
        queries.append({"query": q, "k": K, "hits": [{"fingerprint": f, "distance": d, "ids": ids}
                                                      for f, d, ids in hits]})
    info = {"fingerprint_count": len(fps), "id_count": len(live)}
    with open(os.path.join(directory, "expected.json"), "w") as f:
        json.dump({"note": note, "set": "set.sdxs", "info": info, "queries": queries}, f, indent=1)
        f.write("\n")


def make_good(binary):
    good = os.path.join(SETS, "good")
    shutil.rmtree(good, ignore_errors=True)
    os.makedirs(good)
    rng = random.Random(14)

    def pairs(n, id_range):
        fps = clustered_fps(rng, n // 4, 4, 3)
        return sorted({(f, rng.randrange(id_range)) for f in fps})

    def new(name):
        d = os.path.join(good, name)
        os.makedirs(d)
        return d, os.path.join(d, "set.sdxs"), Model()

    # Two members and a tombstone; a fingerprint in both members.
    d, s, m = new("two_members_tombstone")
    a, b = pairs(120, 60), pairs(80, 60)
    b.append((a[0][0], 999))
    for p in (a, b):
        sh(binary, "add", "-q", "--no-merge", s, "-", stdin=tsv(p))
        m.add(p)
    gone = [a[1][1], b[2][1], 7]
    sh(binary, "remove", "-q", s, *map(str, gone))
    m.remove(gone)
    sidecar(d, m, rng, "two members, one tombstone")

    # An id removed, then added again: the later operation wins.
    d, s, m = new("readd_after_remove")
    a = pairs(60, 30)
    sh(binary, "add", "-q", "--no-merge", s, "-", stdin=tsv(a))
    m.add(a)
    x = a[0][1]
    sh(binary, "remove", "-q", s, str(x))
    m.remove([x])
    again = [(a[0][0], x), (rng.getrandbits(64), x)]
    sh(binary, "add", "-q", "--no-merge", s, "-", stdin=tsv(again))
    m.add(again)
    sidecar(d, m, rng, "id removed at generation 2, added again at generation 3")

    # Merged: one member, no tombstone.
    d, s, m = new("merged")
    for _ in range(3):
        p = pairs(60, 40)
        sh(binary, "add", "-q", "--no-merge", s, "-", stdin=tsv(p))
        m.add(p)
    sh(binary, "remove", "-q", s, "1", "2", "3")
    m.remove([1, 2, 3])
    sh(binary, "merge", "-q", s)
    sidecar(d, m, rng, "three members and a tombstone merged into one")

    # Names with a directory, written by the spec's encoder.
    d, s, m = new("subdir_names")
    os.makedirs(os.path.join(d, "members"))
    entries = []
    for g in (1, 2):
        p = pairs(40, 100)
        member = os.path.join(d, "members", "part_%d.sdx" % g)
        sh(binary, "build", "-q", "-k", str(K), "-o", member, "-", stdin=tsv(p))
        entries.append(simdex_ref.member_entry(member, g, "members/part_%d.sdx" % g))
        m.add(p)
    tomb = simdex_ref.encode_tombstone(3, [5, 6])
    with open(os.path.join(d, "members", "gone.sdt"), "wb") as f:
        f.write(tomb)
    tombs = [(3, len(tomb), simdex_ref.xxh3_64(tomb), 2, 0, "members/gone.sdt")]
    m.remove([5, 6])
    with open(s, "wb") as f:
        f.write(simdex_ref.encode_manifest(3, 256, K, entries, tombs))
    sidecar(d, m, rng, "members in a subdirectory; manifest by simdex_ref.encode_manifest")

    # A tombstone of the same generation as a member: it removes ids of older members only (SET.md
    # §4, "greater than g"). Writers never make one; a reader must still answer it right.
    d, s, m = new("tombstone_same_generation")
    first, second = pairs(40, 20), pairs(40, 20)
    x = first[0][1]
    second.append((rng.getrandbits(64), x))
    entries = []
    for g, p in ((1, first), (2, second)):
        member = os.path.join(d, "m%d.sdx" % g)
        sh(binary, "build", "-q", "-k", str(K), "-o", member, "-", stdin=tsv(p))
        entries.append(simdex_ref.member_entry(member, g, "m%d.sdx" % g))
    tomb = simdex_ref.encode_tombstone(2, [x])
    with open(os.path.join(d, "t2.sdt"), "wb") as f:
        f.write(tomb)
    with open(s, "wb") as f:
        f.write(simdex_ref.encode_manifest(2, 256, K, entries, [(2, len(tomb), simdex_ref.xxh3_64(tomb), 1, 0, "t2.sdt")]))
    m.add([q for q in first if q[1] != x])
    m.add(second)
    sidecar(d, m, rng, "member 2 and a tombstone of generation 2 listing an id of both members: "
            "removed from member 1 only")

    # The manifest opened through a symbolic link in another directory: names resolve against the
    # directory of the file the link finally names (SET.md §2.2), where the members are.
    d, s, m = new("manifest_through_link")
    real = os.path.join(d, "real", "set.sdxs")
    os.makedirs(os.path.dirname(real))
    for _ in range(2):
        p = pairs(60, 40)
        sh(binary, "add", "-q", "--no-merge", real, "-", stdin=tsv(p))
        m.add(p)
    os.symlink(os.path.join("real", "set.sdxs"), s)
    sidecar(d, m, rng, "set.sdxs is a link to real/set.sdxs; the members are in real/")


def u64(data, at):
    return struct.unpack_from("<Q", data, at)[0]


def reseal(data):
    """The manifest with its checksum made right again."""
    data = bytearray(data)
    struct.pack_into("<Q", data, 56, simdex_ref.xxh3_64(bytes(data[:56]) + bytes(data[64:])))
    return bytes(data)


def make_bad():
    bad = os.path.join(SETS, "bad")
    shutil.rmtree(bad, ignore_errors=True)
    os.makedirs(bad)
    base = os.path.join(SETS, "good", "two_members_tombstone")
    manifest_rows = []

    def case(name, rule, what, mutate):
        d = os.path.join(bad, name)
        shutil.copytree(base, d)
        os.remove(os.path.join(d, "expected.json"))
        path = os.path.join(d, "set.sdxs")
        with open(path, "rb") as f:
            data = f.read()
        out = mutate(d, data)
        if out is not None:
            with open(path, "wb") as f:
                f.write(out)
        manifest_rows.append((name, rule, what))

    _, members, tombs = simdex_ref.decode_manifest(open(os.path.join(base, "set.sdxs"), "rb").read())
    first_entry = 64
    second_entry = 64 + 48 + (len(members[0].name) + 7) // 8 * 8

    def set_field(fmt, at, value, seal=True):
        def mutate(_, data):
            data = bytearray(data)
            struct.pack_into(fmt, data, at, value)
            return reseal(data) if seal else bytes(data)
        return mutate

    def rename(entry_at, name):
        def mutate(_, data):
            old_len = struct.unpack_from("<H", data, entry_at + 40)[0]
            old = 48 + (old_len + 7) // 8 * 8
            nb = name.encode()
            entry = bytearray(data[entry_at:entry_at + 48])
            struct.pack_into("<H", entry, 40, len(nb))
            new = bytes(entry) + nb + b"\0" * ((len(nb) + 7) // 8 * 8 - len(nb))
            out = bytearray(data[:entry_at] + new + data[entry_at + old:])
            struct.pack_into("<Q", out, 16, len(out))
            return reseal(out)
        return mutate

    case("file_too_small__40_bytes", "file_too_small", "manifest cut to 40 bytes", lambda _, d: d[:40])
    case("bad_magic__index_magic", "bad_magic", "SDS changed", set_field("<B", 3, ord("Z")))
    case("unsupported_version__2", "unsupported_version", "version_major 2", set_field("<H", 8, 2))
    case("file_size_mismatch__truncated", "file_size_mismatch", "last 8 bytes cut", lambda _, d: d[:-8])
    case("manifest_checksum__entry_byte", "manifest_checksum", "a byte of the first entry's checksum flipped",
         set_field("<B", first_entry + 16, 0x5A, seal=False))
    case("reserved_nonzero__flags", "reserved_nonzero", "flags = 1", set_field("<I", 12, 1))
    case("reserved_nonzero__entry_reserved", "reserved_nonzero", "entry byte 42 = 1",
         set_field("<B", first_entry + 42, 1))
    case("bad_header_field__generation_0", "bad_header_field", "generation 0", set_field("<Q", 24, 0))
    case("bad_header_field__no_members", "bad_header_field", "member_count 0", set_field("<I", 32, 0))
    case("bad_header_field__block_bytes", "bad_header_field", "block_bytes 12", set_field("<I", 40, 12))

    def trailing(_, data):
        out = bytearray(data + b"\0" * 8)
        struct.pack_into("<Q", out, 16, len(out))
        return reseal(out)
    case("set_layout__trailing_bytes", "set_layout", "8 bytes after the last entry", trailing)
    case("set_layout__count_too_big", "set_layout", "tombstone_count 2, one entry there",
         set_field("<I", 36, 2))
    case("bad_member_name__dotdot", "bad_member_name", "a member named ../x.sdx", rename(first_entry, "../x.sdx"))
    case("bad_member_name__absolute", "bad_member_name", "a member named /etc/passwd",
         rename(first_entry, "/etc/passwd"))
    case("entry_order__generations_swapped", "entry_order", "member generations 2, 2",
         set_field("<Q", first_entry, 2))
    case("entry_order__above_manifest", "entry_order", "a member of generation 9 in a generation-3 manifest",
         set_field("<Q", second_entry, 9))

    def remove_member(d, _):
        os.remove(os.path.join(d, members[1].name))
    case("member_missing__deleted", "member_missing", "the second member's file is gone", remove_member)

    def swap_member(d, _):
        shutil.copy(os.path.join(SETS, "good", "merged", simdex_ref.decode_manifest(
            open(os.path.join(SETS, "good", "merged", "set.sdxs"), "rb").read())[1][0].name),
            os.path.join(d, members[1].name))
    case("member_mismatch__other_set", "member_mismatch", "the second member is another set's member", swap_member)
    case("member_mismatch__entry_checksum", "member_mismatch", "the entry's header checksum differs",
         set_field("<Q", second_entry + 16, 12345))

    def truncate_member(d, _):
        p = os.path.join(d, members[1].name)
        data = open(p, "rb").read()
        open(p, "wb").write(data[:-8])
    case("file_size_mismatch__member_truncated", "file_size_mismatch",
         "the second member lost its last 8 bytes (FORMAT.md's rule, naming the member)", truncate_member)

    def rewrite_tombstone(change):
        """The tombstone file rewritten by change(bytearray); its entry's size, checksum and count made
        to match, the manifest resealed: only the rule the change breaks is broken."""
        def mutate(d, data):
            p = os.path.join(d, tombs[0].name)
            tomb = bytearray(open(p, "rb").read())
            change(tomb)
            open(p, "wb").write(bytes(tomb))
            data = bytearray(data)
            at = len(data) - 48 - (len(tombs[0].name) + 7) // 8 * 8  # the last entry
            struct.pack_into("<QQQ", data, at + 8, len(tomb), simdex_ref.xxh3_64(bytes(tomb)),
                             struct.unpack_from("<Q", tomb, 24)[0])
            return reseal(data)
        return mutate

    def descending(tomb):
        n = struct.unpack_from("<Q", tomb, 24)[0]
        ids = sorted(struct.unpack_from("<%dQ" % n, tomb, 32), reverse=True)
        struct.pack_into("<%dQ" % n, tomb, 32, *ids)
    case("bad_tombstone__ids_descending", "bad_tombstone", "the tombstone's ids in descending order",
         rewrite_tombstone(descending))

    def no_ids(tomb):
        del tomb[32:]
        struct.pack_into("<Q", tomb, 24, 0)
    case("bad_tombstone__no_ids", "bad_tombstone", "a tombstone of id_count 0", rewrite_tombstone(no_ids))
    case("bad_tombstone__magic", "bad_tombstone", "the tombstone's magic changed",
         rewrite_tombstone(lambda t: t.__setitem__(3, ord("X"))))
    case("bad_tombstone__generation", "bad_tombstone", "the tombstone's generation is not its entry's",
         rewrite_tombstone(lambda t: struct.pack_into("<Q", t, 16, 2)))
    case("bad_member_name__duplicate", "bad_member_name", "the second member named as the first",
         rename(second_entry, members[0].name))
    case("member_mismatch__block_bytes", "member_mismatch", "the manifest's block_bytes 512, its members' 256",
         set_field("<I", 40, 512))
    case("member_mismatch__max_distance", "member_mismatch", "the manifest's max_distance 2, its members' 3",
         set_field("<B", 44, 2))

    def first_mismatch_second_missing(d, data):
        os.remove(os.path.join(d, members[1].name))
        return set_field("<Q", first_entry + 16, 12345)(d, data)
    case("member_mismatch__before_a_missing_member", "member_mismatch",
         "the first member's entry checksum is wrong and the second member is missing: rules 12 and 13 "
         "are checked member by member (SET.md §5)", first_mismatch_second_missing)

    def flip_tombstone(d, _):
        p = os.path.join(d, tombs[0].name)
        data = bytearray(open(p, "rb").read())
        data[-1] ^= 1
        open(p, "wb").write(bytes(data))
    case("bad_tombstone__flipped", "bad_tombstone", "a byte of the tombstone's ids flipped", flip_tombstone)

    with open(os.path.join(bad, "MANIFEST.tsv"), "w") as f:
        for row in manifest_rows:
            f.write("\t".join(row) + "\n")


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    make_good(os.path.abspath(argv[1]))
    make_bad()
    for root, _, files in os.walk(SETS):  # the writers' lock files are not part of a set
        for f in files:
            if f.endswith(".lock"):
                os.remove(os.path.join(root, f))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
