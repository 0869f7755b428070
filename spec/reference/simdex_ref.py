#!/usr/bin/env python3
"""Independent reference reader and writer for simdex index files (spec/FORMAT.md, version 2.2, and the
2.1, 2.0 and 1.x files it reads) and index sets
(spec/SET.md: open_set, set_query, set_info; `info`, `query` and `verify` below take a set too).

Written from spec/FORMAT.md alone, with the Python 3.11 standard library only. It is slow and
simple on purpose: its job is to say what the spec says, so that the C++ reader can be checked
against it.

    python3 simdex_ref.py verify INDEX
    python3 simdex_ref.py info INDEX [--json]
    python3 simdex_ref.py query INDEX [-k K] [--json] [--method brute|probe|both] [FP ...]
    python3 simdex_ref.py dump INDEX [--table T]      # decoded entries, one per line

Library:
    idx = open_index(path)          # checks every open rule of §10, raises SimdexError
                                    # (also available as simdex_ref.open(path))
    problems = verify(path)         # [(rule, where, what)], [] when the file is good
    query(idx, F, k)                # brute force over table 0: [(f, distance, [ids])]
    query_probe(idx, F, k)          # the table probes of §9 (through BLOCK_DIRECTORY where a
                                    # table has one, else by searching BLOCK_KEYS)
    info(idx)                       # dict: scheme, k, n, id_count, block_bytes, file_bytes,
                                    # tables [{prefix_bits, block_count, bytes, directory_bits}],
                                    # directory_bits (None without BLOCK_DIRECTORY), ... (also the
                                    # spec's names that C++ `info --json` prints: scheme_name,
                                    # max_distance, fingerprint_count, id_count; older aliases
                                    # fingerprints, ids, blocks)
    build_bytes(pairs, tables, ...) # a whole file by the writer rules (2.2 with BLOCK_DIRECTORY by
                                    # default; directory=False or directory_bits=[...] otherwise)
    rebuild(idx)                    # build_bytes of an opened file's pairs, tables and sections
    upgrade_bytes(data)             # §12 `simdex upgrade`: a 1.x, 2.0 or 2.1 file as 2.2
"""

import builtins
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xxh3 import xxh3_64, checksum32  # noqa: E402

M64 = (1 << 64) - 1
MAGIC = b"\x89SDX\r\n\x1a\n"
HEADER_BYTES = 128
DESCRIPTOR_BYTES = 160
SECTION_ENTRY_BYTES = 32
MAX_CODE_LENGTH = 12
MAX_TABLES = 4096
MIN_BLOCK_BYTES = 32
MAX_BLOCK_BYTES = 1048576
NO_TABLE = 0xFFFFFFFF

BLOCKS, BLOCK_KEYS, BLOCK_RANKS, ID_OFFSETS, IDS = 1, 2, 3, 4, 5
KIND_NAMES = {BLOCKS: "BLOCKS", BLOCK_KEYS: "BLOCK_KEYS", BLOCK_RANKS: "BLOCK_RANKS",
              ID_OFFSETS: "ID_OFFSETS", IDS: "IDS"}

TAGGED_ENTRY_BYTES = 32
MAX_TAGGED_SECTIONS = 1024
TAG_CRITICAL = 1
FINGERPRINT_SETTINGS = 1
BLOCK_DIRECTORY = 2
TAG_NAMES = {FINGERPRINT_SETTINGS: "FINGERPRINT_SETTINGS",  # the tags §5.1 assigns
             BLOCK_DIRECTORY: "BLOCK_DIRECTORY"}
MAX_SETTINGS_BYTES = 1 << 20
MAX_DIRECTORY_BITS = 32                   # §5.3: 0 <= d_t <= 32
MAX_DIRECTORY_BLOCK_COUNT = (1 << 32) - 1  # §5.3: d_t > 0 only when block_count_t <= 2^32 - 1
WRITER_MAX_DIRECTORY_BITS = 18            # §5.3: the most d_t the writer chooses (since 2.2)
WRITER_VERSION_MINOR = 2                  # §12: the writer writes 2.2

OPEN_RULES = ["file_too_small", "bad_magic", "unsupported_version", "file_size_mismatch",
              "bad_header_field", "header_checksum", "reserved_nonzero", "bad_permutation",
              "bad_code_lengths", "section_layout", "tag_order", "unknown_critical_section",
              "bad_tagged_section"]
VERIFY_RULES = ["section_checksum", "block_checksum", "bad_block", "keys_order", "block_ranks",
                "table_mismatch", "bad_ids", "bad_tagged_section", "coverage"]
COVERAGE_BUDGET = 10_000_000  # search steps before `coverage` is reported unchecked (§10)


class SimdexError(Exception):
    """A broken rule of spec §10: .rule is the rule name, .detail says what."""

    def __init__(self, rule, detail=""):
        super().__init__("%s: %s" % (rule, detail))
        self.rule = rule
        self.detail = detail


# --------------------------------------------------------------------------------------------
# Permutations (§4): bit j of pi(x) is bit source_bit[j] of x.

class Permutation:
    def __init__(self, source_bit):
        self.source_bit = list(source_bit)
        # Byte-wise lookup tables: forward[b][v] = contribution of byte b of x having value v.
        fwd = [[0] * 256 for _ in range(8)]
        inv = [[0] * 256 for _ in range(8)]
        for j, s in enumerate(self.source_bit):
            # forward: bit s of x goes to bit j; inverse: bit j of e goes to bit s.
            for v in range(256):
                if (v >> (s & 7)) & 1:
                    fwd[s >> 3][v] |= 1 << j
                if (v >> (j & 7)) & 1:
                    inv[j >> 3][v] |= 1 << s
        self._fwd = fwd
        self._inv = inv

    def apply(self, x):
        f = self._fwd
        return (f[0][x & 255] | f[1][(x >> 8) & 255] | f[2][(x >> 16) & 255]
                | f[3][(x >> 24) & 255] | f[4][(x >> 32) & 255] | f[5][(x >> 40) & 255]
                | f[6][(x >> 48) & 255] | f[7][x >> 56])

    def invert(self, e):
        f = self._inv
        return (f[0][e & 255] | f[1][(e >> 8) & 255] | f[2][(e >> 16) & 255]
                | f[3][(e >> 24) & 255] | f[4][(e >> 32) & 255] | f[5][(e >> 40) & 255]
                | f[6][(e >> 48) & 255] | f[7][e >> 56])

    def is_identity(self):
        return self.source_bit == list(range(64))


# --------------------------------------------------------------------------------------------
# Huffman code of h (§7)

def code_lengths_legal(lengths, n):
    """None if legal per §7, else a description of what is wrong."""
    for h, length in enumerate(lengths):
        if length > MAX_CODE_LENGTH:
            return "code_length[%d] = %d > %d" % (h, length, MAX_CODE_LENGTH)
    used = [h for h in range(64) if lengths[h] != 0]
    if n <= 1:
        if used:
            return "n = %d but code_length[%d] = %d (must all be 0)" % (n, used[0], lengths[used[0]])
        return None
    if not used:
        return "n = %d but every code length is 0" % n
    if len(used) == 1:
        if lengths[used[0]] != 1:
            return "single symbol %d with length %d (must be 1)" % (used[0], lengths[used[0]])
        return None
    kraft = sum(1 << (MAX_CODE_LENGTH - lengths[h]) for h in used)
    if kraft > 1 << MAX_CODE_LENGTH:
        return "over-subscribed (Kraft sum %d/4096 > 1)" % kraft
    if kraft < 1 << MAX_CODE_LENGTH:
        return "under-subscribed (Kraft sum %d/4096 < 1)" % kraft
    return None


def canonical_codes(lengths):
    """code_of[h] per the canonical assignment of §7 (None where length is 0)."""
    count = [0] * (MAX_CODE_LENGTH + 1)
    for length in lengths:
        if length:
            count[length] += 1
    next_code = [0] * (MAX_CODE_LENGTH + 2)
    code = 0
    for length in range(1, MAX_CODE_LENGTH + 1):
        code = (code + count[length - 1]) << 1
        next_code[length] = code
    codes = [None] * 64
    for h in range(64):
        if lengths[h]:
            codes[h] = next_code[lengths[h]]
            next_code[lengths[h]] += 1
    return codes


def decode_table(lengths):
    """4096-entry table: peeked 12 bits -> (h, length), or None if no code starts so."""
    table = [None] * (1 << MAX_CODE_LENGTH)
    codes = canonical_codes(lengths)
    for h in range(64):
        length = lengths[h]
        if not length:
            continue
        first = codes[h] << (MAX_CODE_LENGTH - length)
        for v in range(first, first + (1 << (MAX_CODE_LENGTH - length))):
            table[v] = (h, length)
    return table


