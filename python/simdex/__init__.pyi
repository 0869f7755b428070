# Type stubs of the simdex package (python/simdex/__init__.py and the compiled _simdex).
from os import PathLike
from typing import Callable, Iterable, NamedTuple, Optional, Sequence, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str
DOCUMENT_K: int
KEEP_POLICIES: tuple[str, ...]

_Path = Union[str, PathLike[str]]
_U64s = Union[npt.ArrayLike, Sequence[int]]
_Progress = Optional[Callable[[str, int, int], object]]  # progress(stage, done, total)
_Fingerprint = Union[int, np.unsignedinteger]

class Error(Exception):
    """A simdex failure; .code is the spec's name for it ("bad_magic", "usage", "io", ...)."""
    code: str
    def __init__(self, message: str, code: Optional[str] = ...) -> None: ...

class UsageError(Error, ValueError): ...
class InputError(Error, ValueError): ...
class FileError(Error, OSError): ...
class FormatError(Error): ...
class FileChangedError(Error): ...
class WorkLimitError(Error): ...

class Hit(tuple):
    """A stored fingerprint within k bits of the query, with its ids."""
    @property
    def fingerprint(self) -> int: ...
    @property
    def distance(self) -> int: ...
    @property
    def ids(self) -> tuple[int, ...]: ...

class BuildSummary(tuple):
    @property
    def path(self) -> str: ...
    @property
    def fingerprint_count(self) -> int: ...
    @property
    def id_count(self) -> int: ...
    @property
    def file_bytes(self) -> int: ...
    @property
    def scheme_name(self) -> str: ...
    @property
    def table_count(self) -> int: ...
    @property
    def temp_files(self) -> int: ...

class Problem(tuple):
    @property
    def code(self) -> str: ...
    @property
    def where(self) -> str: ...
    @property
    def what(self) -> str: ...

class VerifyReport(tuple):
    @property
    def ok(self) -> bool: ...
    @property
    def problems(self) -> list[Problem]: ...
    @property
    def unchecked(self) -> list[Problem]: ...
    @property
    def blocks_checked(self) -> int: ...
    @property
    def bytes_checked(self) -> int: ...

class Matches(NamedTuple):
    """Index.join's rows, sorted by (query, distance, fingerprint, id)."""
    query: npt.NDArray[np.int64]
    query_id: npt.NDArray[np.uint64]
    fingerprint: npt.NDArray[np.uint64]
    distance: npt.NDArray[np.int32]
    id: npt.NDArray[np.uint64]

class Pairs(NamedTuple):
    a: npt.NDArray[np.uint64]
    b: npt.NDArray[np.uint64]
    distance: npt.NDArray[np.int32]

class Cluster(NamedTuple):
    fingerprints: npt.NDArray[np.uint64]
    ids: npt.NDArray[np.uint64]

def english_stopwords() -> list[str]: ...
def unicode_version() -> str: ...

def fingerprint(texts: Iterable[Union[str, bytes]], shingle: int = 3, weighting: str = "frequency",
                stopwords: Union[None, str, Iterable[str]] = None, threads: int = 0) -> npt.NDArray[np.uint64]:
    """The 64-bit simhash of each text (spec/FINGERPRINT.md; the CLI's `simdex fingerprint`)."""

class Builder:
    """Builds an index file from (fingerprint, id) pairs added in any number of calls."""
    def __init__(self, k: int = 3, scheme: Optional[str] = None, block_bytes: int = 256, memory: int = 0,
                 threads: int = 0, temp_dir: Optional[str] = None) -> None: ...
    def add(self, fingerprints: _U64s, ids: Optional[_U64s] = None) -> None: ...
    def write(self, path: _Path, progress: _Progress = None) -> BuildSummary: ...
    @property
    def pairs_added(self) -> int: ...
    @property
    def written(self) -> bool: ...
    @property
    def k(self) -> int: ...
    def __len__(self) -> int: ...

def build(path: _Path, fingerprints: _U64s, ids: Optional[_U64s] = None, k: int = 3,
          scheme: Optional[str] = None, block_bytes: int = 256, memory: int = 0, threads: int = 0,
          temp_dir: Optional[str] = None, progress: _Progress = None) -> BuildSummary:
    """Writes an index file of the fingerprints (ids: their positions by default), atomically."""

