"""simdex: near-duplicate detection over 64-bit simhash fingerprints.

Fingerprint texts, build an index file, open it and ask for near-duplicates::

    import simdex
    fps = simdex.fingerprint(texts)                  # np.uint64, one per text, all cores
    simdex.build("docs.sdx", fps)                    # ids: the texts' positions
    with simdex.open("docs.sdx") as index:
        index.query(fps[0])                          # [Hit(fingerprint, distance, ids), ...]
        index.join(fps)                              # Matches of numpy arrays
        index.clusters()                             # [Cluster(fingerprints, ids), ...]

or deduplicate a dataset in one call, as `simdex dedup` does::

    result = simdex.dedup(texts)                     # or a JSONL path, a directory
    kept = [texts[i] for i in result.keep]           # one document per cluster of near-duplicates

Work runs without the GIL (threads run in parallel), and Ctrl-C stops it (KeyboardInterrupt; no
output or temporary file is left); an open Index may be shared by threads and, after fork, by the
processes of a multiprocessing pool. Failures raise simdex.Error, whose .code
is the spec's name for the failure.
"""

import array as _array
from collections import namedtuple as _namedtuple
import json as _json
import operator as _operator
import builtins as _builtins
import errno as _errno
import os as _os

import numpy as _np

from . import _simdex
from ._errors import (Error, FileChangedError, FileError, FormatError, InputError, UsageError,
                      WorkLimitError, make_error as _make_error)
from ._simdex import BuildSummary, Hit, Problem, SetChange, VerifyReport, english_stopwords, unicode_version

__version__ = _simdex.__version__
DOCUMENT_K = _simdex.DOCUMENT_K  # the k for text documents (simdex dedup's default)
KEEP_POLICIES = _simdex.KEEP_POLICIES  # dedup's keep= choices: "first", "longest", "shortest"

__all__ = [
    "fingerprint", "build", "dedup", "add", "remove", "merge", "SetChange", "DedupResult", "DedupCluster", "DOCUMENT_K", "KEEP_POLICIES", "Builder", "open", "Index", "Hit", "Matches", "Pairs", "Cluster",
    "BuildSummary", "VerifyReport", "Problem", "english_stopwords", "unicode_version", "Error", "UsageError",
    "InputError", "FileError", "FormatError", "FileChangedError", "WorkLimitError", "KeyMap", "key_id",
]

Matches = _namedtuple("Matches", "query query_id fingerprint distance id")
Matches.__doc__ = """Results of Index.join: numpy arrays of equal length, one row per (query, stored
fingerprint, id), sorted by (query, distance, fingerprint, id). query: position in the queries
(int64); query_id: the query's id (uint64; its position when no ids were given); fingerprint:
the stored fingerprint (uint64); distance: Hamming distance (int32); id: an id stored with it."""

Pairs = _namedtuple("Pairs", "a b distance")
Pairs.__doc__ = """Results of Index.pairs: numpy arrays a, b (uint64, a < b) and distance
(int32), one row per pair of distinct stored fingerprints within k bits, sorted by (a, b)."""

Cluster = _namedtuple("Cluster", "fingerprints ids")
Cluster.__doc__ = """One cluster of Index.clusters: its fingerprints (uint64 array, ascending)
and the ids stored with them (uint64 array, the ids of each fingerprint in turn)."""


_BOOLS = frozenset((bool, _np.bool_))


