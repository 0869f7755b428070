"""The README's Python example runs as written and deduplicates the corpus as simdex.dedup does."""

import gzip
import json
import os
import re

import simdex


def test_readme_python_example_runs(source_dir, tmp_path, monkeypatch, capsys):
    with open(os.path.join(source_dir, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    section = readme[readme.index("\n## Python\n"):]  # the package's example, not the CLI's co-process one
    blocks = re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)
    assert blocks, "README.md's Python section has no ```python block"
    os.symlink(os.path.join(source_dir, "data"), tmp_path / "data")
    monkeypatch.chdir(tmp_path)  # it writes corpus.sdx and reads data/ from the repository's root
    scope = {}
    exec(compile(blocks[0], "README.md", "exec"), scope)
    printed = capsys.readouterr().out
    assert "Hit(fingerprint=" in printed and "<simdex.DedupResult: " in printed
    docs, keep, result = scope["docs"], scope["keep"], scope["result"]
    # The texts form answers as the file form, which wrote the kept records.
    by_path = simdex.dedup("data/corpus/docs.jsonl.gz")
    assert result.keep.tolist() == by_path.keep.tolist() and len(keep) < len(docs)
    assert keep == [docs[i] for i in by_path.keep]
    with gzip.open("deduped.jsonl.gz", "rt") as f:
        assert [json.loads(line) for line in f] == keep