def writer_code_lengths(entries):
    """The writer's choice of code lengths (§7, normative for byte-identical output)."""
    import heapq
    freq = [0] * 64
    for a, b in zip(entries, entries[1:]):
        freq[(a ^ b).bit_length() - 1] += 1
    while True:
        lengths = [0] * 64
        symbols = [h for h in range(64) if freq[h]]
        if len(symbols) == 1:
            lengths[symbols[0]] = 1
            return lengths
        if not symbols:
            return lengths
        heap = [(freq[h], h, None) for h in symbols]
        heapq.heapify(heap)
        children = {}
        order = 64
        while len(heap) > 1:
            w1, o1, _ = heapq.heappop(heap)
            w2, o2, _ = heapq.heappop(heap)
            children[order] = (o1, o2)
            heapq.heappush(heap, (w1 + w2, order, None))
            order += 1
        # depths
        stack = [(heap[0][1], 0)]
        while stack:
            node, depth = stack.pop()
            if node < 64:
                lengths[node] = depth
            else:
                left, right = children[node]
                stack.append((left, depth + 1))
                stack.append((right, depth + 1))
        if max(lengths) <= MAX_CODE_LENGTH:
            return lengths
        freq = [(f + 1) // 2 if f else 0 for f in freq]


# --------------------------------------------------------------------------------------------
# Opening (§10 open rules)

def _u16(b, o):
    return struct.unpack_from("<H", b, o)[0]


def _u32(b, o):
    return struct.unpack_from("<I", b, o)[0]


def _u64(b, o):
    return struct.unpack_from("<Q", b, o)[0]


class Table:
    pass


class Section:
    def __init__(self, i, kind, table, offset, nbytes, checksum):
        self.index, self.kind, self.table = i, kind, table
        self.offset, self.bytes, self.checksum = offset, nbytes, checksum

    def describe(self):
        owner = ("of table %d" % self.table) if self.kind in (BLOCKS, BLOCK_KEYS, BLOCK_RANKS) else ""
        return "section %d (%s%s, offset %d)" % (self.index, KIND_NAMES.get(self.kind, "?"),
                                                 " " + owner if owner else "", self.offset)


class TaggedSection:
    def __init__(self, i, tag, flags, offset, nbytes, checksum):
        self.index, self.tag, self.flags = i, tag, flags
        self.offset, self.bytes, self.checksum = offset, nbytes, checksum

    def describe(self):
        return "tagged section %d (tag %d%s, offset %d)" % (
            self.index, self.tag, " " + TAG_NAMES[self.tag] if self.tag in TAG_NAMES else "", self.offset)


def decode_fingerprint_settings(b):
    """FINGERPRINT_SETTINGS (§5.2) -> dict; raises SimdexError('bad_tagged_section')."""
    def bad(why):
        raise SimdexError("bad_tagged_section", "FINGERPRINT_SETTINGS: " + why)
    if len(b) > MAX_SETTINGS_BYTES:
        bad("more than 1 MiB")
    if len(b) < 16:
        bad("%d bytes, fewer than 16" % len(b))
    version, shingle, weighting, r1, count, r2 = struct.unpack_from("<IBBHII", b, 0)
    if not 1 <= shingle <= 16:
        bad("shingle_size %d" % shingle)
    if weighting > 1:
        bad("weighting %d" % weighting)
    if r1 or r2:
        bad("reserved bytes not zero")
    at, words = 16, []
    for i in range(count):
        if at + 4 > len(b):
            bad("stopword %d runs past the section" % i)
        length = _u32(b, at)
        at += 4
        if length == 0 or at + length > len(b):
            bad("stopword %d is empty or runs past the section" % i)
        word = bytes(b[at:at + length])
        at += length
        if words and word <= words[-1]:
            bad("stopword %d is not above the previous one" % i)
        words.append(word)
    if len(b) != _pad8(at) or any(b[at:]):
        bad("%d bytes, the entries end at %d; padding must be zero and below 8 bytes" % (len(b), at))
    return {"fingerprint_version": version, "shingle_size": shingle,
            "weighting": "binary" if weighting else "frequency",
            "stopwords": [w.decode("utf-8", "replace") for w in words]}


def encode_fingerprint_settings(settings):
    """The bytes of FINGERPRINT_SETTINGS for a dict as decode_fingerprint_settings returns."""
    words = sorted(set(w.encode("utf-8") for w in settings.get("stopwords", [])))
    body = struct.pack("<IBBHII", settings.get("fingerprint_version", 1), settings["shingle_size"],
                       1 if settings.get("weighting") == "binary" else 0, 0, len(words), 0)
    for w in words:
        body += struct.pack("<I", len(w)) + w
    return body + bytes(_pad8(len(body)) - len(body))


# BLOCK_DIRECTORY (§5.3)

def writer_directory_bits(block_count):
    """How simdex chooses d_t (§5.3, normative for byte-identical output): min(floor(log2(block_count)),
    18) when 2 <= block_count <= 2^32 - 1, else 0."""
    if 2 <= block_count <= MAX_DIRECTORY_BLOCK_COUNT:
        return min(block_count.bit_length() - 1, WRITER_MAX_DIRECTORY_BITS)
    return 0


def directory_header_bytes(T):
    """H: the 8 bytes of directory_table_count and reserved, then directory_bits[T], padded to 8."""
    return _pad8(8 + T)


def slot_blocks(keys, d):
    """slot_block[s] = min { j : key[j] >= s << (64 - d) } (len(keys) when no key is), for
    s = 0 .. 2^d - 1 (§5.3). Taken literally, also for keys that do not ascend (verification of a
    broken file): the first j whose key reaches a value is the first j where the running maximum
    of the keys reaches it, and the running maximum ascends."""
    out = []
    j, top, count = 0, -1, len(keys)
    shift = 64 - d
    for s in range(1 << d):
        start = s << shift
        while top < start and j < count:
            top = max(top, keys[j])
            j += 1
        out.append(j - 1 if top >= start else count)
    return out


def encode_block_directory(directory_bits, keys_per_table):
    """The bytes of BLOCK_DIRECTORY for the tables' d_t and their BLOCK_KEYS (lists of ints)."""
    T = len(directory_bits)
    assert len(keys_per_table) == T
    body = struct.pack("<II", T, 0) + bytes(directory_bits)
    body += bytes(directory_header_bytes(T) - len(body))
    for d, keys in zip(directory_bits, keys_per_table):
        if not 0 <= d <= MAX_DIRECTORY_BITS or (d and len(keys) > MAX_DIRECTORY_BLOCK_COUNT):
            raise ValueError("directory_bits %d for a table of %d blocks" % (d, len(keys)))
        if d:
            body += struct.pack("<%dI" % (1 << d), *slot_blocks(keys, d))
    return body


class Index:
    """An opened index: every open rule holds. Fields named as in the spec."""

    def __init__(self, data, path="<bytes>"):
        self.path = path
        self.data = bytes(data)
        self._open()
        self._decoded = {}

    # -- open rules, in the order of §10 --
    def _open(self):
        d = self.data
        size = len(d)
        if size < HEADER_BYTES:
            raise SimdexError("file_too_small", "%d bytes, a header needs %d" % (size, HEADER_BYTES))
        if d[0:8] != MAGIC:
            raise SimdexError("bad_magic", "first bytes %s" % d[0:8].hex())
        self.version_major = _u16(d, 8)
        self.version_minor = _u16(d, 10)
        if self.version_major not in (1, 2):
            raise SimdexError("unsupported_version", "version_major = %d" % self.version_major)
        self.flags = _u32(d, 12)
        self.file_bytes = _u64(d, 16)
        if self.file_bytes != size:
            raise SimdexError("file_size_mismatch",
                              "file_bytes = %d, file size %d" % (self.file_bytes, size))
        self.n = _u64(d, 24)
        self.id_count = _u64(d, 32)
        self.table_count = T = _u32(d, 40)
        self.section_count = _u32(d, 44)
        if not 1 <= T <= MAX_TABLES:
            raise SimdexError("bad_header_field", "table_count = %d not in [1, %d]" % (T, MAX_TABLES))
        if self.section_count != 3 * T + 2:
            raise SimdexError("bad_header_field", "section_count = %d, 3*T + 2 = %d"
                              % (self.section_count, 3 * T + 2))
        # 2.x: the section directory's size; 1.x: bytes 88..91 are reserved (checked below), E = 0.
        self.tagged_section_count = E = _u32(d, 88) if self.version_major == 2 else 0
        if E > MAX_TAGGED_SECTIONS:
            raise SimdexError("bad_header_field", "tagged_section_count = %d > %d" % (E, MAX_TAGGED_SECTIONS))
        S = self.section_count
        self.R = R = HEADER_BYTES + DESCRIPTOR_BYTES * T + SECTION_ENTRY_BYTES * S + TAGGED_ENTRY_BYTES * E
        if size < R:
            raise SimdexError("file_too_small", "%d bytes, the header region needs %d" % (size, R))
        self.header_checksum = _u64(d, 120)
        computed = xxh3_64(d[0:120] + d[128:R])
        if computed != self.header_checksum:
            raise SimdexError("header_checksum", "stored %016x, computed %016x"
                              % (self.header_checksum, computed))
        self.block_bytes = B = _u32(d, 48)
        self.max_distance = d[52]
        self.id_layout = d[53]
        name = d[56:88]
        zero = name.find(b"\x00")
        if self.flags != 0:
            raise SimdexError("reserved_nonzero", "flags = %#x" % self.flags)
        if d[54:56] != b"\x00\x00":
            raise SimdexError("reserved_nonzero", "header bytes 54..55 = %s" % d[54:56].hex())
        reserved_from = 92 if self.version_major == 2 else 88
        if any(d[reserved_from:120]):
            raise SimdexError("reserved_nonzero", "header bytes %d..119 not zero" % reserved_from)
        if zero >= 0 and any(name[zero:]):
            raise SimdexError("reserved_nonzero", "scheme_name has non-zero bytes after its first zero")
        printable = name[:zero] if zero >= 0 else name
        if any(c < 0x20 or c > 0x7E for c in printable):
            raise SimdexError("bad_header_field", "scheme_name has a non-printable byte")
        self.scheme_name = printable.decode("ascii")
        if B % 8 != 0 or not MIN_BLOCK_BYTES <= B <= MAX_BLOCK_BYTES:
            raise SimdexError("bad_header_field", "block_bytes = %d" % B)
        if self.max_distance > 64:
            raise SimdexError("bad_header_field", "max_distance = %d > 64" % self.max_distance)
        if self.id_layout not in (0, 1):
            raise SimdexError("bad_header_field", "id_layout = %d" % self.id_layout)
        n, idc = self.n, self.id_count
        if idc < n:
            raise SimdexError("bad_header_field", "id_count = %d < n = %d" % (idc, n))
        if n == 0 and idc != 0:
            raise SimdexError("bad_header_field", "n = 0 but id_count = %d" % idc)
        if self.id_layout == 1 and idc != n:
            raise SimdexError("bad_header_field", "id_layout = 1 but id_count = %d != n = %d" % (idc, n))

        # Table descriptors: every rule for table 0, then every rule for table 1, ...
        self.tables = []
        for t in range(T):
            base = HEADER_BYTES + DESCRIPTOR_BYTES * t
            tab = Table()
            tab.index = t
            tab.source_bit = list(d[base:base + 64])
            tab.code_length = list(d[base + 64:base + 128])
            tab.block_count = _u64(d, base + 128)
            tab.prefix_bits = d[base + 136]
            if any(d[base + 137:base + 160]):
                raise SimdexError("reserved_nonzero", "table %d descriptor bytes 137..159 not zero" % t)
            if tab.prefix_bits > 64:
                raise SimdexError("bad_header_field", "table %d prefix_bits = %d > 64" % (t, tab.prefix_bits))
            if sorted(tab.source_bit) != list(range(64)):
                raise SimdexError("bad_permutation", "table %d source_bit is not a permutation of 0..63" % t)
            why = code_lengths_legal(tab.code_length, n)
            if why:
                raise SimdexError("bad_code_lengths", "table %d: %s" % (t, why))
            if n == 0:
                if tab.block_count != 0:
                    raise SimdexError("bad_header_field", "table %d block_count = %d with n = 0"
                                      % (t, tab.block_count))
            elif not 1 <= tab.block_count <= n:
                raise SimdexError("bad_header_field", "table %d block_count = %d not in [1, n = %d]"
                                  % (t, tab.block_count, n))
            self.tables.append(tab)

        # Section table.
        self.sections = []
        expected_offset = R
        for i in range(S):
            base = HEADER_BYTES + DESCRIPTOR_BYTES * T + SECTION_ENTRY_BYTES * i
            kind, table = struct.unpack_from("<II", d, base)
            offset, nbytes, checksum = struct.unpack_from("<QQQ", d, base + 8)
            sec = Section(i, kind, table, offset, nbytes, checksum)
            if i < 3 * T:
                want_kind, want_table = (BLOCKS, BLOCK_KEYS, BLOCK_RANKS)[i % 3], i // 3
                per = B if want_kind == BLOCKS else 8
                want_bytes = self.tables[want_table].block_count * per
            elif i == 3 * T:
                want_kind, want_table = ID_OFFSETS, NO_TABLE
                want_bytes = (n + 1) * 8 if self.id_layout == 0 else 0
            else:
                want_kind, want_table = IDS, NO_TABLE
                want_bytes = idc * 8
            where = "section %d" % i
            if kind != want_kind or table != want_table:
                raise SimdexError("section_layout", "%s: kind %d table %#x, expected kind %d table %#x"
                                  % (where, kind, table, want_kind, want_table))
            if offset != expected_offset:
                raise SimdexError("section_layout", "%s: offset %d, expected %d (where the previous ends)"
                                  % (where, offset, expected_offset))
            if want_bytes > M64:
                raise SimdexError("section_layout", "%s: size overflows 64 bits" % where)
            if nbytes != want_bytes:
                raise SimdexError("section_layout", "%s: bytes %d, expected %d" % (where, nbytes, want_bytes))
            if offset + nbytes > size:  # Python ints: no overflow
                raise SimdexError("section_layout", "%s: [%d, %d) runs past the end of the file (%d)"
                                  % (where, offset, offset + nbytes, size))
            self.sections.append(sec)
            expected_offset = offset + nbytes
        if E == 0 and expected_offset != size:
            raise SimdexError("section_layout", "the last section ends at %d, the file at %d"
                              % (expected_offset, size))
        # Section directory (§5.1): per entry tag_order, reserved_nonzero, section_layout,
        # unknown_critical_section; then the end of the last tagged section.
        self.tagged = []
        prev_tag = None
        for i in range(E):
            base = HEADER_BYTES + DESCRIPTOR_BYTES * T + SECTION_ENTRY_BYTES * S + TAGGED_ENTRY_BYTES * i
            tag, flags, offset, nbytes, checksum = struct.unpack_from("<IIQQQ", d, base)
            where = "tagged section %d (tag %d)" % (i, tag)
            if tag == 0:
                raise SimdexError("tag_order", "%s: tag 0 is reserved" % where)
            if prev_tag is not None and tag <= prev_tag:
                raise SimdexError("tag_order", "%s: not above the previous tag %d" % (where, prev_tag))
            if flags & ~TAG_CRITICAL:
                raise SimdexError("reserved_nonzero", "%s: tag_flags = %#x" % (where, flags))
            if offset != expected_offset:
                raise SimdexError("section_layout", "%s: offset %d, expected %d" % (where, offset, expected_offset))
            if nbytes % 8:
                raise SimdexError("section_layout", "%s: %d bytes, not a multiple of 8" % (where, nbytes))
            if offset + nbytes > size:
                raise SimdexError("section_layout", "%s: runs past the end of the file" % where)
            if flags & TAG_CRITICAL and tag not in TAG_NAMES:
                raise SimdexError("unknown_critical_section", "%s: CRITICAL and unknown" % where)
            self.tagged.append(TaggedSection(i, tag, flags, offset, nbytes, checksum))
            prev_tag = tag
            expected_offset = offset + nbytes
        if E and expected_offset != size:
            raise SimdexError("section_layout", "the last tagged section ends at %d, the file at %d"
                              % (expected_offset, size))
        # The tagged sections checked at open (bad_tagged_section): FINGERPRINT_SETTINGS (§5.2:
        # checksum and contents), BLOCK_DIRECTORY (§5.3: its size and header, not its entries and
        # not its checksum, which are verify's).
        self.fingerprint_settings = None
        self.block_directory = None
        for tab in self.tables:
            tab.directory_bits = 0        # 0: no directory, the probe searches BLOCK_KEYS
            tab.directory_offset = None   # where its 2^d_t u32 entries slot_block_t[s] start
        for sec in self.tagged:
            if sec.tag == FINGERPRINT_SETTINGS:
                payload = d[sec.offset:sec.offset + sec.bytes]
                if xxh3_64(payload) != sec.checksum:
                    raise SimdexError("bad_tagged_section", "FINGERPRINT_SETTINGS: checksum mismatch")
                self.fingerprint_settings = decode_fingerprint_settings(payload)
            elif sec.tag == BLOCK_DIRECTORY:
                self._open_block_directory(sec)
        for t, tab in enumerate(self.tables):
            tab.blocks = self.sections[3 * t]
            tab.keys_sec = self.sections[3 * t + 1]
            tab.ranks_sec = self.sections[3 * t + 2]
            tab.perm = Permutation(tab.source_bit)
            tab.decoder = decode_table(tab.code_length)
        self.id_offsets_sec = self.sections[3 * T]
        self.ids_sec = self.sections[3 * T + 1]

    def _open_block_directory(self, sec):
        """The open checks of BLOCK_DIRECTORY (§5.3): size, directory_table_count, reserved bytes,
        padding and directory_bits (rule bad_tagged_section); keeps each table's d_t and where its
        entries start. The entries themselves are hints until verified (verify_index)."""
        d, T, size = self.data, self.table_count, sec.bytes

        def bad(why):
            raise SimdexError("bad_tagged_section", "BLOCK_DIRECTORY: " + why)
        if size < 8:
            bad("%d bytes, fewer than the 8 of directory_table_count and reserved" % size)
        count = _u32(d, sec.offset)
        if count != T:
            bad("directory_table_count = %d, table_count = %d" % (count, T))
        if _u32(d, sec.offset + 4) != 0:
            bad("reserved bytes 4..7 = %s, not zero" % d[sec.offset + 4:sec.offset + 8].hex())
        H = directory_header_bytes(T)
        if size < H:
            bad("%d bytes, fewer than the %d of its header (8 + T rounded up to 8)" % (size, H))
        bits = list(d[sec.offset + 8:sec.offset + 8 + T])
        if any(d[sec.offset + 8 + T:sec.offset + H]):
            bad("padding after directory_bits (bytes %d..%d) not zero" % (8 + T, H - 1))
        want = H
        for t, bits_t in enumerate(bits):
            if bits_t > MAX_DIRECTORY_BITS:
                bad("directory_bits[%d] = %d > %d" % (t, bits_t, MAX_DIRECTORY_BITS))
            if bits_t and self.tables[t].block_count > MAX_DIRECTORY_BLOCK_COUNT:
                bad("directory_bits[%d] = %d with block_count %d > 2^32 - 1"
                    % (t, bits_t, self.tables[t].block_count))
            if bits_t:
                want += 4 << bits_t
        if size != want:
            bad("%d bytes, H + the sum of 4 * 2^d_t is %d" % (size, want))
        at = sec.offset + H
        for tab, bits_t in zip(self.tables, bits):
            tab.directory_bits = bits_t
            if bits_t:
                tab.directory_offset = at
                at += 4 << bits_t
        self.block_directory = sec

    # -- accessors --
    def slot_block(self, t, s):
        """Entry s of table t's BLOCK_DIRECTORY, raw (a hint until verified: may exceed block_count)."""
        tab = self.tables[t]
        assert tab.directory_bits and 0 <= s < 1 << tab.directory_bits
        return _u32(self.data, tab.directory_offset + 4 * s)

    def first_entry(self, t, j):
        """The first_entry field of block j of table t (§6)."""
        return _u64(self.data, self.block_offset(t, j) + 8)

    def key(self, t, j):
        return _u64(self.data, self.tables[t].keys_sec.offset + 8 * j)

    def rank(self, t, j):
        return _u64(self.data, self.tables[t].ranks_sec.offset + 8 * j)

    def block_offset(self, t, j):
        return self.tables[t].blocks.offset + j * self.block_bytes

    def decode_block(self, t, j):
        """The entries of block j of table t; raises SimdexError('bad_block') if malformed."""
        B = self.block_bytes
        off = self.block_offset(t, j)
        return decode_block_bytes(self.data[off:off + B], self.tables[t].decoder,
                                  "table %d block %d (offset %d)" % (t, j, off))

    def table_entries(self, t):
        """All entries of table t in rank order (cached)."""
        if t not in self._decoded:
            out = []
            for j in range(self.tables[t].block_count):
                out.extend(self.decode_block(t, j))
            self._decoded[t] = out
        return self._decoded[t]

    def ids_of_rank(self, r):
        d = self.data
        ids_off = self.ids_sec.offset
        if self.id_layout == 1:
            if r >= self.id_count:
                raise SimdexError("bad_ids", "rank %d >= id_count %d" % (r, self.id_count))
            return [_u64(d, ids_off + 8 * r)]
        if r + 1 > self.n:
            raise SimdexError("bad_ids", "rank %d >= n %d" % (r, self.n))
        lo = _u64(d, self.id_offsets_sec.offset + 8 * r)
        hi = _u64(d, self.id_offsets_sec.offset + 8 * (r + 1))
        if not lo < hi <= self.id_count:
            raise SimdexError("bad_ids", "ids offsets [%d, %d) of rank %d out of range" % (lo, hi, r))
        return list(struct.unpack_from("<%dQ" % (hi - lo), d, ids_off + 8 * lo))


def _peek(stream, pos, nbits):
    """nbits (<= 64) of the MSB-first stream at bit pos; zeros past the end."""
    if nbits == 0:
        return 0
    first = pos >> 3
    last = (pos + nbits + 7) >> 3
    chunk = stream[first:last]
    if len(chunk) < last - first:
        chunk = chunk + bytes(last - first - len(chunk))
    value = int.from_bytes(chunk, "big")
    drop = (last - first) * 8 - (pos - first * 8) - nbits
    return (value >> drop) & ((1 << nbits) - 1)


def decode_block_bytes(block, decoder, where="block"):
    B = len(block)
    count = _u32(block, 4)
    stream_bits = (B - 16) * 8
    if count == 0:
        raise SimdexError("bad_block", "%s: entry_count is 0" % where)
    if count > 1 + stream_bits:
        raise SimdexError("bad_block", "%s: entry_count %d > 1 + %d" % (where, count, stream_bits))
    stream = block[16:]
    prev = _u64(block, 8)
    out = [prev]
    pos = 0
    for i in range(1, count):
        sym = decoder[_peek(stream, pos, MAX_CODE_LENGTH)]
        if sym is None:
            raise SimdexError("bad_block", "%s: entry %d: no code starts at stream bit %d" % (where, i, pos))
        h, length = sym
        if pos + length > stream_bits:
            raise SimdexError("bad_block", "%s: entry %d: code runs past the stream" % (where, i))
        pos += length
        if pos + h > stream_bits:
            raise SimdexError("bad_block", "%s: entry %d: residual runs past the stream" % (where, i))
        r = _peek(stream, pos, h)
        pos += h
        if (prev >> h) & 1:
            raise SimdexError("bad_block", "%s: entry %d: bit %d of the previous entry is 1" % (where, i, h))
        e = ((prev >> (h + 1)) << (h + 1)) | (1 << h) | r
        out.append(e)
        prev = e
    # padding
    partial = (8 - pos % 8) % 8  # bits to the next byte boundary
    if _peek(stream, pos, partial) != 0 or any(stream[(pos + partial) // 8:]):
        raise SimdexError("bad_block", "%s: padding after the last entry is not zero" % where)
    return out


def open_index(path):
    """Read a file and check every open rule of §10 in order; raises SimdexError(rule, detail)."""
    with builtins.open(path, "rb") as f:
        data = f.read()
    return Index(data, path)


def open(path):  # noqa: A001 - the name the conformance suite documents; builtins.open is used inside
    return open_index(path)


def open_bytes(data, path="<bytes>"):
    return Index(data, path)


# --------------------------------------------------------------------------------------------
# Verify (§10 verify rules)

def prefix_mask(tab):
    """The original bit positions of a table's prefix: source_bit[63], ..., source_bit[64 - p]."""
    m = 0
    for j in range(64 - tab.prefix_bits, 64):
        m |= 1 << tab.source_bit[j]
    return m


def coverage(idx, budget=COVERAGE_BUDGET):
    """Rule `coverage` of §10: ("covered", 0); ("uncovered", D) with D a mask of at most k bit
    positions that meets every table's prefix (fingerprints differing there share no prefix); or
    ("unchecked", 0) when the search spent `budget` steps.

    A bounded hitting-set search. Bits in the prefixes of exactly the same tables are one class
    (taking two of a class never meets more tables). Take the table not met yet with the fewest
    allowed classes and branch on each; a class tried is forbidden in the later branches."""
    masks = [prefix_mask(tab) for tab in idx.tables]
    classes = {}  # set of tables holding the bit -> lowest bit of the class
    of_bit = {}
    for bit in range(64):
        holders = sum(1 << t for t, m in enumerate(masks) if m >> bit & 1)
        if holders:
            classes.setdefault(holders, bit)
            of_bit[bit] = list(classes).index(holders)
    first_bit = list(classes.values())
    tables = []  # per table, its prefix as a mask of classes
    for m in masks:
        t = 0
        for b in range(64):
            if m >> b & 1:
                t |= 1 << of_bit[b]
        tables.append(t)
    steps = [0]
    found = [None]

    def search(chosen, forbidden, left):
        if steps[0] > budget:
            return False
        branch, common, fewest = 0, ~forbidden, None
        for t in tables:
            steps[0] += 1
            if t & chosen:
                continue
            allowed = t & ~forbidden
            if not allowed:
                return False
            common &= allowed
            if fewest is None or bin(allowed).count("1") < fewest:
                fewest, branch = bin(allowed).count("1"), allowed
        if fewest is None:
            found[0] = chosen
            return True
        if left == 0:
            return False
        if common:
            found[0] = chosen | (common & -common)
            return True
        while branch:
            c = branch & -branch
            if search(chosen | c, forbidden, left - 1):
                return True
            forbidden |= c
            branch &= branch - 1
        return False

    if search(0, 0, idx.max_distance):
        d = 0
        for c in range(len(first_bit)):
            if found[0] >> c & 1:
                d |= 1 << first_bit[c]
        return ("uncovered", d)
    if steps[0] > budget:
        return ("unchecked", 0)
    return ("covered", 0)


def verify_index(idx, unchecked=None):
    """[(rule, where, what)] for every broken verify rule of an opened index. Rules left
    undecided (`coverage` past its budget) are appended to `unchecked` when given, not reported."""
    problems = []
    d = idx.data
    B = idx.block_bytes
    n = idx.n

    def report(rule, where, what):
        problems.append((rule, where, what))

    status, missed = coverage(idx)
    if status == "uncovered":
        report("coverage", "tables", "max_distance is %d but fingerprints differing in bits {%s} share no "
               "table's prefix" % (idx.max_distance, ", ".join(str(b) for b in range(64) if missed >> b & 1)))
    elif status == "unchecked" and unchecked is not None:
        unchecked.append(("coverage", "tables", "not decided within %d search steps" % COVERAGE_BUDGET))

    for sec in idx.sections + idx.tagged:
        computed = xxh3_64(d[sec.offset:sec.offset + sec.bytes])
        if computed != sec.checksum:
            report("section_checksum", sec.describe(),
                   "stored %016x, computed %016x" % (sec.checksum, computed))

    table_sets = {}
    for t, tab in enumerate(idx.tables):
        counts = []
        all_decoded = True
        entries = []
        prev_key = None
        for j in range(tab.block_count):
            off = idx.block_offset(t, j)
            block = d[off:off + B]
            where = "table %d block %d (offset %d)" % (t, j, off)
            stored = _u32(block, 0)
            computed = checksum32(block[4:])
            if stored != computed:
                report("block_checksum", where, "stored %08x, computed %08x" % (stored, computed))
            counts.append(_u32(block, 4))
            first = _u64(block, 8)
            if j > 0 and not first > prev_key:
                report("keys_order", where, "first entry %d is not above the previous block's key %d"
                       % (first, prev_key))
            key = idx.key(t, j)
            try:
                got = decode_block_bytes(block, tab.decoder, where)
            except SimdexError as e:
                report(e.rule, where, e.detail.split(": ", 1)[-1])
                all_decoded = False
            else:
                entries.extend(got)
                if got[-1] != key:
                    report("keys_order", where, "last entry %d is not the block key %d" % (got[-1], key))
            prev_key = key
        # ranks
        expect = 0
        for j in range(tab.block_count):
            r = idx.rank(t, j)
            if r != expect:
                report("block_ranks", "table %d block %d" % (t, j),
                       "rank %d, the entry counts of the blocks before give %d" % (r, expect))
            expect += counts[j]
        if expect != n:
            report("block_ranks", "table %d" % t, "the blocks hold %d entries, n = %d" % (expect, n))
        if all_decoded:
            table_sets[t] = entries
            idx._decoded[t] = entries

    # Every completely decoded table against the first completely decoded one (table 0 unless some
    # block of table 0 is malformed).
    decoded = sorted(table_sets)
    if decoded:
        ref = decoded[0]
        base = {idx.tables[ref].perm.invert(e) for e in table_sets[ref]}
        for t in decoded[1:]:
            other = {idx.tables[t].perm.invert(e) for e in table_sets[t]}
            if other != base:
                missing = len(base - other)
                extra = len(other - base)
                report("table_mismatch", "table %d" % t, "%d fingerprints of table %d missing, %d not in table %d"
                       % (missing, ref, extra, ref))

    idc = idx.id_count
    ids_off = idx.ids_sec.offset
    if idx.id_layout == 0:
        offs = list(struct.unpack_from("<%dQ" % (n + 1), d, idx.id_offsets_sec.offset))
        good_offsets = True
        if offs[0] != 0:
            report("bad_ids", "ID_OFFSETS[0]", "offset[0] = %d, not 0" % offs[0])
            good_offsets = False
        for r in range(n):
            if not offs[r] < offs[r + 1]:
                report("bad_ids", "ID_OFFSETS[%d]" % (r + 1),
                       "offsets not strictly ascending (%d then %d)" % (offs[r], offs[r + 1]))
                good_offsets = False
        if offs[n] != idc:
            report("bad_ids", "ID_OFFSETS[%d]" % n, "offset[n] = %d, id_count = %d" % (offs[n], idc))
            good_offsets = False
        if good_offsets:
            ids = struct.unpack_from("<%dQ" % idc, d, ids_off)
            for r in range(n):
                for i in range(offs[r] + 1, offs[r + 1]):
                    if not ids[i - 1] < ids[i]:
                        report("bad_ids", "fingerprint of rank %d" % r,
                               "ids not strictly ascending (%d then %d)" % (ids[i - 1], ids[i]))
                        break

    # BLOCK_DIRECTORY (§5.3, phase verify): every entry is the first block whose key (BLOCK_KEYS as
    # stored) is at least its slot's first value. Checked whether or not the section's checksum
    # matched (that is reported above as section_checksum). One problem per table.
    for t, tab in enumerate(idx.tables):
        bits = tab.directory_bits
        if not bits:
            continue
        keys = list(struct.unpack_from("<%dQ" % tab.block_count, d, tab.keys_sec.offset))
        want = slot_blocks(keys, bits)
        got = struct.unpack_from("<%dI" % (1 << bits), d, tab.directory_offset)
        wrong = [s for s in range(1 << bits) if got[s] != want[s]]
        if wrong:
            s = wrong[0]
            report("bad_tagged_section", "BLOCK_DIRECTORY table %d slot %d" % (t, s),
                   "slot_block = %d, the first block whose key is >= %#018x is %d (of %d blocks; %d of the "
                   "table's %d entries wrong)" % (got[s], s << (64 - bits), want[s], tab.block_count,
                                                  len(wrong), 1 << bits))
    return problems


def verify(path):
    """Open and verify a file: [] when good, else [(rule, where, what)]."""
    try:
        idx = open_index(path)
    except SimdexError as e:
        return [(e.rule, "open", e.detail)]
    return verify_index(idx)


# --------------------------------------------------------------------------------------------
# Queries (§9)

def _check_k(idx, k):
    if not 0 <= k <= idx.max_distance:
        raise ValueError("k = %d is above the index's max_distance %d" % (k, idx.max_distance))


def fingerprints_with_ids(idx):
    """[(f, [ids])] for every stored fingerprint, in table-0 rank order."""
    entries = idx.table_entries(0)
    if len(entries) != idx.n:
        raise SimdexError("block_ranks", "table 0 holds %d entries, n = %d" % (len(entries), idx.n))
    inv = idx.tables[0].perm.invert
    return [(inv(e), idx.ids_of_rank(r)) for r, e in enumerate(entries)]


def query(idx, F, k):
    """Brute force: every entry of table 0, unpermuted. [(f, distance, [ids])] by (distance, f)."""
    _check_k(idx, k)
    hits = []
    for f, ids in fingerprints_with_ids(idx):
        dist = (f ^ F).bit_count()
        if dist <= k:
            hits.append((f, dist, ids))
    hits.sort(key=lambda x: (x[1], x[0]))
    return hits


def _first_block_at_least(idx, t, lo):
    a, b = 0, idx.tables[t].block_count
    while a < b:
        m = (a + b) // 2
        if idx.key(t, m) >= lo:
            b = m
        else:
            a = m + 1
    return a


def _rank_in_table0(idx, e0):
    j = _first_block_at_least(idx, 0, e0)
    if j >= idx.tables[0].block_count:
        raise SimdexError("table_mismatch", "entry %d absent from table 0" % e0)
    entries = idx.decode_block(0, j)
    try:
        pos = entries.index(e0)
    except ValueError:
        raise SimdexError("table_mismatch", "entry %d absent from table 0" % e0) from None
    return idx.rank(0, j) + pos


def _first_block_by_directory(idx, t, lo):
    """§9 with a BLOCK_DIRECTORY entry for table t: the block where the probe for [lo, hi] starts,
    found without BLOCK_KEYS. Entries are hints (§5.3): clamped to block_count, so a wrong one
    gives a wrong answer before verification, never a read outside the table's blocks."""
    tab = idx.tables[t]
    bits, count = tab.directory_bits, tab.block_count
    s = lo >> (64 - bits)
    b = min(idx.slot_block(t, s + 1) if s + 1 < 1 << bits else count, count)
    a = min(idx.slot_block(t, s), b)
    if a == b or lo == s << (64 - bits):  # lo is the slot's first value: slot_block itself
        return a
    # The last block i in [a, min(b, count - 1)] whose first_entry is <= lo, or a when none is.
    for i in range(min(b, count - 1), a - 1, -1):
        if idx.first_entry(t, i) <= lo:
            return i
    return a


def query_probe(idx, F, k):
    """The table probes of §9: per table, the first block that can hold [lo, hi] (through the
    table's BLOCK_DIRECTORY when it has one, else by searching BLOCK_KEYS), then blocks j, j+1, ...
    until an entry above hi or a block ending at or above hi."""
    _check_k(idx, k)
    found = {}
    for t, tab in enumerate(idx.tables):
        if tab.block_count == 0:
            continue
        p = tab.prefix_bits
        q = tab.perm.apply(F)
        low_mask = M64 if p == 0 else (1 << (64 - p)) - 1
        lo = q & ~low_mask & M64
        hi = q | low_mask
        directory = tab.directory_bits > 0
        j = _first_block_by_directory(idx, t, lo) if directory else _first_block_at_least(idx, t, lo)
        done = False
        while j < tab.block_count and not done:
            entries = idx.decode_block(t, j)
            for e in entries:
                if e > hi:
                    done = True
                    break
                if e >= lo and (e ^ q).bit_count() <= k:
                    f = tab.perm.invert(e)
                    found[f] = (e ^ q).bit_count()
            # The block ends at or above hi: with the directory, its decoded last entry says so (the
            # keys are not read at all); without, its key does.
            if (entries[-1] if directory else idx.key(t, j)) >= hi:
                break
            j += 1
    hits = []
    perm0 = idx.tables[0].perm
    for f, dist in found.items():
        r = _rank_in_table0(idx, perm0.apply(f))
        hits.append((f, dist, idx.ids_of_rank(r)))
    hits.sort(key=lambda x: (x[1], x[0]))
    return hits


# --------------------------------------------------------------------------------------------
# Info

def info(idx):
    n = idx.n
    tables = []
    for tab in idx.tables:
        nbytes = tab.blocks.bytes + tab.keys_sec.bytes + tab.ranks_sec.bytes
        tables.append({"prefix_bits": tab.prefix_bits, "blocks": tab.block_count, "bytes": nbytes,
                       "bits_per_entry": (nbytes * 8 / n) if n else 0.0})
    for tab, d in zip(idx.tables, tables):
        d["block_count"] = tab.block_count  # the spec's name for "blocks"
        d["directory_bits"] = tab.directory_bits  # d_t of BLOCK_DIRECTORY (§5.3); 0 without one
    return {
        "n": n,
        "id_count": idx.id_count,
        "format": "%d.%d" % (idx.version_major, idx.version_minor),
        "scheme": idx.scheme_name,
        "k": idx.max_distance,
        "fingerprints": n,
        "ids": idx.id_count,
        "scheme_name": idx.scheme_name,  # the spec's names, as the C++ `info --json` prints them
        "max_distance": idx.max_distance,
        "fingerprint_count": n,
        "block_bytes": idx.block_bytes,
        "file_bytes": idx.file_bytes,
        "ids_bytes": idx.id_offsets_sec.bytes + idx.ids_sec.bytes,
        "id_layout": idx.id_layout,
        "tables": tables,
        "tagged_sections": [{"tag": s.tag, "name": TAG_NAMES.get(s.tag, ""), "critical": bool(s.flags & TAG_CRITICAL),
                             "bytes": s.bytes} for s in idx.tagged],
        "fingerprint_settings": idx.fingerprint_settings,
        # BLOCK_DIRECTORY (§5.3): d_t per table, or None when the file has no such section
        "directory_bits": ([tab.directory_bits for tab in idx.tables] if idx.block_directory is not None
                           else None),
    }


# --------------------------------------------------------------------------------------------
# Writer side (used by the conformance tools: re-encoding blocks, rebuilding files)

class BitWriter:
    def __init__(self):
        self.value = 0
        self.bits = 0

    def put(self, value, nbits):
        self.value = (self.value << nbits) | value
        self.bits += nbits


def encode_blocks(entries, lengths, B, partition=None):
    """Encode sorted entries into blocks of B bytes. partition: list of entry counts per block
    (default: the writer's greedy fill). Returns (list of block bytes, keys, ranks)."""
    codes = canonical_codes(lengths)
    stream_bits = (B - 16) * 8
    groups = []
    if partition is None:
        i = 0
        while i < len(entries):
            group = [entries[i]]
            used = 0
            i += 1
            while i < len(entries):
                h = (entries[i - 1] ^ entries[i]).bit_length() - 1
                cost = lengths[h] + h
                if used + cost > stream_bits:
                    break
                used += cost
                group.append(entries[i])
                i += 1
            groups.append(group)
    else:
        i = 0
        for c in partition:
            groups.append(entries[i:i + c])
            i += c
        assert i == len(entries)
    blocks, keys, ranks = [], [], []
    rank = 0
    for group in groups:
        w = BitWriter()
        for a, b in zip(group, group[1:]):
            h = (a ^ b).bit_length() - 1
            if not lengths[h]:
                raise ValueError("no code for h = %d" % h)
            w.put(codes[h], lengths[h])
            w.put(b & ((1 << h) - 1), h)
        if w.bits > stream_bits:
            raise ValueError("block overflows")
        stream = (w.value << (stream_bits - w.bits)).to_bytes(stream_bits // 8, "big")
        body = struct.pack("<IQ", len(group), group[0]) + stream
        blocks.append(struct.pack("<I", checksum32(body)) + body)
        keys.append(group[-1])
        ranks.append(rank)
        rank += len(group)
    return blocks, keys, ranks


def build_bytes(pairs, tables, block_bytes, max_distance, scheme_name, version_minor=WRITER_VERSION_MINOR,
                version_major=2,
                tagged=(), directory=True, directory_bits=None):
    """A whole file from (fingerprint, id) pairs and tables [(source_bit, prefix_bits)], following
    the writer rules of the spec (§5-§8, §11). tagged: [(tag, tag_flags, payload)], written in
    ascending tag order (2.x only).

    By default the file is what a 2.2 writer writes: version 2.2 and a BLOCK_DIRECTORY (tag 2,
    CRITICAL clear, §5.3) with the writer's d_t = writer_directory_bits(block_count_t), among the
    other tagged sections in tag order. directory=False leaves the section out (a 2.0 file with
    version_minor=0, or with version_major=1 a 1.x file, which has no tagged section at all);
    directory_bits=[d_0, ..., d_{T-1}] writes the directory with these d_t instead of the writer's
    (files a reader must read right although no writer makes them)."""
    tagged = sorted(tagged)
    if directory_bits is not None:
        directory = True
        if len(directory_bits) != len(tables):
            raise ValueError("directory_bits has %d values for %d tables" % (len(directory_bits), len(tables)))
    if directory and any(tag == BLOCK_DIRECTORY for tag, _, _ in tagged):
        raise ValueError("BLOCK_DIRECTORY given in `tagged` and made by directory=True")
    if version_major != 2 and (tagged or directory):
        raise ValueError("a %d.x file has no tagged sections: pass directory=False" % version_major)
    by_f = {}
    for f, i in pairs:
        by_f.setdefault(f, set()).add(i)
    fps = sorted(by_f)
    n = len(fps)
    id_count = sum(len(v) for v in by_f.values())
    id_layout = 1 if all(len(v) == 1 for v in by_f.values()) else 0
    T = len(tables)
    S = 3 * T + 2
    descriptors = []
    sections = []  # (kind, table, payload)
    all_keys = []
    perm0 = Permutation(tables[0][0])
    for t, (source_bit, prefix_bits) in enumerate(tables):
        perm = Permutation(source_bit)
        entries = sorted(perm.apply(f) for f in fps)
        lengths = writer_code_lengths(entries)
        blocks, keys, ranks = encode_blocks(entries, lengths, block_bytes)
        descriptors.append(bytes(source_bit) + bytes(lengths) + struct.pack("<QB", len(blocks), prefix_bits)
                           + bytes(23))
        sections.append((BLOCKS, t, b"".join(blocks)))
        sections.append((BLOCK_KEYS, t, struct.pack("<%dQ" % len(keys), *keys)))
        sections.append((BLOCK_RANKS, t, struct.pack("<%dQ" % len(ranks), *ranks)))
        all_keys.append(keys)
    if directory:
        if directory_bits is None:
            directory_bits = [writer_directory_bits(len(keys)) for keys in all_keys]
        tagged = sorted(tagged + [(BLOCK_DIRECTORY, 0, encode_block_directory(directory_bits, all_keys))])
    E = len(tagged)
    R = HEADER_BYTES + DESCRIPTOR_BYTES * T + SECTION_ENTRY_BYTES * S + TAGGED_ENTRY_BYTES * E
    order0 = sorted(fps, key=perm0.apply)
    offsets, ids = [0], []
    for f in order0:
        ids.extend(sorted(by_f[f]))
        offsets.append(len(ids))
    sections.append((ID_OFFSETS, NO_TABLE, struct.pack("<%dQ" % len(offsets), *offsets) if id_layout == 0 else b""))
    sections.append((IDS, NO_TABLE, struct.pack("<%dQ" % len(ids), *ids)))
    entries_bytes = b""
    offset = R
    for kind, table, payload in sections:
        entries_bytes += struct.pack("<IIQQQ", kind, table, offset, len(payload), xxh3_64(payload))
        offset += len(payload)
    for tag, flags, payload in tagged:
        entries_bytes += struct.pack("<IIQQQ", tag, flags, offset, len(payload), xxh3_64(payload))
        offset += len(payload)
    file_bytes = offset
    name = scheme_name.encode("ascii")
    header = (MAGIC + struct.pack("<HHIQQQII", version_major, version_minor, 0, file_bytes, n, id_count, T, S)
              + struct.pack("<IBBH", block_bytes, max_distance, id_layout, 0)
              + name + bytes(32 - len(name)) + struct.pack("<I", E) + bytes(28))
    rest = b"".join(descriptors) + entries_bytes
    checksum = xxh3_64(header + rest)
    return (header + struct.pack("<Q", checksum) + rest + b"".join(p for _, _, p in sections)
            + b"".join(p for _, _, p in tagged))


def rebuild(idx):
    """Rebuild an opened file from its fingerprints, ids, permutations and prefix bits with
    build_bytes(): equal bytes mean the file is exactly what the spec's writer rules produce, given
    its version, its other tagged sections (copied) and, when it has a BLOCK_DIRECTORY, its d_t
    (the entries are made anew from the keys: equal bytes also mean they are the ones §5.3
    defines). Whether the d_t are the writer's choice is for the caller to check (info's
    directory_bits against writer_directory_bits)."""
    pairs = [(f, i) for f, ids in fingerprints_with_ids(idx) for i in ids]
    tables = [(tab.source_bit, tab.prefix_bits) for tab in idx.tables]
    tagged = [(s.tag, s.flags, idx.data[s.offset:s.offset + s.bytes]) for s in idx.tagged
              if s.tag != BLOCK_DIRECTORY]
    has_directory = idx.block_directory is not None
    return build_bytes(pairs, tables, idx.block_bytes, idx.max_distance, idx.scheme_name,
                       idx.version_minor, idx.version_major, tagged, directory=has_directory,
                       directory_bits=[tab.directory_bits for tab in idx.tables] if has_directory else None)


def _without_tagged(idx, at):
    """The file's bytes without tagged section `at` (its entry in the section directory and its
    bytes): the sections before it move back by 32 bytes, the tagged sections after it also by its
    size; file_bytes, tagged_section_count and the header checksum are updated."""
    data, T, E = idx.data, idx.table_count, idx.tagged_section_count
    gone = idx.tagged[at]
    shrink = TAGGED_ENTRY_BYTES
    head = bytearray(data[:HEADER_BYTES + DESCRIPTOR_BYTES * T])
    struct.pack_into("<Q", head, 16, len(data) - shrink - gone.bytes)
    struct.pack_into("<I", head, 88, E - 1)
    entries = b""
    for sec in idx.sections:
        entries += struct.pack("<IIQQQ", sec.kind, sec.table, sec.offset - shrink, sec.bytes, sec.checksum)
    for i, sec in enumerate(idx.tagged):
        if i != at:
            shift = shrink + (gone.bytes if i > at else 0)
            entries += struct.pack("<IIQQQ", sec.tag, sec.flags, sec.offset - shift, sec.bytes, sec.checksum)
    struct.pack_into("<Q", head, 120, xxh3_64(bytes(head[0:120]) + bytes(head[128:]) + entries))
    return bytes(head) + entries + data[idx.R:gone.offset] + data[gone.offset + gone.bytes:]


def upgrade_bytes(data):
    """§12 `simdex upgrade`: a 1.x, 2.0 or 2.1 file rewritten as 2.2 after verifying it (raises
    SimdexError naming the first broken rule). The version becomes 2.2 (a later 2.x minor version is
    kept); a file without BLOCK_DIRECTORY, or a 2.0/2.1 file whose directory has other d_t than the
    writer's (a 2.1 writer's file of more than 2^18 blocks a table), gets the writer's, made from its
    BLOCK_KEYS (an old directory is taken out first) and placed in tag order among its tagged
    sections: its entry in the section directory moves every section (of §5 and tagged) by 32
    bytes, and the tagged sections after it also by the directory's size. Every other section keeps
    its bytes and checksum; file_bytes, tagged_section_count and the header checksum are updated.
    For a file a writer made, the result equals build_bytes of the same pairs and tagged sections."""
    idx = Index(data)
    problems = verify_index(idx)
    if problems:
        rule, where, what = problems[0]
        raise SimdexError(rule, "not upgraded: %s: %s" % (where, what))
    major, minor = idx.version_major, idx.version_minor
    new_minor = WRITER_VERSION_MINOR if major == 1 else max(minor, WRITER_VERSION_MINOR)
    out = bytearray(data)
    if idx.block_directory is not None:
        writers = all(tab.directory_bits == writer_directory_bits(tab.block_count) for tab in idx.tables)
        if writers or (major, minor) >= (2, WRITER_VERSION_MINOR):  # the version only
            struct.pack_into("<HH", out, 8, 2, new_minor)
            struct.pack_into("<Q", out, 120, xxh3_64(bytes(out[0:120] + out[128:idx.R])))
            return bytes(out)
        data = _without_tagged(idx, next(i for i, s in enumerate(idx.tagged) if s.tag == BLOCK_DIRECTORY))
        idx = Index(data)
    T, E = idx.table_count, idx.tagged_section_count
    keys = [list(struct.unpack_from("<%dQ" % tab.block_count, data, tab.keys_sec.offset)) for tab in idx.tables]
    payload = encode_block_directory([writer_directory_bits(tab.block_count) for tab in idx.tables], keys)
    at = sum(1 for s in idx.tagged if s.tag < BLOCK_DIRECTORY)  # the new entry's index
    where = idx.tagged[at].offset if at < E else len(data)      # where its bytes go (old offsets)
    grow = TAGGED_ENTRY_BYTES
    head = bytearray(data[:HEADER_BYTES + DESCRIPTOR_BYTES * T])
    struct.pack_into("<HH", head, 8, 2, new_minor)
    struct.pack_into("<Q", head, 16, len(data) + grow + len(payload))
    struct.pack_into("<I", head, 88, E + 1)
    entries = b""
    for sec in idx.sections:
        entries += struct.pack("<IIQQQ", sec.kind, sec.table, sec.offset + grow, sec.bytes, sec.checksum)
    for i, sec in enumerate(idx.tagged):
        if i == at:
            entries += struct.pack("<IIQQQ", BLOCK_DIRECTORY, 0, where + grow, len(payload), xxh3_64(payload))
        shift = grow + (len(payload) if i >= at else 0)
        entries += struct.pack("<IIQQQ", sec.tag, sec.flags, sec.offset + shift, sec.bytes, sec.checksum)
    if at == E:
        entries += struct.pack("<IIQQQ", BLOCK_DIRECTORY, 0, where + grow, len(payload), xxh3_64(payload))
    struct.pack_into("<Q", head, 120, xxh3_64(bytes(head[0:120]) + bytes(head[128:]) + entries))
    return bytes(head) + entries + data[idx.R:where] + payload + data[where:]



# --------------------------------------------------------------------------------------------
# Index sets (spec/SET.md): a manifest naming member index files and tombstone files.

SET_MAGIC = b"\x89SDS\r\n\x1a\n"
TOMBSTONE_MAGIC = b"\x89SDT\r\n\x1a\n"
SET_HEADER_BYTES = 64
SET_ENTRY_BYTES = 48
MAX_SET_ENTRIES = 65536
# SET.md §5: a manifest larger than the most entries with the longest names is rule 8's (set_layout)
# once rules 1 to 4 hold, reported before rule 5's checksum (a hostile size costs no reading).
MAX_MANIFEST_BYTES = SET_HEADER_BYTES + 2 * MAX_SET_ENTRIES * (SET_ENTRY_BYTES + 256)
NAME_BYTES = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def _pad8(n):
    return (n + 7) // 8 * 8


def legal_entry_name(name):
    """SET.md §2.2: components of A-Z a-z 0-9 . _ -, separated by '/', none empty or starting with '.'."""
    if not 1 <= len(name) <= 255:
        return False
    for part in name.split(b"/"):
        if not part or part[:1] == b"." or any(c not in NAME_BYTES for c in part):
            return False
    return True


class SetEntry:
    def __init__(self, generation, file_bytes, checksum, count, id_count, name):
        self.generation, self.file_bytes, self.checksum = generation, file_bytes, checksum
        self.count, self.id_count, self.name = count, id_count, name


def decode_manifest(data):
    """Rules 1 to 10 of SET.md §5, in order. Returns (header dict, members, tombstones)."""
    size = len(data)
    if size < SET_HEADER_BYTES:
        raise SimdexError("file_too_small", "%d bytes" % size)
    if data[:8] != SET_MAGIC:
        raise SimdexError("bad_magic", "not a set manifest")
    major = _u16(data, 8)
    if major != 1:
        raise SimdexError("unsupported_version", "version_major %d" % major)
    if _u64(data, 16) != size:
        raise SimdexError("file_size_mismatch", "manifest_bytes %d, file %d" % (_u64(data, 16), size))
    if size > MAX_MANIFEST_BYTES:
        raise SimdexError("set_layout", "%d bytes: more than the most entries a manifest holds" % size)
    if xxh3_64(data[:56] + data[64:]) != _u64(data, 56):
        raise SimdexError("manifest_checksum", "does not match")
    generation = _u64(data, 24)
    mcount, tcount = _u32(data, 32), _u32(data, 36)
    block_bytes, k = _u32(data, 40), data[44]
    if _u32(data, 12) != 0 or any(data[45:56]):
        raise SimdexError("reserved_nonzero", "header")
    if generation == 0:
        raise SimdexError("bad_header_field", "generation 0")
    if not 1 <= mcount <= MAX_SET_ENTRIES or tcount > MAX_SET_ENTRIES:
        raise SimdexError("bad_header_field", "member_count %d, tombstone_count %d" % (mcount, tcount))
    if block_bytes % 8 or not 32 <= block_bytes <= 1048576 or k > 64:
        raise SimdexError("bad_header_field", "block_bytes %d, max_distance %d" % (block_bytes, k))
    raw, at = [], SET_HEADER_BYTES
    for i in range(mcount + tcount):
        if size - at < SET_ENTRY_BYTES:
            raise SimdexError("set_layout", "entry %d runs past the end" % i)
        nb = _u16(data, at + 40)
        if size - at - SET_ENTRY_BYTES < _pad8(nb):
            raise SimdexError("set_layout", "name of entry %d runs past the end" % i)
        raw.append((at, nb))
        at += SET_ENTRY_BYTES + _pad8(nb)
    if at != size:
        raise SimdexError("set_layout", "%d bytes follow the last entry" % (size - at))
    for i, (at, nb) in enumerate(raw):
        if any(data[at + 42:at + 48]) or any(data[at + 48 + nb:at + 48 + _pad8(nb)]) or \
                (i >= mcount and _u64(data, at + 32) != 0):
            raise SimdexError("reserved_nonzero", "entry %d" % i)
    members, tombstones, names = [], [], set()
    for i, (at, nb) in enumerate(raw):
        name = bytes(data[at + 48:at + 48 + nb])
        if not legal_entry_name(name):
            raise SimdexError("bad_member_name", "entry %d: %r" % (i, name))
        e = SetEntry(_u64(data, at), _u64(data, at + 8), _u64(data, at + 16), _u64(data, at + 24),
                     _u64(data, at + 32), name.decode("ascii"))
        (members if i < mcount else tombstones).append(e)
    for e in members + tombstones:
        if e.name in names:
            raise SimdexError("bad_member_name", "%s twice" % e.name)
        names.add(e.name)
    for lst in (members, tombstones):
        for i, e in enumerate(lst):
            if not 1 <= e.generation <= generation or (i and e.generation <= lst[i - 1].generation):
                raise SimdexError("entry_order", "%s: generation %d" % (e.name, e.generation))
    header = {"generation": generation, "block_bytes": block_bytes, "max_distance": k, "version_minor": _u16(data, 10)}
    return header, members, tombstones


def _read_entry_file(directory, e):
    path = os.path.join(directory, e.name)
    if not os.path.isfile(path):
        raise SimdexError("member_missing", "%s is missing or not a regular file" % e.name)
    with builtins.open(path, "rb") as f:
        return path, f.read()


def decode_tombstone(data, e):
    """Rule 13: the tombstone file against its entry. Returns its ids."""
    if len(data) != e.file_bytes or xxh3_64(data) != e.checksum:
        raise SimdexError("bad_tombstone", "%s: size or checksum differ from the manifest" % e.name)
    if len(data) < 32 or data[:8] != TOMBSTONE_MAGIC or _u16(data, 8) != 1 or _u32(data, 12) != 0:
        raise SimdexError("bad_tombstone", "%s: magic, version or flags" % e.name)
    count = _u64(data, 24)
    if _u64(data, 16) != e.generation or count != e.count or count == 0 or len(data) != 32 + 8 * count:
        raise SimdexError("bad_tombstone", "%s: generation or id_count" % e.name)
    ids = list(struct.unpack_from("<%dQ" % count, data, 32))
    if any(b <= a for a, b in zip(ids, ids[1:])):
        raise SimdexError("bad_tombstone", "%s: ids not strictly ascending" % e.name)
    return ids


class IndexSet:
    """An open set: every rule of SET.md §5 checked; .members [(entry, Index)], .removed {id: generation}."""

    def __init__(self, path):
        with builtins.open(path, "rb") as f:
            data = f.read()
        self.path = path
        self.header, entries, tomb_entries = decode_manifest(data)
        self.max_distance = self.header["max_distance"]
        # SET.md §2.2: names resolve against the directory of the file a link finally names
        directory = os.path.dirname(os.path.realpath(path))
        self.members = []
        for e in entries:
            mpath, mdata = _read_entry_file(directory, e)
            idx = Index(mdata, mpath)  # FORMAT.md's open rules, named by their rule
            if (idx.file_bytes != e.file_bytes or _u64(mdata, 120) != e.checksum or idx.n != e.count
                    or idx.id_count != e.id_count or idx.block_bytes != self.header["block_bytes"]
                    or idx.max_distance != self.max_distance):
                raise SimdexError("member_mismatch", "%s differs from its entry" % e.name)
            self.members.append((e, idx))
        self.removed = {}
        for e in tomb_entries:
            _, tdata = _read_entry_file(directory, e)
            for i in decode_tombstone(tdata, e):
                self.removed[i] = e.generation  # ascending generations: the newest stays
        self.tombstones = tomb_entries

    def live_pairs(self):
        """{f: sorted live ids} (SET.md §4: a pair of a member of generation g is live unless a
        tombstone newer than g lists its id)."""
        live = {}
        for e, idx in self.members:
            for f, ids in fingerprints_with_ids(idx):
                for i in ids:
                    if self.removed.get(i, 0) <= e.generation:  # a tombstone of g or older: live
                        live.setdefault(f, set()).add(i)
        return {f: sorted(ids) for f, ids in live.items()}


def open_set(path):
    return IndexSet(path)


def is_set(path):
    with builtins.open(path, "rb") as f:
        return f.read(8) == SET_MAGIC


def set_query(s, F, k):
    """[(f, distance, [ids])] by (distance, f), over the set's live pairs (SET.md §6)."""
    if not 0 <= k <= s.max_distance:
        raise ValueError("k = %d is above the set's max_distance %d" % (k, s.max_distance))
    hits = [(f, (f ^ F).bit_count(), ids) for f, ids in s.live_pairs().items() if (f ^ F).bit_count() <= k]
    hits.sort(key=lambda x: (x[1], x[0]))
    return hits


def set_info(s):
    live = s.live_pairs()
    return {"generation": s.header["generation"], "max_distance": s.max_distance,
            "block_bytes": s.header["block_bytes"], "fingerprint_count": len(live),
            "id_count": sum(len(v) for v in live.values()), "members": [e.name for e, _ in s.members],
            "removed_ids": sum(t.count for t in s.tombstones)}


def encode_entry(generation, file_bytes, checksum, count, id_count, name):
    name = name.encode("ascii")
    return struct.pack("<QQQQQH6x", generation, file_bytes, checksum, count, id_count, len(name)) + \
        name + b"\0" * (_pad8(len(name)) - len(name))


def encode_manifest(generation, block_bytes, max_distance, members, tombstones, version_minor=0):
    """members/tombstones: [(generation, file_bytes, checksum, count, id_count, name)]."""
    body = b"".join(encode_entry(*e) for e in members) + b"".join(encode_entry(*e) for e in tombstones)
    head = bytearray(SET_HEADER_BYTES)
    head[:8] = SET_MAGIC
    struct.pack_into("<HHIQQIIIB", head, 8, 1, version_minor, 0, SET_HEADER_BYTES + len(body), generation,
                     len(members), len(tombstones), block_bytes, max_distance)
    struct.pack_into("<Q", head, 56, xxh3_64(bytes(head[:56]) + body))
    return bytes(head) + body


def encode_tombstone(generation, ids):
    ids = sorted(set(ids))
    return TOMBSTONE_MAGIC + struct.pack("<HHIQQ", 1, 0, 0, generation, len(ids)) + \
        struct.pack("<%dQ" % len(ids), *ids)


def member_entry(path, generation, name):
    """(generation, file_bytes, checksum, count, id_count, name) of an index file, for encode_manifest."""
    with builtins.open(path, "rb") as f:
        data = f.read()
    idx = Index(data, path)
    return (generation, idx.file_bytes, _u64(data, 120), idx.n, idx.id_count, name)


# --------------------------------------------------------------------------------------------
# Command line

def _parse_fp(text):
    text = text.strip()
    v = int(text, 16) if text.lower().startswith("0x") else int(text, 10)
    if not 0 <= v <= M64:
        raise ValueError("fingerprint out of range: %s" % text)
    return v


def _usage(msg):
    sys.stderr.write("simdex_ref: %s\n" % msg)
    sys.stderr.write(__doc__)
    return 2


def _set_main(cmd, path, queries, k, json_out):
    s = open_set(path)  # every rule of SET.md §5; members opened by FORMAT.md's open rules
    if cmd == "verify":
        problems = [p for _, idx in s.members for p in verify_index(idx)]
        for rule, where, what in problems:
            print("  %s at %s: %s" % (rule, where, what))
        print("%s: %s" % (path, "BAD" if problems else "OK"))
        return 1 if problems else 0
    if cmd == "info":
        print(json.dumps(set_info(s), separators=(",", ":")))
        return 0
    if cmd == "query":
        kk = s.max_distance if k is None else k
        queries = queries or [ln for ln in sys.stdin.read().split("\n") if ln.strip()]
        for qtext in queries:
            F = _parse_fp(qtext)
            for f, dist, ids in set_query(s, F, kk):
                print('{"query":%d,"fingerprint":%d,"distance":%d,"ids":[%s]}'
                      % (F, f, dist, ",".join(str(i) for i in ids)))
        return 0
    return _usage("unknown command %s" % cmd)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0 if argv else 2
    cmd, args = argv[0], argv[1:]
    json_out = "--json" in args
    args = [a for a in args if a != "--json"]
    k = None
    method = "brute"
    table = None
    pos = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-k", "--max-distance", "--method", "--table") and i + 1 < len(args):
            if a == "--method":
                method = args[i + 1]
            elif a == "--table":
                table = int(args[i + 1])
            else:
                k = int(args[i + 1])
            i += 2
            continue
        pos.append(a)
        i += 1
    if not pos:
        return _usage("missing INDEX")
    path = pos[0]
    try:
        if os.path.isfile(path) and is_set(path):
            return _set_main(cmd, path, pos[1:], k, json_out)
        if cmd == "verify":
            try:
                idx = open_index(path)
            except SimdexError as e:
                print("%s: BAD" % path)
                print("  %s: %s" % (e.rule, e.detail))
                sys.stderr.write("simdex_ref: %s: %r: %s\n" % (e.rule, path, e.detail))
                return 1
            unchecked = []
            problems = verify_index(idx, unchecked)
            for rule, where, what in unchecked:
                sys.stderr.write("simdex_ref: warning: rule %s unchecked at %s: %s\n" % (rule, where, what))
            if problems:
                print("%s: BAD, %d problem(s)" % (path, len(problems)))
                for rule, where, what in problems:
                    print("  %s at %s: %s" % (rule, where, what))
                return 1
            blocks = sum(t.block_count for t in idx.tables)
            print("%s: OK (%d bytes, %d blocks checked)" % (path, idx.file_bytes - idx.R, blocks))
            return 0
        idx = open_index(path)
        if cmd == "info":
            inf = info(idx)
            if json_out:
                print(json.dumps(inf, separators=(",", ":")))
            else:
                print("index          %s" % path)
                print("format         %s" % inf["format"])
                print("scheme         %s (%d tables, k = %d)" % (inf["scheme"], len(inf["tables"]), inf["k"]))
                print("fingerprints   %d distinct" % inf["fingerprints"])
                print("ids            %d (fingerprint, id) pairs, id_layout %d" % (inf["ids"], inf["id_layout"]))
                print("block size     %d bytes" % inf["block_bytes"])
                print("directory      %s" % ("none" if inf["directory_bits"] is None else
                                             "BLOCK_DIRECTORY, d_t " + " ".join(map(str, inf["directory_bits"]))))
                print("file size      %d bytes" % inf["file_bytes"])
                print()
                print("table  prefix      blocks           bytes  bits/entry  permutation")
                for t, tab in enumerate(inf["tables"]):
                    print("%5d  %6d  %10d  %14d  %10.2f  %s" % (t, tab["prefix_bits"], tab["blocks"], tab["bytes"],
                          tab["bits_per_entry"], "identity" if idx.tables[t].perm.is_identity() else "permuted"))
            return 0
        if cmd == "dump":
            tabs = [table] if table is not None else range(idx.table_count)
            for t in tabs:
                print("# table %d: code_length %s" % (t, idx.tables[t].code_length))
                for r, e in enumerate(idx.table_entries(t)):
                    print("%d\t%d\t0x%016x\t0x%016x" % (t, r, e, idx.tables[t].perm.invert(e)))
            return 0
        if cmd == "query":
            kk = idx.max_distance if k is None else k
            if not 0 <= kk <= idx.max_distance:
                sys.stderr.write("simdex_ref: -k %d is above the index's k = %d\n" % (kk, idx.max_distance))
                return 1
            queries = pos[1:] if len(pos) > 1 else [ln for ln in sys.stdin.read().split("\n") if ln.strip()]
            for qtext in queries:
                F = _parse_fp(qtext)
                if method == "brute":
                    hits = query(idx, F, kk)
                elif method == "probe":
                    hits = query_probe(idx, F, kk)
                else:
                    hits = query(idx, F, kk)
                    if query_probe(idx, F, kk) != hits:
                        sys.stderr.write("simdex_ref: probe and brute force disagree for %d\n" % F)
                        return 1
                for f, dist, ids in hits:
                    if json_out:
                        print('{"query":%d,"fingerprint":%d,"distance":%d,"ids":[%s]}'
                              % (F, f, dist, ",".join(str(i) for i in ids)))
                    else:
                        print("%d\t%d\t%d\t%s" % (F, f, dist, ",".join(str(i) for i in ids)))
            return 0
        return _usage("unknown command %s" % cmd)
    except SimdexError as e:
        sys.stderr.write("simdex_ref: %s: %r: %s\n" % (e.rule, path, e.detail))
        return 1
    except (OSError, ValueError) as e:
        sys.stderr.write("simdex_ref: %s\n" % e)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