def _u64(values, name):
    """values as a contiguous 1-D np.uint64 array, refusing what would change the numbers."""
    if not isinstance(values, (_np.ndarray, list, tuple, _array.array)):  # an array's items are numbers
        try:
            byte_format = memoryview(values).format.lstrip("@=<>!") in ("B", "b", "c")
        except TypeError:  # not a buffer
            byte_format = False
        if byte_format:  # numpy would read one number per byte of raw uint64 data
            raise TypeError(f"{name} is a buffer of bytes ({type(values).__name__}), not of uint64: for raw "
                            f"little-endian uint64 values pass np.frombuffer({name}, dtype='<u8')")
    if isinstance(values, _np.ma.MaskedArray) and _np.ma.is_masked(values):
        raise UsageError(f"{name} is a masked array with masked values, which numpy would pass on as "
                         f"numbers: pass {name}.compressed() (the values not masked)")
    a = _np.asarray(values)
    if isinstance(values, (list, tuple)) and a.dtype.kind in "iu" and not _BOOLS.isdisjoint(map(type, values)):
        # numpy reads [True, 2] as [1, 2]; a bool is no fingerprint (the type check is C-speed)
        raise TypeError(f"{name} must be unsigned 64-bit integers (np.uint64); got a bool")
    if a.dtype.kind == "f" and not isinstance(values, _np.ndarray):
        a = _np.asarray(values, dtype=object)  # Python ints beyond int64 made numpy choose float
    if a.ndim == 0:
        a = a.reshape(1)
    if a.ndim != 1:
        raise UsageError(f"{name} must be 1-D, got shape {a.shape}")
    if a.dtype == _np.uint64:
        return _np.ascontiguousarray(a)
    if a.size == 0:
        return _np.empty(0, dtype=_np.uint64)
    if a.dtype.kind == "u":
        return a.astype(_np.uint64)
    if a.dtype.kind == "i":
        if a.min() < 0:
            raise UsageError(f"{name} holds negative values; fingerprints and ids are unsigned 64-bit "
                             f"(signed storage of the same bits: pass {name}.view(np.uint64))")
        return a.astype(_np.uint64)
    if a.dtype.kind == "O":
        items = a.tolist()
        odd = [x for x in items if isinstance(x, bool) or not isinstance(x, (int, _np.integer))][:1]
        if not odd:
            if not all(0 <= x < 2**64 for x in items):
                raise UsageError(f"{name} holds values outside 0..2**64-1")
            return _np.array(items, dtype=_np.uint64)
        raise TypeError(f"{name} must be unsigned 64-bit integers (np.uint64); got a {type(odd[0]).__name__}")
    raise TypeError(f"{name} must be unsigned 64-bit integers (np.uint64), got dtype {a.dtype}")


def _path(path):
    """A path argument (str, bytes or PathLike) as the str the library takes. A NUL byte would cut
    the name short where the C library reads it: UsageError (a ValueError, as Python's own open()
    raises). A name whose bytes are not UTF-8 is refused too: the library's paths are UTF-8."""
    path = _os.fsdecode(path)
    if "\x00" in path:
        raise UsageError("embedded null byte")
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"simdex takes file names in UTF-8; {path!r} is not (rename it)") from None
    return path


def _count(value, name, optional=False, below=2**31, least=0):
    """`value` checked as a count or size (an int in [least, below), not a bool; None too where
    `optional`): a UsageError naming `name` instead of pybind11's "incompatible function arguments"."""
    if value is None and optional:
        return value
    try:
        n = None if isinstance(value, (bool, _np.bool_)) else _operator.index(value)  # numpy ints too
    except TypeError:
        n = None
    if n is None or not least <= n < below:
        raise UsageError(f"{name} must be an integer in {least}..{below - 1}, not {value!r}")
    return n


def _flag(value, name):
    """A yes/no option: a bool (numpy's too), never a str or a number read as one."""
    if not isinstance(value, (bool, _np.bool_)):
        raise UsageError(f"{name} must be True or False, not {value!r}")
    return bool(value)


def _optional_path(path):
    return None if path is None else _path(path)


def _progress(progress):
    """progress= of the long calls: None, or a callable(stage, done, total) they call a few times a
    second from the calling thread (stage: a str such as "sort", "tables", "reading", "join";
    total 0 when unknown). An exception it raises stops the work, as Ctrl-C does."""
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a callable(stage, done, total) or None, not {type(progress).__name__}")
    return progress


def _stopword_list(stopwords):
    if stopwords is None:
        return []
    if isinstance(stopwords, str):
        if stopwords != "english":
            raise UsageError("stopwords must be None, 'english' or a list of words")
        return english_stopwords()
    return list(stopwords)


def fingerprint(texts, shingle=3, weighting="frequency", stopwords=None, threads=0):
    """The 64-bit simhash of each text, as spec/FINGERPRINT.md computes it (the same bits as
    `simdex fingerprint` with the same flags).

    texts: an iterable of str (or UTF-8 bytes): a list, a pandas Series, a datasets column, a
        generator. Ill-formed text is repaired, never rejected; a text with no word gives 0. A
        str's surrogates count as simdex reads a JSON line's \\u escapes (the fingerprint of the
        line json.dumps writes): a pair is its code point, a lone one U+FFFD, a surrogate escape
        (errors="surrogateescape") the byte it stands for.
    shingle: words per feature, 1..16 (the CLI's --shingle).
    weighting: "frequency" (a feature counts as often as it occurs) or "binary" (once).
    stopwords: None, "english" (the built-in list) or an iterable of words to drop; an entry that
        is not one word ("don't" is two tokens) never matches, and a UserWarning says so.
    threads: worker threads; 0 uses all cores.

    Returns an np.uint64 array, one fingerprint per text, in order.
    """
    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be an iterable of texts; for one text use fingerprint([text])[0]")
    return _simdex.fingerprint_texts(texts, _count(shingle, "shingle", least=1, below=17), weighting, _stopword_list(stopwords),
                                     _count(threads, "threads"))


