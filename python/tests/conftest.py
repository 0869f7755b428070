"""Shared fixtures of the simdex Python tests: the CLI to compare with, data sets and brute force.

ctest runs them with PYTHONPATH=build/python, SIMDEX_CLI=build/cli/simdex and SIMDEX_SOURCE_DIR."""

import json
import os
import subprocess

import numpy as np
import pytest

POPCOUNT8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def popcount(x):
    """Bits set in each uint64 of x."""
    x = np.ascontiguousarray(x, dtype=np.uint64)
    return POPCOUNT8[x.view(np.uint8)].reshape(x.shape + (8,)).sum(axis=-1, dtype=np.int32)


def brute_force(stored, query, k):
    """{stored fingerprint: distance} of the distinct stored fingerprints within k of query."""
    d = popcount(np.unique(stored) ^ np.uint64(query))
    u = np.unique(stored)
    return {int(f): int(x) for f, x in zip(u[d <= k], d[d <= k])}


def random_fingerprints(n, seed):
    return np.random.default_rng(seed).integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)


def clustered_fingerprints(n, seed, centers=None, max_flips=4):
    """Fingerprints in tight clusters: random centers, members a few random bits away."""
    rng = np.random.default_rng(seed)
    centers = centers or max(1, n // 20)
    c = rng.integers(0, 2**64, size=centers, dtype=np.uint64, endpoint=False)
    out = c[rng.integers(0, centers, size=n)]
    for _ in range(max_flips):
        flip = rng.random(n) < 0.5
        bits = rng.integers(0, 64, size=n).astype(np.uint64)
        out = np.where(flip, out ^ (np.uint64(1) << bits), out)
    return out


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("SIMDEX_CLI")
    if not path:
        pytest.skip("SIMDEX_CLI is not set (ctest sets it)")
    return path


@pytest.fixture(scope="session")
def source_dir():
    return os.environ.get("SIMDEX_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def run(cli, *args, input=None):
    """stdout of `simdex ARGS`, which must succeed."""
    r = subprocess.run([cli, *args], input=input, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line]
