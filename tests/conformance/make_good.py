#!/usr/bin/env python3
"""Regenerate the good golden files of tests/conformance/good/ (maintainers only; the files are
checked in and the tests never regenerate them).

    python3 tests/conformance/make_good.py SIMDEX_BINARY

For each case: writes NAME.input.tsv (deterministic pseudo-random input), builds NAME.sdx with the
C++ writer (format 2.2: every file has a BLOCK_DIRECTORY with the writer's d_t), checks the file with
the independent Python reader, and writes NAME.expected.json: the build options, the `info` figures,
and queries with their exact answers computed by brute force over the input pairs (never by a simdex
reader). Cases that need a property of the file (codes of length 12, a single-symbol code, many
blocks, ...) assert it with the Python reader.

Then the files no writer makes but every reader MUST read, built by the spec's writer rules
(simdex_ref.build_bytes) from the pairs and tables of writer files: other versions (2.7, 2.1, 2.0 and 1.x
files, which `simdex upgrade` turns into the writer's file), other permutations and prefixes, other
tagged sections, and other d_t of BLOCK_DIRECTORY.
"""

import json
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import M64, brute_force, clustered_fps, random_fps, read_input, run, simdex_ref  # noqa: E402

GOOD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "good")


def fib_sequence(j, memo={}):
    """h-sequence G(j) = G(j-1), j-1, G(j-2): symbol counts are Fibonacci numbers."""
    if j <= 0:
        return []
    if j == 1:
        return [0]
    if j not in memo:
        memo[j] = fib_sequence(j - 1) + [j - 1] + fib_sequence(j - 2)
    return memo[j]


def entries_from_h(seq, high):
    e = 0
    out = [high | e]
    for h in seq:
        assert not (e >> h) & 1
        e = ((e >> (h + 1)) << (h + 1)) | (1 << h)
        out.append(high | e)
    return out


def lines_with_ids(rng, fps, multi=0.0, max_ids=1, repeats=0.0, hexrate=0.5):
    pairs = []
    nid = rng.randint(0, 1000)
    for f in fps:
        c = rng.randint(2, max_ids) if max_ids > 1 and rng.random() < multi else 1
        for _ in range(c):
            pairs.append((f, nid))
            nid += rng.randint(1, 1 << rng.randint(1, 40))
    pairs += [p for p in pairs if rng.random() < repeats]
    rng.shuffle(pairs)
    return ["%s\t%d" % (("0x%016x" % f) if rng.random() < hexrate else str(f), i) for f, i in pairs]