class Builder(_simdex.Builder):
    """Builds an index file from (fingerprint, id) pairs added in any number of calls.

        b = simdex.Builder(k=3)
        b.add(fingerprints)            # ids: 0, 1, 2, ... in the order added
        b.add(more, ids=more_ids)
        b.write("docs.sdx")            # atomic: temporary file, fsync, rename

    k: the largest Hamming distance queries may ask for (the CLI's -k).
    scheme: None or "auto" (chosen for the data), "paper-4/10/16/20" or "blocks-M".
    block_bytes: block size, a multiple of 8 in 32..1048576.
    memory: bound on the build's memory in bytes (0: a quarter of RAM); beyond it the pairs are
        sorted in temporary files.
    threads: worker threads (0: all cores). temp_dir: where the sort's temporary files go (default:
        the system's temporary directory, $TMPDIR: a Builder sorts as pairs come, before it knows
        its output; simdex.build puts them beside the output). direct_io: "on" writes the tables
        and ids straight to the disk (O_DIRECT: less CPU, the page cache left to other files, the
        file read from the disk by its first queries; for a file shipped elsewhere), "off" through
        the page cache, "auto" (default) directly once the file would take a quarter of memory, as
        the CLI's build --direct-io. The same pairs give the same bytes, whatever their order and
        direct_io. One write per Builder.
    """

    def __init__(self, k=3, scheme=None, block_bytes=256, memory=0, threads=0, temp_dir=None,
                 direct_io="auto"):
        if self._constructed:  # pybind11 would ignore it: the Builder would keep its old options
            raise TypeError("this simdex.Builder is made already: make a new one")
        if not isinstance(direct_io, str):
            raise TypeError(f"direct_io must be 'auto', 'on' or 'off', not {type(direct_io).__name__}")
        super().__init__(k=_count(k, "k"), scheme=scheme, block_bytes=_count(block_bytes, "block_bytes"),
                         memory=_count(memory, "memory", below=2**63), threads=_count(threads, "threads"),
                         temp_dir=_optional_path(temp_dir), direct_io=direct_io)

    def add(self, fingerprints, ids=None):
        """Adds fingerprints (array-like of unsigned 64-bit ints) with their ids (same length);
        without ids, each gets its position among all pairs added (pairs_added, +1, ...).
        An add stopped by Ctrl-C (KeyboardInterrupt) leaves the Builder holding part of the pairs:
        it refuses to go on (UsageError), so that none is added twice; make a new one."""
        fps = _u64(fingerprints, "fingerprints")
        self._add(fps, None if ids is None else _u64(ids, "ids"))

    def write(self, path, progress=None):
        """Writes the index to `path` atomically (temporary file, fsync, rename) and returns a
        BuildSummary; on failure `path` is untouched. A Builder writes once. progress: a
        callable(stage, done, total) called as the stages ("sort", "merge", "tables") advance."""
        return super().write(_path(path), _progress(progress))

    def __reduce__(self):  # every protocol (0 and 1 aborted the interpreter inside pybind11)
        raise TypeError("cannot pickle a simdex.Builder: its pairs live in this process; write() the "
                        "index and pass its path (or the opened Index) instead")

    def __repr__(self):
        try:
            if self.written:
                state = "written"
            elif self._stopped:
                state = f"{self._stopped}; make a new Builder"
            elif self._spent:
                state = "write failed; make a new Builder"
            else:
                state = f"{self.pairs_added} pairs"
        except TypeError:  # made by Builder.__new__ alone
            return "<simdex.Builder (not initialized)>"
        return f"<simdex.Builder k={self.k}: {state}>"


