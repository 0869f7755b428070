"""The type stubs (simdex/__init__.pyi) and the docstrings describe the module as it is."""

import ast
import os

import simdex


def stub_tree():
    with open(os.path.join(os.path.dirname(simdex.__file__), "__init__.pyi")) as f:
        return ast.parse(f.read())


def public(names):
    return {n for n in names if not n.startswith("_")}


def test_stubs_name_every_public_name_and_method():
    tree = stub_tree()
    top = {node.name for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    constants = {t.id for node in tree.body if isinstance(node, ast.AnnAssign) for t in [node.target]}
    assert set(simdex.__all__) <= top | constants
    assert top <= set(dir(simdex))
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    for name in ("Index", "Builder", "Hit", "VerifyReport", "BuildSummary", "Problem", "DedupResult",
                 "SetChange", "KeyMap"):
        stubbed = public([n.name for n in classes[name].body if isinstance(n, ast.FunctionDef)] +
                         [n.target.id for n in classes[name].body if isinstance(n, ast.AnnAssign)])
        structseq = {"n_fields", "n_sequence_fields", "n_unnamed_fields"}  # every C named tuple has these
        actual = public(dir(getattr(simdex, name))) - public(dir(tuple)) - structseq
        assert actual <= stubbed, f"{name}: not in the stubs: {sorted(actual - stubbed)}"
        assert stubbed - {"__init__"} <= set(dir(getattr(simdex, name))), name


def test_the_entry_points_have_docstrings_that_teach():
    for fn in (simdex.fingerprint, simdex.build, simdex.open, simdex.Builder, simdex.Index, simdex.Index.query,
               simdex.Index.join, simdex.Index.pairs, simdex.Index.clusters, simdex.Index.verify,
               simdex.Index.info, simdex.Error, simdex.dedup,
               simdex.DedupResult, simdex.DedupCluster, simdex.add, simdex.remove, simdex.merge,
               simdex.Index.reopen, simdex.KeyMap, simdex.key_id, simdex.KeyMap.keys_of):
        assert fn.__doc__ and len(fn.__doc__) > 40, fn
    assert "with simdex.open(" in simdex.open.__doc__ and "Index" in simdex.open.__doc__