def cases():
    rng = random.Random(5)
    C = []

    def add(name, desc, args, lines, check=None):
        C.append((name, desc, args, lines, check))

    add("paper20", "scheme paper-20 (20 tables, p = 31..33), random fingerprints, B = 1024",
        ["--scheme", "paper-20"], lines_with_ids(rng, random_fps(rng, 200)))
    add("paper16_B512", "scheme paper-16 (16 tables, p = 28), random fingerprints, B = 512",
        ["--scheme", "paper-16", "--block-bytes", "512"], lines_with_ids(rng, random_fps(rng, 150)))
    add("paper10_clustered", "scheme paper-10, clusters of near-duplicates (1..4 bits apart)",
        ["--scheme", "paper-10"], lines_with_ids(rng, clustered_fps(rng, 15, 8, 4)))
    add("paper4", "scheme paper-4 (4 tables, p = 16), random fingerprints",
        ["--scheme", "paper-4"], lines_with_ids(rng, random_fps(rng, 100)))
    add("blocks6_k4", "scheme blocks-6 with k = 4 (15 tables), random and clustered fingerprints, B = 256",
        ["--scheme", "blocks-6", "-k", "4", "--block-bytes", "256"],
        lines_with_ids(rng, random_fps(rng, 40) + clustered_fps(rng, 8, 5, 5)))
    add("blocks1_k0", "k = 0: scheme blocks-1, one table, exact-match queries only",
        ["--scheme", "blocks-1", "-k", "0"], lines_with_ids(rng, random_fps(rng, 60) + clustered_fps(rng, 4, 4, 1)))
    add("blocks33_k32", "k = 32 (the CLI's largest): scheme blocks-33, 33 tables with short prefixes",
        ["--scheme", "blocks-33", "-k", "32", "--block-bytes", "64"], lines_with_ids(rng, clustered_fps(rng, 4, 5, 20)))
    add("empty", "n = 0: no fingerprints; every table has 0 blocks, code lengths all 0, id_layout 1",
        ["--scheme", "paper-4"], [])
    add("single", "n = 1 with one id: one block per table, no codes",
        ["--scheme", "blocks-5", "-k", "2"], lines_with_ids(rng, random_fps(rng, 1)))
    add("single_many_ids", "n = 1 with 5 ids: id_layout 0 with one fingerprint",
        ["--scheme", "paper-4"], ["0x0123456789abcdef\t%d" % i for i in (9, 3, 7, 1, 5, 3, 9)])
    add("dup_ids", "duplicates: fingerprints with up to 8 ids, repeated pairs (id_layout 0), many blocks (B = 64)",
        ["--scheme", "paper-4", "--block-bytes", "64"],
        lines_with_ids(rng, random_fps(rng, 50) + clustered_fps(rng, 4, 4, 2), multi=0.4, max_ids=8, repeats=0.2))
    add("noid_column", "input lines without ids: a line's id is its 0-based line number; repeated fingerprints",
        ["--scheme", "paper-10"],
        [("0x%x" % f) for f in (lambda fs: fs + fs[:7] + fs[3:5])(random_fps(rng, 30))])
    add("n2_single_h", "n = 2: every table's h takes one value (the single-symbol code `0`, length 1)",
        ["--scheme", "paper-4"], lines_with_ids(rng, random_fps(rng, 2)),
        check=lambda idx: all(sorted(x for x in t.code_length if x) == [1] for t in idx.tables))
    high = rng.getrandbits(64 - 13) << 13
    add("codelen12", "table 0 (identity) has h counts in Fibonacci proportions: code lengths 1..12, "
        "two codes of the maximum length 12",
        ["--scheme", "paper-4", "--block-bytes", "128"],
        lines_with_ids(rng, entries_from_h(fib_sequence(13), high)),
        check=lambda idx: max(idx.tables[0].code_length) == 12)
    high = rng.getrandbits(64 - 14) << 14
    add("codelen_halved", "table 0's Huffman code would exceed 12 bits: the writer halves the frequencies (§7)",
        ["--scheme", "blocks-1", "-k", "0", "--block-bytes", "256"],
        lines_with_ids(rng, entries_from_h(fib_sequence(14), high)),
        check=lambda idx: max(idx.tables[0].code_length) < 12 and len([x for x in idx.tables[0].code_length if x]) == 14)
    add("many_blocks_B32", "B = 32 (the smallest): 16-byte streams, one or two entries per block",
        ["--scheme", "paper-4", "--block-bytes", "32"], lines_with_ids(rng, random_fps(rng, 120)),
        check=lambda idx: all(t.block_count >= 40 for t in idx.tables))
    add("B40", "B = 40: a block size that is not a power of two",
        ["--scheme", "paper-10", "--block-bytes", "40"], lines_with_ids(rng, random_fps(rng, 80)))
    add("B4096", "B = 4096: one mostly-padding block per table",
        ["--scheme", "paper-4", "--block-bytes", "4096"], lines_with_ids(rng, random_fps(rng, 40)))
    add("extremes", "fingerprints 0 and 2^64-1 and their neighbours (1, 2^63-1, 2^63, 2^64-2), B = 32",
        ["--scheme", "paper-10", "--block-bytes", "32"],
        lines_with_ids(rng, [0, M64, 1, M64 - 1, 1 << 63, (1 << 63) - 1, 2, M64 - 2] + random_fps(rng, 10),
                       multi=0.3, max_ids=3))
    add("auto_scheme", "scheme auto (the default) with k = 2",
        ["-k", "2"], lines_with_ids(rng, random_fps(rng, 90)))
    return C


ENGLISH = ("a an and are as at be but by for if in into is it no not of on or such that the their then there "
           "these they this to was will with").split()
SETTINGS_ENGLISH = simdex_ref.encode_fingerprint_settings(
    {"shingle_size": 3, "weighting": "frequency", "stopwords": ENGLISH})