def build(path, fingerprints, ids=None, k=3, scheme=None, block_bytes=256, memory=0, threads=0,
          temp_dir=None, progress=None, direct_io="auto"):
    """Writes an index file of `fingerprints` (with `ids`, by default their positions) to `path`,
    atomically, and returns a BuildSummary. The options are Builder's, but temporary files go
    beside the output unless temp_dir says otherwise (as the CLI's build):

        simdex.build("docs.sdx", simdex.fingerprint(texts), k=3)
    """
    if temp_dir is None:
        temp_dir = _os.path.dirname(_os.path.abspath(_path(path)))
        if not _os.path.isdir(temp_dir):  # said of the output, not of a temporary directory
            missing = not _os.path.exists(temp_dir)
            raise _make_error(f"cannot write {_path(path)}: '{temp_dir}' "
                              f"{'does not exist' if missing else 'is not a directory'}",
                              "io", _errno.ENOENT if missing else _errno.ENOTDIR)
    b = Builder(k=k, scheme=scheme, block_bytes=block_bytes, memory=memory, threads=threads,
                temp_dir=temp_dir, direct_io=direct_io)
    try:
        b.add(fingerprints, ids)
        return b.write(path, progress)
    finally:  # the sort's files removed now, not when a traceback that holds this frame goes
        b._discard()


class Index(_simdex.Index):
    """An open index file (memory-mapped, read-only). Make one with simdex.open(path).

    query(fp, k=None)       stored fingerprints within k bits of fp: [Hit(fingerprint, distance, ids)]
    join(fps, k=None, ...)  the same for many queries at once, on all cores: Matches of arrays
    pairs(k=None)           every pair of stored fingerprints within k: Pairs of arrays
    clusters(k=None, ...)   connected groups of near-duplicates: [Cluster(fingerprints, ids)]
    ids_of(fp)              the ids stored with fp (uint64 array; empty if fp is not stored)
    info                    dict of the file's scheme, counts and sizes (as `simdex info --json`)
    reopen()                a new Index over the path's current contents (a set's newest manifest)
    verify()                reads every byte, checks every rule: VerifyReport

    k=None means the index's k (index.k); more than it raises UsageError. Share one Index among
    threads freely; close() (or a with block) unmaps the file once the calls in flight are done.
    """

    def __init__(self, *args, **kwargs):
        if self._constructed:  # pybind11 would ignore it: the Index would stay on its old file
            raise TypeError("this simdex.Index is open already: open another with simdex.open()")
        if args and not isinstance(args[0], _simdex.Index):
            args = (_path(args[0]),) + args[1:]  # a pathlib.Path, bytes: as open() takes them
        super().__init__(*args, **kwargs)

    def ids_of(self, fingerprint):
        """The ids stored with `fingerprint`, ascending (np.uint64; empty when it is not stored)."""
        return self._ids_of(fingerprint)

    def join(self, fingerprints, k=None, ids=None, threads=0, force=False, progress=None):
        """Every (query, stored fingerprint) pair within k bits, on `threads` threads (0: all cores).

        fingerprints: array-like of uint64 queries; ids: optional ids for them (query_id).
        force: run even when the estimated work exceeds the default limit, or the rows would not
        fit in half the memory the process may have (about 100 bytes a row): WorkLimitError
        otherwise. progress: a callable(stage, done, total), stage "join", called a few times a
        second. Returns Matches(query, query_id, fingerprint, distance, id), numpy arrays, one row
        per stored id of each hit, sorted by (query, distance, fingerprint, id).
        """
        fps = _u64(fingerprints, "fingerprints")
        qids = None if ids is None else _u64(ids, "ids")
        return Matches(*self._join(fps, qids, _count(k, "k", True), _count(threads, "threads"),
                                   _flag(force, "force"), _progress(progress)))

    query_many = join

    def pairs(self, k=None, threads=0, force=False, progress=None):
        """Every pair (a, b), a < b, of distinct stored fingerprints within k bits: Pairs(a, b,
        distance) of numpy arrays sorted by (a, b). `simdex pairs` computes the same. progress: a
        callable(stage, done, total), stage "pairs", called a few times a second. force: as join's
        (the work limit, and the rows' bound of half the process's memory, about 70 bytes a row)."""
        return Pairs(*self._pairs(_count(k, "k", True), _count(threads, "threads"), _flag(force, "force"),
                                  _progress(progress)))

    def clusters(self, k=None, min_size=2, size_in_ids=False, threads=0, force=False, progress=None):
        """The connected components of the "within k bits" graph of the stored fingerprints, as
        `simdex clusters` finds them: a list of Cluster(fingerprints, ids). Clusters with fewer
        than min_size fingerprints (ids, with size_in_ids=True) are left out. To deduplicate,
        use size_in_ids=True (a fingerprint shared by several documents is then a cluster too),
        keep one id per cluster and drop the others. progress: as pairs' (stage "clusters")."""
        found = self._clusters(_count(k, "k", True), _count(min_size, "min_size"), _flag(size_in_ids, "size_in_ids"),
                               _count(threads, "threads"), _flag(force, "force"), _progress(progress))
        return [Cluster(f, i) for f, i in found]

    def reopen(self):
        """A new Index over what the path names now: an index set's newest manifest (its members
        already open are shared, not mapped again) or the file now at the path (one replaced by
        rename). This Index stays open and unchanged (a snapshot); close it when done."""
        index = Index(reopen=self)
        index._reopen_with = getattr(self, "_reopen_with", None)
        return index

    def __contains__(self, fingerprint):
        return len(self._ids_of(fingerprint)) > 0

    def __enter__(self):
        if self.closed:  # as a closed file's: a with block must not begin on nothing
            raise UsageError(f"{self!r} is closed: open it again with simdex.open()")
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __reduce__(self):  # pickled (multiprocessing spawn): reopened by path in the other process
        if self.closed:
            raise UsageError(f"cannot pickle {self!r}: it is closed")
        # By the absolute path it was opened by (another process may have another working
        # directory), with the same options, and what it holds: a process that unpickles it after
        # the path was given another index (a file replaced, a set changed) must not answer from that
        # one while the others answer from this snapshot.
        args = getattr(self, "_reopen_with", None) or (self._absolute_path, self.detect_changes, None)
        return (_unpickle_index, (args, self.checksum))


