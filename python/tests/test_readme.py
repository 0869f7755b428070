"""The README's Python example runs as written and deduplicates the corpus as the bench does."""

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
    assert "Hit(fingerprint=" in capsys.readouterr().out
    docs, keep = scope["docs"], scope["keep"]
    # One document per cluster of near or exact duplicates: as many as clusters plus loners.
    with simdex.open("corpus.sdx") as index:
        clusters = index.clusters(size_in_ids=True)
    assert len(keep) == len(docs) - sum(len(c.ids) - 1 for c in clusters) < len(docs)