# Stopwords as FINGERPRINT.md steps 1-2 leave them ("ß" case-folds to "ss", which the writer would
# store; a section holds whatever the writer normalized, and readers only compare bytes).
SETTINGS_OTHER = simdex_ref.encode_fingerprint_settings(
    {"shingle_size": 5, "weighting": "binary", "stopwords": ["ss", "the", "über"]})


def make_queries(rng, fps, k, count=16):
    qs = []
    stored = sorted(set(fps))
    special = [0, M64]
    for i in range(count):
        if stored and i < count - 4:
            x = rng.choice(stored)
            for bit in rng.sample(range(64), rng.randint(0, min(64, k + 1))):
                x ^= 1 << bit
            qs.append(x)
        elif i < count - 2:
            qs.append(rng.getrandbits(64))
        else:
            qs.append(special[i - (count - 2)])
    return list(dict.fromkeys(qs))


def info_figures(idx, pairs):
    inf = simdex_ref.info(idx)
    assert inf["fingerprints"] == len({f for f, _ in pairs})
    assert inf["ids"] == len(set(pairs))
    return {
        "fingerprint_settings": inf["fingerprint_settings"],
        "format": inf["format"], "scheme": inf["scheme"], "k": inf["k"],
        "fingerprints": inf["fingerprints"], "ids": inf["ids"], "block_bytes": inf["block_bytes"],
        "file_bytes": inf["file_bytes"], "ids_bytes": inf["ids_bytes"], "id_layout": inf["id_layout"],
        "tables": [{"prefix_bits": t["prefix_bits"], "blocks": t["blocks"], "bytes": t["bytes"]}
                   for t in inf["tables"]],
        # BLOCK_DIRECTORY's d_t per table (§5.3), null when the file has none
        "directory_bits": inf["directory_bits"],
    }


def writer_directory(idx):
    """True when idx is what the writer writes: version 2.2 and a BLOCK_DIRECTORY with the
    writer's d_t (the entries themselves are checked by simdex_ref.rebuild)."""
    return (idx.version_major, idx.version_minor) == (2, simdex_ref.WRITER_VERSION_MINOR) and \
        idx.block_directory is not None and \
        idx.block_directory.flags == 0 and \
        [t.directory_bits for t in idx.tables] == [simdex_ref.writer_directory_bits(t.block_count) for t in idx.tables]


def src_tables(base):
    """The tables of good/BASE.sdx, opened by the Python reader."""
    return simdex_ref.open_index(os.path.join(GOOD, base + ".sdx")).tables


def spec_build(idx, pairs, **kw):
    """build_bytes of an opened file's pairs, tables, options and tagged sections other than
    BLOCK_DIRECTORY, with build_bytes' keyword arguments `kw` (version, directory, directory_bits)."""
    tagged = [(s.tag, s.flags, idx.data[s.offset:s.offset + s.bytes]) for s in idx.tagged
              if s.tag != simdex_ref.BLOCK_DIRECTORY]
    return simdex_ref.build_bytes(pairs, [(t.source_bit, t.prefix_bits) for t in idx.tables], idx.block_bytes,
                                  idx.max_distance, idx.scheme_name, tagged=tagged, **kw)