def _unpickle_index(args, checksum):
    """A pickled Index: open(*args), which must hold the index pickled (Index.checksum)."""
    index = open(*args)
    if index.checksum != checksum:
        now = index.checksum
        index.close()
        raise FileChangedError(
            f"{args[0]!r} holds another index than the one pickled (checksum 0x{now:016x}, pickled "
            f"0x{checksum:016x}): it was replaced, or the set changed, since. Pickle a reopen() of it")
    return index


key_id = _simdex.key_id


class KeyMap(_simdex.KeyMap):
    __doc__ = _simdex.KeyMap.__doc__

    def __init__(self, path):
        path = _path(path)
        super().__init__(path)
        self._absolute_path = _os.path.abspath(path)

    def keys_of(self, ids):
        """The keys of `ids` (array-like of uint64), in order: a list of str, None where an id has none."""
        return super().keys_of(_u64(ids, "ids"))

    def __iter__(self):
        """The ids that have a key, ascending (as a dict iterates its keys), read as it goes."""
        return (i for i, _ in self.items())

    def __reduce__(self):  # every protocol (0 and 1 aborted the interpreter inside pybind11)
        # Pickled (multiprocessing spawn): mapped again by its absolute path in the other process.
        # An id is its key's hash, so a map put there since (an add extends the set's) gives every
        # id the key this one gives it.
        return (KeyMap, (self._absolute_path,))

    def __repr__(self):
        return f"simdex.KeyMap({self._absolute_path!r})"


def open(path, detect_changes=True, preload=None):
    """Opens the index file or index set at `path` (memory-mapped; O(1) in the file's size) and
    returns an Index. A set (spec/SET.md; simdex.add, remove, merge) answers as one index over its
    live pairs, a snapshot until reopen().

        with simdex.open("docs.sdx") as index:
            for hit in index.query(0x1234ABCD5678EF00, k=3):
                print(hit.fingerprint, hit.distance, hit.ids)

    Raises FileError (an OSError) when the file cannot be read and FormatError when it is not a
    valid index (bad_magic, header_checksum, ...: the .code names the spec's rule).
    detect_changes: notice a file truncated or overwritten in place while open (FileChangedError)
    instead of dying of SIGBUS; it installs simdex's SIGBUS handler (again over one put in since,
    such as faulthandler.enable()'s, which then gets the signals that are not simdex's).
    preload: None (default: each page is read when first needed), "keys" (every table's block keys)
    or "all" (the whole file), loaded before open returns, so that the first queries of a new
    process are as fast as later ones.
    """
    detect_changes = _flag(detect_changes, "detect_changes")
    if not (preload is None or isinstance(preload, str)):
        raise UsageError(f"preload must be None, 'keys' or 'all', not {preload!r}")
    index = Index(_path(path), detect_changes, preload)
    index._reopen_with = (index._absolute_path, detect_changes, preload)
    return index


