#!/usr/bin/env python3
"""The key maps simdex writes against spec/reference/keys_ref.py (written from spec/KEYS.md alone).

    keys_reference_test.py SIMDEX

Documents keyed by random strings (control characters, TAB, backslash, non-ASCII, empty), some
without a key, go through `simdex fingerprint --id-field url`: every key's id in the fingerprints is
XXH3-64 of its UTF-8 bytes, the key map is byte for byte the reference writer's, and the reference
reader reads it back. Last line `N passed, N failed`.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "spec", "reference"))
from keys_ref import key_id, read_key_map, write_key_map  # noqa: E402


def main():
    simdex = sys.argv[1]
    rng = random.Random(7)
    alphabet = "ab/:,.\t\n\r\\\x00\x01\x1f\x7f\u00e9\u4e2d\U0001F600 "
    records, expected = [], {}
    for i in range(500):
        record = {"text": "document %d about %s" % (i, " ".join(rng.choice(["river", "stone", "sea"]) for _ in range(8)))}
        if i % 10 != 3:
            key = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))
            record["url"] = key
            expected[key_id(key.encode())] = key.encode()
        records.append(record)
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL " + what)

    with tempfile.TemporaryDirectory() as work:
        docs = os.path.join(work, "docs.jsonl")
        with open(docs, "w") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
        fp = os.path.join(work, "docs.fp")
        subprocess.run([simdex, "fingerprint", docs, "--id-field", "url", "-o", fp], check=True)
        ids = [int(line.split("\t")[1]) for line in open(fp)]
        for i, (r, ident) in enumerate(zip(records, ids)):
            want = key_id(r["url"].encode()) if "url" in r else i
            check(ident == want, "record %d: id %d, want %d" % (i, ident, want))
        data = open(fp + ".keys.tsv", "rb").read()
        check(data == write_key_map(expected), "the key map differs from the reference writer's")
        check(read_key_map(data) == expected, "the reference reader reads other keys")
        for bad in [b"", b"#simdex-keys 2\n", b"#simdex-keys 1\n1\ta", b"#simdex-keys 1\n2\ta\n1\tb\n",
                    b"#simdex-keys 1\n1\t\\x41\n", b"#simdex-keys 1\n01\ta\n"]:
            try:
                read_key_map(bad)
                check(False, "reference reader accepted %r" % bad)
            except ValueError:
                check(True, "")
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
