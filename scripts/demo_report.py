#!/usr/bin/env python3
"""Helpers of scripts/demo: pick query documents, show hits with provenance, score against truth."""
import gzip
import json
import sys


def load_truth(path):
    pairs = {}
    for line in open(path, encoding="utf-8"):
        if line.startswith("#"):
            continue
        a, b, kind = line.rstrip("\n").split("\t")
        pairs[(min(int(a), int(b)), max(int(a), int(b)))] = kind
    return pairs


def hits(path):
    """query --text lines: QUERY_ID QUERY FINGERPRINT DISTANCE IDS."""
    for line in open(path, encoding="utf-8"):
        qid, _q, _fp, dist, ids = line.rstrip("\n").split("\t")
        yield int(qid), int(dist), [int(i) for i in ids.split(",")]


def pick(corpus, truth_path, count):
    """The first `count` documents that have at least two known near-duplicates."""
    degree = {}
    for a, b in load_truth(truth_path):
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
    wanted = sorted(d for d, n in degree.items() if n >= 2)[: int(count)]
    with gzip.open(corpus, "rt", encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            if doc["id"] in wanted:
                print(json.dumps(doc, ensure_ascii=False))


def show(hits_path, meta_path, truth_path):
    meta = {}
    for line in open(meta_path, encoding="utf-8"):
        if not line.startswith("#"):
            i, lang, origin, source = line.rstrip("\n").split("\t")
            meta[int(i)] = f"{lang}, {origin}: {source}"
    truth = load_truth(truth_path)
    last = None
    for qid, dist, ids in hits(hits_path):
        if qid != last:
            print(f"  query document {qid} ({meta[qid]})")
            last = qid
        for i in ids:
            kind = "itself" if i == qid else truth.get((min(i, qid), max(i, qid)), "not in the truth list")
            print(f"      distance {dist:2d}  document {i:5d}  [{kind}]  {meta[i]}")


def score(hits_path, truth_path, k):
    truth = set(load_truth(truth_path))
    found = set()
    for qid, _dist, ids in hits(hits_path):
        for i in ids:
            if i != qid:
                found.add((min(i, qid), max(i, qid)))
    true_pos = len(found & truth)
    precision = true_pos / len(found) if found else 1.0
    recall = true_pos / len(truth) if truth else 1.0
    print(f"  k = {k}: {len(found)} pairs found, {true_pos} of them in the truth list of {len(truth)} pairs")
    print(f"  precision {100 * precision:.1f}%, recall {100 * recall:.1f}%  (recall by k and shingle size: README)")


if __name__ == "__main__":
    {"pick": pick, "show": show, "score": score}[sys.argv[1]](*sys.argv[2:])