class Index:
    """An open index file (memory-mapped, read-only); shared by threads and forked processes."""
    @overload
    def __init__(self, path: str, detect_changes: bool = True, preload: Optional[str] = None) -> None: ...
    @overload
    def __init__(self, *, reopen: "Index") -> None: ...
    def query(self, fingerprint: _Fingerprint, k: Optional[int] = None) -> list[Hit]: ...
    def join(self, fingerprints: _U64s, k: Optional[int] = None, ids: Optional[_U64s] = None, threads: int = 0,
             force: bool = False, progress: _Progress = None) -> Matches: ...
    def query_many(self, fingerprints: _U64s, k: Optional[int] = None, ids: Optional[_U64s] = None,
                   threads: int = 0, force: bool = False, progress: _Progress = None) -> Matches: ...
    def pairs(self, k: Optional[int] = None, threads: int = 0, force: bool = False,
              progress: _Progress = None) -> Pairs: ...
    def clusters(self, k: Optional[int] = None, min_size: int = 2, size_in_ids: bool = False, threads: int = 0,
                 force: bool = False, progress: _Progress = None) -> list[Cluster]: ...
    def ids_of(self, fingerprint: _Fingerprint) -> npt.NDArray[np.uint64]: ...
    @property
    def info(self) -> dict: ...
    def verify(self) -> VerifyReport: ...
    def reopen(self) -> "Index": ...
    @property
    def is_set(self) -> bool: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    @property
    def path(self) -> str: ...
    @property
    def detect_changes(self) -> bool: ...
    @property
    def fingerprint_count(self) -> int: ...
    @property
    def k(self) -> int: ...
    @property
    def checksum(self) -> int: ...
    def __len__(self) -> int: ...
    def __contains__(self, fingerprint: _Fingerprint) -> bool: ...
    def __enter__(self) -> "Index": ...
    def __exit__(self, *exc: object) -> bool: ...

def open(path: _Path, detect_changes: bool = True, preload: Optional[str] = None) -> Index:
    """Opens an index file (memory-mapped; O(1) in its size)."""

class DedupCluster(NamedTuple):
    """One cluster of near-duplicates found by dedup, members in input order."""
    documents: npt.NDArray[np.int64]
    kept: int
    keys: Optional[list[Optional[str]]]
    distances: npt.NDArray[np.int32]
    fingerprints: npt.NDArray[np.uint64]
    ids: npt.NDArray[np.uint64]
    lines: npt.NDArray[np.uint64]

class DedupResult:
    """What dedup found: documents kept (one per cluster and every loner), removed, clusters."""
    documents: int
    removed: npt.NDArray[np.int64]
    clusters: list[DedupCluster]
    k: int
    keep_policy: str
    without_words: npt.NDArray[np.int64]
    output: Optional[str]
    def __init__(self, documents: int, removed: npt.NDArray[np.int64], k: int, keep_policy: str,
                 clusters: list[tuple], without_words: npt.NDArray[np.int64],
                 output: Optional[str]) -> None: ...
    @property
    def keep(self) -> npt.NDArray[np.int64]: ...

def dedup(source: Union[_Path, Iterable[Union[str, bytes]]], output: Optional[_Path] = None, *, k: int = 7,
          keep: str = "first", shingle: int = 3, weighting: str = "frequency",
          stopwords: Union[None, str, Iterable[str]] = None, input_format: str = "auto", id_field: str = "id",
          text_field: str = "text", index: Optional[_Path] = None, memory: Optional[int] = None,
          threads: int = 0, temp_dir: Optional[_Path] = None, progress: _Progress = None) -> DedupResult:
    """Deduplicates a dataset (a JSONL/lines path, a directory or texts) as `simdex dedup` does."""

class SetChange(tuple):
    """What add, remove and merge published (spec/SET.md)."""
    @property
    def generation(self) -> int: ...
    @property
    def written(self) -> list[str]: ...
    @property
    def removed(self) -> list[str]: ...
    @property
    def bytes_written(self) -> int: ...
    @property
    def members(self) -> int: ...
    @property
    def merged_entries(self) -> int: ...

def add(set_path: _Path, fingerprints: _U64s, ids: Optional[_U64s] = None, k: Optional[int] = None,
        block_bytes: Optional[int] = None, merge: bool = True, wait: bool = True, memory: int = 0, threads: int = 0,
        temp_dir: Optional[_Path] = None, progress: _Progress = None) -> SetChange:
    """Adds (fingerprint, id) pairs to an index set as a new member; creates the set on the first add."""

def remove(set_path: _Path, ids: _U64s, wait: bool = True) -> SetChange:
    """Removes ids from an index set (a tombstone)."""

def merge(set_path: _Path, wait: bool = True, memory: int = 0, threads: int = 0,
          temp_dir: Optional[_Path] = None, progress: _Progress = None) -> SetChange:
    """Compacts an index set into one member of its live pairs."""