DedupCluster = _namedtuple("DedupCluster", "documents kept keys distances fingerprints ids lines")
DedupCluster.__doc__ = """One cluster of near-duplicates found by simdex.dedup, members in input order.
documents: the members' positions among the input's documents (int64 array); kept: the position
of the document kept; keys: the members' string keys (None for a member without one), or None when
no member has a key; distances: Hamming distance of each member's fingerprint to the kept one's
(int32; may exceed k through other members); fingerprints, ids (uint64): each member's; lines:
each member's 1-based line in the input (uint64; 0 for a directory's file)."""


class DedupResult:
    """What simdex.dedup found: which documents to keep, which to drop, and the clusters.

    keep: positions of the documents kept, ascending (np.int64): every document outside the
        clusters and one per cluster; removed: the others, ascending (np.int64);
    clusters: [DedupCluster], in input order of their first members;
    documents: how many documents the input held; k, keep_policy: the settings used;
    without_words: positions of the documents whose text has no words (emoji, punctuation, empty:
        all have the fingerprint 0, whatever they hold), ascending (np.int64): kept, compared with
        none (a text of a few words may get 0 too, rarely);
    output: the file written, or None.
    """

    __slots__ = ("documents", "removed", "clusters", "k", "keep_policy", "without_words", "output", "_keep")

    def __init__(self, documents, removed, k, keep_policy, clusters, without_words, output):
        self.documents = documents
        self.removed = removed
        self.k = k
        self.keep_policy = keep_policy
        self.clusters = [DedupCluster(*c) for c in clusters]
        self.without_words = without_words
        self.output = output
        self._keep = None

    def __reduce__(self):  # every protocol (__slots__ alone pickles only with 2 and above)
        return (DedupResult, (self.documents, self.removed, self.k, self.keep_policy, self.clusters,
                              self.without_words, self.output))

    @property
    def keep(self):
        if self._keep is None:
            kept = _np.ones(self.documents, dtype=bool)
            kept[self.removed] = False
            self._keep = _np.flatnonzero(kept).astype(_np.int64)
            self._keep.flags.writeable = False  # computed once: a change to it would change the result
        return self._keep

    def __repr__(self):
        wrote = f", wrote {self.output!r}" if self.output is not None else ""
        return (f"<simdex.DedupResult: {_counted(self.documents, 'document')}, "
                f"{_counted(len(self.clusters), 'cluster')} "
                f"(k={self.k}, keep={self.keep_policy!r}): kept {self.documents - len(self.removed)}, "
                f"removed {len(self.removed)}{self._without_words_note()}{wrote}>")

    def _without_words_note(self):
        n = len(self.without_words)
        return f" ({n} without words kept)" if n else ""