def expected_queries(rng, pairs, K):
    out = []
    qs = make_queries(rng, [f for f, _ in pairs], K)
    for k in sorted({K, min(K // 2, 8)}):
        # at large k most of the set answers: a few queries are enough
        for q in (qs if k <= 16 else qs[:3]):
            hits = brute_force(pairs, q, k)
            out.append({"query": q, "k": k,
                        "hits": [{"fingerprint": f, "distance": d, "ids": ids} for f, d, ids in hits]})
    return out


def write_sidecar(name, obj):
    """JSON with one line per query (numbers are exact unsigned 64-bit integers)."""
    parts = []
    for key, value in obj.items():
        if key == "queries":
            body = ",\n".join("  " + json.dumps(q, separators=(",", ":")) for q in value)
            parts.append(' "queries": [\n%s\n ]' % body if value else ' "queries": []')
        else:
            parts.append(" %s: %s" % (json.dumps(key), json.dumps(value, separators=(", ", ": "))))
    with open(os.path.join(GOOD, name + ".expected.json"), "w") as f:
        f.write("{\n" + ",\n".join(parts) + "\n}\n")


def main(argv):
    binary = argv[1]
    os.makedirs(GOOD, exist_ok=True)
    rng = random.Random(77)
    for name, desc, args, lines, check in cases():
        # The block size is always pinned: a golden file must not change when the writer's default does.
        if "--block-bytes" not in args:
            args = args + ["--block-bytes", "1024"]
        inp = os.path.join(GOOD, name + ".input.tsv")
        out = os.path.join(GOOD, name + ".sdx")
        with open(inp, "w") as f:
            f.write("".join(line + "\n" for line in lines))
        rc, _, err = run([binary, "build", "-q", "-o", out] + args + [inp])
        assert rc == 0, (name, err)
        idx = simdex_ref.open_index(out)
        assert simdex_ref.verify_index(idx) == [], name
        assert simdex_ref.rebuild(idx) == idx.data, name
        assert writer_directory(idx), "%s: not a 2.2 file with the writer's BLOCK_DIRECTORY" % name
        if check:
            assert check(idx), "%s: the file lacks the property it is meant to exercise" % name
        pairs = read_input(inp)
        write_sidecar(name, {
            "description": desc,
            "input": name + ".input.tsv",
            "build_args": args,
            "writer_output": True,
            "info": info_figures(idx, pairs),
            "queries": expected_queries(rng, pairs, idx.max_distance),
        })
        print("%-20s %7d bytes  %s" % (name, len(idx.data), desc))

    # Files no writer makes but every reader MUST accept (§3, §12), made from writer files by the
    # spec's writer rules: a later minor version of 2 (paper4 with version 2.7, its header checksum
    # resealed: the same bytes as build_bytes with version_minor 7), 2.1 files (with the writer's
    # d_t, and with other d_t, as a 2.1 writer chose for tables of 2^19 blocks or more), 2.0 files
    # without BLOCK_DIRECTORY and 1.x files (version_major 1: no tagged section at all), which
    # `simdex upgrade` turns back into the writer's 2.2 file (`upgrades_to`).
    def variant(name, base, desc, upgrades_to, **kw):
        src = simdex_ref.open_index(os.path.join(GOOD, base + ".sdx"))
        sidecar = json.load(open(os.path.join(GOOD, base + ".expected.json")))
        pairs = read_input(os.path.join(GOOD, sidecar["input"]))
        data = spec_build(src, pairs, **kw)
        path = os.path.join(GOOD, name + ".sdx")
        with open(path, "wb") as f:
            f.write(data)
        idx = simdex_ref.open_index(path)
        assert simdex_ref.verify_index(idx) == [], name
        assert simdex_ref.rebuild(idx) == data, name
        if upgrades_to:
            assert simdex_ref.upgrade_bytes(data) == open(os.path.join(GOOD, upgrades_to), "rb").read(), name
        sidecar.update({
            "description": desc + ". Not made by the writer.",
            "writer_output": False,
            "upgrades_to": upgrades_to,
            "info": info_figures(idx, pairs),
        })
        write_sidecar(name, sidecar)
        print("%-20s %7d bytes  %s" % (name, len(data), "accept-only"))
        return data

    data = variant("minor_version_7", "paper4", "paper4.sdx with version_minor = 7 (header checksum resealed): "
                   "readers MUST accept any minor version of a major version they read (§3, §12)", None,
                   version_minor=7)
    patched = bytearray(open(os.path.join(GOOD, "paper4.sdx"), "rb").read())
    struct.pack_into("<H", patched, 10, 7)
    R = simdex_ref.open_index(os.path.join(GOOD, "paper4.sdx")).R
    struct.pack_into("<Q", patched, 120, simdex_ref.xxh3_64(bytes(patched[:120] + patched[128:R])))
    assert data == bytes(patched)
    variant("v2_1_paper4", "paper4", "paper4's pairs as format 2.1 with the writer's BLOCK_DIRECTORY (§12): "
            "`simdex upgrade` raises its version, giving paper4.sdx", "paper4.sdx", version_minor=1)
    fine = [simdex_ref.writer_directory_bits(t.block_count) + 1 for t in src_tables("paper4")]
    variant("v2_1_fine_paper4", "paper4", "paper4's pairs as format 2.1 with a BLOCK_DIRECTORY of d_t = %s, one "
            "more than the writer's (as a 2.1 writer chose for tables of 2^19 blocks or more, §5.3, §12): "
            "`simdex upgrade` replaces it by the writer's, giving paper4.sdx" % fine, "paper4.sdx",
            version_minor=1, directory_bits=fine)
    variant("v2_0_paper4", "paper4", "paper4's pairs as format 2.0: no BLOCK_DIRECTORY (§12); readers read it by "
            "searching BLOCK_KEYS, and `simdex upgrade` turns it into paper4.sdx", "paper4.sdx",
            version_minor=0, directory=False)
    for name, base, minor, desc in (
            ("v1_paper4", "paper4", 0, "paper4's pairs as format 1.0 (version_major = 1, no tagged section): a 2.x "
             "reader MUST read 1.x files as before (§12)"),
            ("v1_dup_ids", "dup_ids", 0, "dup_ids's pairs (id_layout 0) as format 1.0 (§12)"),
            ("v1_minor_3", "empty", 3, "empty.sdx (n = 0) as format 1.3: any minor version of major 1 (§12)")):
        variant(name, base, desc, base + ".sdx", version_major=1, version_minor=minor, directory=False)

    base = "paper4"
    pairs = read_input(os.path.join(GOOD, base + ".input.tsv"))

    # Files the C++ writer does not make but the spec allows, built by the spec's writer rules
    # (simdex_ref.build_bytes) from paper4's input and tables.
    src = simdex_ref.open_index(os.path.join(GOOD, "paper4.sdx"))
    tabs = [(t.source_bit, t.prefix_bits) for t in src.tables]
    identity = list(range(64))
    accept = [
        ("table0_permuted", "paper4's tables in the order 1, 0, 2, 3: table 0 is not the identity permutation, "
         "so the ids follow the ranks of a permuted table (readers MUST NOT assume table 0 is the identity, §4)",
         tabs[1:2] + tabs[0:1] + tabs[2:], 3, 128),
        ("p0_k64", "one identity table with prefix_bits = 0 and max_distance = 64: every query may ask for any "
         "distance and a probe reads the whole table", [(identity, 0)], 64, 64),
        ("p64_k0", "one permuted table with prefix_bits = 64 and max_distance = 0: a probe reads one entry",
         [(tabs[2][0], 64)], 0, 32),
        ("settings_english", "paper4 with a FINGERPRINT_SETTINGS section (§5.2: shingle 3, frequency, the "
         "english stopwords) as `simdex build --text --stopwords english` writes it", tabs, 3, 1024,
         [(simdex_ref.FINGERPRINT_SETTINGS, 0, SETTINGS_ENGLISH)]),
        ("tagged_unknown_optional", "paper4 with FINGERPRINT_SETTINGS (shingle 5, binary, stopwords `ß`, `the`, "
         "`über`, as normalized: `ss`, `the`, `über`), the BLOCK_DIRECTORY, an unknown tag 7 without CRITICAL "
         "(readers MUST skip it) and an empty private tag 0x80000001 (§5.1)", tabs, 3, 256,
         [(simdex_ref.FINGERPRINT_SETTINGS, 0, SETTINGS_OTHER), (7, 0, bytes(range(24))), (0x80000001, 0, b"")]),
    ]
    # BLOCK_DIRECTORY with d_t other than the writer's (§5.3 allows any 0 <= d_t <= 32): a reader
    # MUST answer right whatever d_t the file has. B = 64 so that the tables have many blocks.
    fine_tables = [(source_bit, p) for (source_bit, _), p in zip(tabs, (16, 16, 8, 8))]
    fine_blocks = [t.block_count for t in simdex_ref.open_bytes(
        simdex_ref.build_bytes(pairs, fine_tables, 64, 3, "x")).tables]
    fine_bits = [simdex_ref.writer_directory_bits(fine_blocks[0]) + 2, 12, 8, 11]
    assert fine_bits[0] < 8 and all(b > simdex_ref.writer_directory_bits(c) for b, c in zip(fine_bits, fine_blocks))
    accept.append(
        ("directory_fine", "paper4's pairs, B = 64, paper4's permutations with prefix_bits 16, 16, 8, 8 (disjoint "
         "prefixes: they still cover k = 3) and BLOCK_DIRECTORY d_t = %s, above the writer's %s: many empty "
         "slots, and in tables 2 and 3 d_t >= prefix_bits, so every probe's lo is its slot's first value (§5.3, §9)"
         % (", ".join(map(str, fine_bits)), ", ".join(str(simdex_ref.writer_directory_bits(c)) for c in fine_blocks)),
         fine_tables, 3, 64, (), fine_bits))
    for name, desc, tables, k, B, *extra in accept:
        tagged = extra[0] if extra else ()
        bits = extra[1] if len(extra) > 1 else None
        data = simdex_ref.build_bytes(pairs, tables, B, k, "spec-" + name.replace("_", "-"),
                                      tagged=tagged, directory_bits=bits)
        path = os.path.join(GOOD, name + ".sdx")
        with open(path, "wb") as f:
            f.write(data)
        idx = simdex_ref.open_index(path)
        assert simdex_ref.verify_index(idx) == []
        write_sidecar(name, {
            "description": desc + ". Made by the spec's writer rules, not by the C++ writer.",
            "input": base + ".input.tsv",
            "build_args": None,
            "writer_output": False,
            "info": info_figures(idx, pairs),
            "queries": expected_queries(rng, pairs, k),
        })
        print("%-20s %7d bytes  %s" % (name, len(data), "accept-only"))

    # directory_partial: paper10_clustered's pairs and tables at B = 64, some tables without a
    # directory (d_t = 0: searched by BLOCK_KEYS), some with the writer's d_t, the last with d_t = 1
    # (clustered values: many blocks per slot).
    base = "paper10_clustered"
    src = simdex_ref.open_index(os.path.join(GOOD, base + ".sdx"))
    pairs = read_input(os.path.join(GOOD, base + ".input.tsv"))
    tables = [(t.source_bit, t.prefix_bits) for t in src.tables]
    blocks = [t.block_count for t in simdex_ref.open_bytes(
        simdex_ref.build_bytes(pairs, tables, 64, src.max_distance, "x")).tables]
    bits = [0 if t % 2 == 0 else simdex_ref.writer_directory_bits(c) for t, c in enumerate(blocks)]
    bits[-1] = 1
    assert all(c >= 8 for c in blocks) and 0 in bits and 1 < max(bits)
    name = "directory_partial"
    data = simdex_ref.build_bytes(pairs, tables, 64, src.max_distance, "spec-directory-partial", directory_bits=bits)
    path = os.path.join(GOOD, name + ".sdx")
    with open(path, "wb") as f:
        f.write(data)
    idx = simdex_ref.open_index(path)
    assert simdex_ref.verify_index(idx) == [] and simdex_ref.rebuild(idx) == data
    write_sidecar(name, {
        "description": "paper10_clustered's pairs and tables, B = 64 (%s blocks per table), BLOCK_DIRECTORY with "
                       "d_t = %s: tables 0, 2, 4, 6, 8 have no directory (d_t = 0, the probe searches BLOCK_KEYS), "
                       "tables 1, 3, 5, 7 the writer's d_t, table 9 d_t = 1 (two slots for clustered values: many "
                       "blocks per slot) (§5.3, §9). Made by the spec's writer rules, not by the C++ writer."
                       % (("%d" % blocks[0]) if min(blocks) == max(blocks) else "%d to %d" % (min(blocks), max(blocks)),
                          ", ".join(map(str, bits))),
        "input": base + ".input.tsv",
        "build_args": None,
        "writer_output": False,
        "info": info_figures(idx, pairs),
        "queries": expected_queries(rng, pairs, src.max_distance),
    })
    print("%-20s %7d bytes  %s" % (name, len(data), "accept-only"))

    # A 2.0 file with tagged sections: `simdex upgrade` puts the directory between tag 1 and tag 7.
    variant("v2_0_tagged", "tagged_unknown_optional", "tagged_unknown_optional's pairs and tagged sections "
            "(FINGERPRINT_SETTINGS, tag 7, tag 0x80000001) as format 2.0, without BLOCK_DIRECTORY: "
            "`simdex upgrade` inserts the directory's entry and bytes between tags 1 and 7 (§12) and gives "
            "tagged_unknown_optional.sdx", "tagged_unknown_optional.sdx", version_minor=0, directory=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