def _counted(n, noun):
    """ "1 cluster", "2 clusters": as the CLI's summaries count."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _repaired(text):
    """`text` (str or bytes) as a str of valid UTF-8, so that the fingerprint is the one
    fingerprint() gives the original: a str's surrogates read as fingerprint() reads them (a pair
    is its code point, a surrogate escape its byte, another one U+FFFD), then ill-formed bytes
    replaced by U+FFFD as spec/FINGERPRINT.md step 1 replaces them (Python's decoder follows the
    same practice)."""
    if isinstance(text, str):
        try:
            text.encode("utf-8")
            return text
        except UnicodeEncodeError:
            text = text.encode("utf-8", "simdex.surrogates")
    return text.decode("utf-8", "replace")


def _spool_texts(texts, spool):
    """Writes texts to the binary file spool as JSON Lines {"text": ...}: line i is document i, as
    the library's find_duplicates over texts numbers them. The lines become dedup's output: valid
    UTF-8 (_repaired), as JSON must be."""
    lines = []
    for i, t in enumerate(texts):
        if not isinstance(t, (str, bytes)):
            raise TypeError(f"texts must hold str (or UTF-8 bytes); item {i} is {type(t).__name__}")
        line = _json.dumps(_repaired(t), ensure_ascii=False).encode("utf-8")
        lines.append(b'{"text":' + line + b"}\n")
        if len(lines) >= 4096:
            spool.writelines(lines)
            lines.clear()
    spool.writelines(lines)


def dedup(source, output=None, *, k=DOCUMENT_K, keep="first", shingle=3, weighting="frequency",
          stopwords=None, input_format="auto", id_field="id", text_field="text", index=None, memory=None,
          threads=0, temp_dir=None, progress=None):
    """Finds the near-duplicate documents of a dataset and keeps one of each cluster: the engine,
    defaults and answers of `simdex dedup` (fingerprints on all cores, an index, the clusters within
    k bits, one document kept per cluster). Returns a DedupResult:

        result = simdex.dedup(df["text"])                # any iterable of str: document i = texts[i]
        clean = df.iloc[result.keep]                      # one per cluster, and every loner
        result = simdex.dedup("crawl.jsonl.zst", "clean.jsonl.zst", id_field="url", keep="longest")
        for c in result.clusters:
            print(c.kept, c.documents, c.keys, c.distances)

    Documents without words (emoji, punctuation or empty texts: all have the fingerprint 0,
    whatever they hold) are kept and compared with none: result.without_words lists them.

    source: a path (str or PathLike) read as the CLI reads it: JSON Lines (plain, .gz, .zst),
        plain lines or a directory of text files ("-": standard input); or an iterable of str
        or UTF-8 bytes (a list, a pandas Series, a datasets column, a generator): document i is
        the i-th text, read once, in batches (Ctrl-C stops between them); with `output` the
        texts are first copied to a temporary JSON Lines file (in temp_dir).
    output: where to write the dataset without the dropped documents, atomically (None: write
        nothing). A file source gives its kept lines unchanged, in input order (.gz/.zst:
        compressed so); a directory the kept files' paths; texts JSON Lines {"text": ...} (a
        text that is not valid UTF-8 written repaired, U+FFFD for each ill-formed part, as
        fingerprint() reads it).
    k: documents whose fingerprints differ in at most k bits (0..32) are near-duplicates;
        DOCUMENT_K (7) is the README's choice for documents.
    keep: which document of a cluster is kept: "first" (in input order), "longest" or
        "shortest" (KEEP_POLICIES); ties go to the first.
    shingle, weighting, stopwords: the fingerprint's settings, as simdex.fingerprint takes them.
    input_format ("auto", "jsonl", "lines" or "dir"), id_field, text_field: how a file source
        holds its documents (the CLI's --input-format, --id-field, --text-field); a string id is a
        key (DedupCluster.keys), a record without one gets its line number.
    index: keep the index of the documents at this path (its key map beside it); None: a
        temporary one. memory: bound in bytes on the fingerprinting and the index build (None: a
        quarter of RAM); the clustering needs about 90 bytes per document beside it. threads: 0
        uses all cores. temp_dir: where temporary files go (the index, sort runs; None: the
        system's temporary directory). progress: a callable(stage, done, total) called a few
        times a second ("reading" bytes of a file, "fingerprinting" texts, the build's stages,
        "clusters"); an exception it raises stops the work (an index= kept before it clustered
        stays).

    The GIL is released while simdex works. Raises UsageError (bad k, keep, format, ...),
    InputError (a malformed record, naming its line), FileError (a file that cannot be read or
    written).
    """
    k = _count(k, "k", below=33)
    memory = _count(memory, "memory", optional=True, below=2**63)
    args = dict(k=k, keep=keep, shingle=_count(shingle, "shingle", least=1, below=17), weighting=weighting,
                stopwords=_stopword_list(stopwords), index=_optional_path(index), memory=memory or 0,
                threads=_count(threads, "threads"),
                temp_dir=_optional_path(temp_dir), progress=_progress(progress))
    output = _optional_path(output)
    if isinstance(source, (str, bytes, _os.PathLike)):
        raw = _simdex.dedup_file(_path(source), output, input_format=input_format, id_field=id_field,
                                 text_field=text_field, **args)
        return DedupResult(*raw, output)
    if (input_format, id_field, text_field) != ("auto", "id", "text"):
        raise UsageError("input_format, id_field and text_field describe a file source; with texts, "
                         "document i is texts[i]")
    if not hasattr(source, "__iter__"):
        raise TypeError(f"source must be a path or an iterable of str, not {type(source).__name__}")
    if output is None:  # the texts go to the library in batches, as they come
        return DedupResult(*_simdex.dedup_texts(source, **args), None)
    # The output holds the kept texts: they are read twice, so they go through a JSON Lines file.
    # The settings and the output's directory checked before the texts are read (an iterable is
    # read once): a run over no texts checks what a run over them would.
    _simdex.dedup_texts(iter(()), **dict(args, index=None))
    out_dir = _os.path.dirname(_os.path.abspath(output))
    if not _os.path.isdir(out_dir):
        raise FileError(f"cannot write {output}: directory '{out_dir}' does not exist")
    # (The library's own temporary file: removed on a signal, at exit, or by the next run if killed.)
    spool = _simdex.dedup_spool(args["temp_dir"])
    try:
        try:
            with _builtins.open(spool.path, "wb") as f:  # (open: simdex.open, an Index)
                _spool_texts(source, f)
        except OSError as e:  # a full temp_dir: a simdex error as the library's own writes give
            if isinstance(e, Error):
                raise
            error = FileError(f"cannot write the texts' temporary file '{spool.path}': {e.strerror}")
            error.errno = e.errno
            raise error from e
        raw = _simdex.dedup_file(spool.path, output, input_format="jsonl", id_field="id", text_field="text",
                                 **args)
    finally:
        spool.close()
    return DedupResult(*raw, output)


def add(set_path, fingerprints, ids=None, k=None, block_bytes=None, merge=True, wait=True, memory=0, threads=0,
        temp_dir=None, progress=None):
    """Adds (fingerprint, id) pairs to the index set at `set_path` (spec/SET.md) as a new member,
    published atomically (a new manifest by rename: open Index objects keep their snapshot; see
    Index.reopen). Creates the set on the first add. Returns a SetChange.

        simdex.add("docs.sdxs", fps, ids=doc_ids, k=3)   # a new set, or a member more
        simdex.remove("docs.sdxs", [7, 9])               # ids 7 and 9 are no longer live
        simdex.merge("docs.sdxs")                        # one member, removed ids dropped
        with simdex.open("docs.sdxs") as s: s.query(fp)  # a set answers as an index file

    ids: one per fingerprint; None gives positions 0, 1, ... and only for a new set (an existing
    set refuses it: UsageError); no fingerprints leave an existing set as it is (the SetChange names
    its generation and no file). k, block_bytes: the set's (None: the set's, or 3 and 256 for a new
    one); another k than the set's raises UsageError. merge: then merge members of similar size
    (size-tiered), keeping the member count logarithmic. wait: wait for another writer's lock
    (False: FileError at once). memory, threads, temp_dir: as Builder's, for the writes;
    progress: as Builder.write's (stage "lock" while waiting for another writer; the stages start
    again for the merge). Stopped (Ctrl-C, progress) during that merge, the new member stays
    published: the add is done, the merge is left to the next add or merge. A merge that fails
    (a full disk) does not raise, as the pairs are in and a retry would add them twice: a
    RuntimeWarning says why, and the SetChange's merge_failure.
    """
    fps = _u64(fingerprints, "fingerprints")
    return _simdex.set_add(_path(set_path), fps, None if ids is None else _u64(ids, "ids"),
                           _count(k, "k", optional=True), _count(block_bytes, "block_bytes", optional=True),
                           _flag(merge, "merge"), _flag(wait, "wait"), _count(memory, "memory", below=2**63),
                           _count(threads, "threads"), _optional_path(temp_dir), _progress(progress))


def remove(set_path, ids, wait=True):
    """Removes `ids` (array-like of uint64) from the index set at `set_path`: a tombstone,
    published atomically; their pairs are no longer live (an id added again later is). Returns a
    SetChange. No ids leave the set as it is (the SetChange names its generation and no file).
    FileError when there is no set there."""
    return _simdex.set_remove(_path(set_path), _u64(ids, "ids"), _flag(wait, "wait"))


def merge(set_path, wait=True, memory=0, threads=0, temp_dir=None, progress=None):
    """Compacts the index set at `set_path` into one member holding exactly its live pairs and
    drops every tombstone; the answers do not change. Returns a SetChange. progress: as
    Builder.write's."""
    return _simdex.set_merge(_path(set_path), _flag(wait, "wait"), _count(memory, "memory", below=2**63),
                             _count(threads, "threads"), _optional_path(temp_dir), _progress(progress))
