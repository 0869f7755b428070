#!/usr/bin/env python3
"""Generate the bad golden files of tests/conformance/bad/ from the good ones (maintainers only;
the files are checked in and the tests never regenerate them).

    python3 tests/conformance/make_bad.py

Written from spec/FORMAT.md: each file is a good file with one rule of §10 broken, and every
checksum that must stay valid resealed (block checksums, section checksums, the BLOCK_DIRECTORY
made anew from the keys as they now are and its checksum in its TaggedSectionEntry, then the header
checksum) so that the intended rule is the one that fires. Each file is checked with the Python
reference reader: an open-phase file must fail open with exactly its rule; a verify-phase file must
open, and verify must report its rule (and, unless the rule implies others, only it).
Writes bad/MANIFEST.tsv: FILE<TAB>RULE<TAB>PHASE<TAB>DESCRIPTION.
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import simdex_ref  # noqa: E402

from simdex_ref import (BLOCK_DIRECTORY, FINGERPRINT_SETTINGS, SimdexError, checksum32,  # noqa: E402
                        decode_block_bytes, decode_table, encode_blocks, slot_blocks, xxh3_64)

HERE = os.path.dirname(os.path.abspath(__file__))
GOOD = os.path.join(HERE, "good")
BAD = os.path.join(HERE, "bad")
M64 = (1 << 64) - 1


class File:
    """A mutable index file with the offsets of its parts (from the spec's layout, §2-§6)."""

    def __init__(self, name):
        self.base = name
        with open(os.path.join(GOOD, name + ".sdx"), "rb") as f:
            self.d = bytearray(f.read())
        self.T = self.u32(40)
        self.S = self.u32(44)
        self.E = self.u32(88) if self.u16(8) == 2 else 0  # the section directory (§5.1)
        self.R = 128 + 160 * self.T + 32 * self.S + 32 * self.E
        self.B = self.u32(48)
        self.n = self.u64(24)
        self.id_count = self.u64(32)

    # raw access
    def u8(self, o):
        return self.d[o]

    def u16(self, o):
        return struct.unpack_from("<H", self.d, o)[0]

    def u32(self, o):
        return struct.unpack_from("<I", self.d, o)[0]

    def u64(self, o):
        return struct.unpack_from("<Q", self.d, o)[0]

    def set8(self, o, v):
        self.d[o] = v

    def set16(self, o, v):
        struct.pack_into("<H", self.d, o, v)

    def set32(self, o, v):
        struct.pack_into("<I", self.d, o, v)

    def set64(self, o, v):
        struct.pack_into("<Q", self.d, o, v & M64)

    # layout
    def desc(self, t):
        return 128 + 160 * t

    def entry(self, i):
        return 128 + 160 * self.T + 32 * i

    def tagged_entry(self, i):
        return 128 + 160 * self.T + 32 * self.S + 32 * i

    def tagged_offset(self, i):
        return self.u64(self.tagged_entry(i) + 8)

    def tagged_bytes(self, i):
        return self.u64(self.tagged_entry(i) + 16)

    def seal_tagged(self, i):
        o, b = self.tagged_offset(i), self.tagged_bytes(i)
        self.set64(self.tagged_entry(i) + 24, xxh3_64(bytes(self.d[o:o + b])))

    def tagged_index(self, tag):
        """The index in the section directory of the entry with `tag` (None when there is none)."""
        return next((i for i in range(self.E) if self.u32(self.tagged_entry(i)) == tag), None)

    # BLOCK_DIRECTORY (§5.3): u32 directory_table_count, u32 reserved, u8 directory_bits[T], zero
    # padding to H = 8 + T rounded up to 8, then per table with d_t > 0 its 2^d_t u32 entries.
    def directory(self):
        i = self.tagged_index(BLOCK_DIRECTORY)
        assert i is not None, "%s has no BLOCK_DIRECTORY" % self.base
        return i

    def directory_offset(self):
        return self.tagged_offset(self.directory())

    def directory_header(self):
        return (8 + self.T + 7) // 8 * 8

    def directory_bits(self, t):
        return self.d[self.directory_offset() + 8 + t]

    def slot_off(self, t, s):
        """Where entry slot_block_t[s] is."""
        o = self.directory_offset() + self.directory_header()
        for u in range(t):
            if self.directory_bits(u):
                o += 4 << self.directory_bits(u)
        assert self.directory_bits(t) and 0 <= s < 1 << self.directory_bits(t)
        return o + 4 * s

    def slot_entries(self, t):
        return [self.u32(self.slot_off(t, s)) for s in range(1 << self.directory_bits(t))]

    def seal_directory(self):
        """Rewrite the entries of BLOCK_DIRECTORY (if any) from BLOCK_KEYS as they now are, then
        its checksum: a mutation of the keys must not break the directory's rule as well."""
        i = self.tagged_index(BLOCK_DIRECTORY)
        if i is None:
            return
        for t in range(self.T):
            bits = self.directory_bits(t)
            if bits:
                keys = [self.u64(self.key_off(t, j)) for j in range(self.block_count(t))]
                struct.pack_into("<%dI" % (1 << bits), self.d, self.slot_off(t, 0), *slot_blocks(keys, bits))
        self.seal_tagged(i)

    def sec_offset(self, i):
        return self.u64(self.entry(i) + 8)

    def sec_bytes(self, i):
        return self.u64(self.entry(i) + 16)

    def block_count(self, t):
        return self.u64(self.desc(t) + 128)

    def block_off(self, t, j):
        return self.sec_offset(3 * t) + j * self.B

    def key_off(self, t, j):
        return self.sec_offset(3 * t + 1) + 8 * j

    def rank_off(self, t, j):
        return self.sec_offset(3 * t + 2) + 8 * j

    def id_offsets_off(self, r):
        return self.sec_offset(3 * self.T) + 8 * r

    def ids_off(self, i):
        return self.sec_offset(3 * self.T + 1) + 8 * i

    def code_lengths(self, t):
        return list(self.d[self.desc(t) + 64:self.desc(t) + 128])

    def block(self, t, j):
        o = self.block_off(t, j)
        return bytes(self.d[o:o + self.B])

    def decode(self, t, j):
        return decode_block_bytes(self.block(t, j), decode_table(self.code_lengths(t)))

    # sealing
    def seal_block(self, t, j):
        o = self.block_off(t, j)
        self.set32(o, checksum32(bytes(self.d[o + 4:o + self.B])))

    def seal_section(self, i):
        o, b = self.sec_offset(i), self.sec_bytes(i)
        self.set64(self.entry(i) + 24, xxh3_64(bytes(self.d[o:o + b])))

    def seal_header(self):
        self.set64(120, xxh3_64(bytes(self.d[0:120] + self.d[128:self.R])))

    def seal_sections(self):
        for i in range(self.S):
            self.seal_section(i)
        self.seal_directory()
        self.seal_header()

    def bytes(self):
        return bytes(self.d)


# --------------------------------------------------------------------------------------------

CASES = []  # (file name, rule, phase, description, bytes, exact)


def case(rule, what, phase, description, data, exact=True):
    CASES.append(("%s__%s.sdx" % (rule, what), rule, phase, description, data, exact))


def truncate_in(f, i, patch):
    """f's bytes cut in the middle of section i; with patch, file_bytes says the new size (and
    the header is resealed), so that the cut is caught by section_layout, not file_size_mismatch."""
    o, b = f.sec_offset(i), f.sec_bytes(i)
    cut = o + b // 2 if b >= 16 else o + b - 4
    g = File(f.base)
    g.d = bytearray(f.d[:cut])
    if patch:
        g.set64(16, cut)
        g.seal_header()
    return g.bytes()


def open_cases():
    # ---- file_too_small, bad_magic, unsupported_version, file_size_mismatch ----
    f = File("paper4")
    case("file_too_small", "empty", "open", "a 0-byte file", b"")
    case("file_too_small", "127_bytes", "open", "the first 127 bytes of a good file", f.bytes()[:127])
    g = File("paper4")
    cut = g.R - 40
    g.d = g.d[:cut]
    g.set64(16, cut)
    case("file_too_small", "header_region", "open",
         "cut inside the section table (128 <= size < R) with file_bytes = the new size", g.bytes())
    g = File("paper4")
    g.d[0] = 0x88
    case("bad_magic", "first_byte", "open", "magic byte 0 is 0x88 instead of 0x89", g.bytes())
    g = File("paper4")
    g.d[4:6] = b"\n\n"
    case("bad_magic", "crlf_mangled", "open", "magic `\\r\\n` turned into `\\n\\n` (text-mode transfer)", g.bytes())
    g = File("paper4")
    g.d[0:8] = b"SDX\x00\x00\x00\x00\x00"
    case("bad_magic", "not_an_index", "open", "first 8 bytes are not the magic at all", g.bytes())
    for v in (3, 0, 0xFFFF):
        g = File("paper4")
        g.set16(8, v)
        g.seal_header()
        case("unsupported_version", "major_%d" % v, "open", "version_major = %d (header checksum resealed)" % v, g.bytes())
    f = File("dup_ids")
    names = {0: "BLOCKS", 1: "BLOCK_KEYS", 2: "BLOCK_RANKS", 3 * f.T: "ID_OFFSETS", 3 * f.T + 1: "IDS"}
    for i, kind in names.items():
        case("file_size_mismatch", "truncated_in_%s" % kind, "open",
             "file cut in the middle of section %d (%s); file_bytes unchanged" % (i, kind), truncate_in(f, i, False))
    case("file_size_mismatch", "truncated_by_1", "open", "last byte missing", f.bytes()[:-1])
    case("file_size_mismatch", "extended", "open", "8 zero bytes appended", f.bytes() + bytes(8))
    g = File("dup_ids")
    g.set64(16, len(g.d) + 8)
    g.seal_header()
    case("file_size_mismatch", "file_bytes_field", "open", "file_bytes = size + 8 (header resealed)", g.bytes())

    # ---- bad_header_field (table_count, section_count: before the checksum) ----
    for T, what in ((0, "table_count_0"), (4097, "table_count_4097")):
        g = File("paper4")
        g.set32(40, T)
        case("bad_header_field", what, "open", "table_count = %d (checked before the header checksum)" % T, g.bytes())
    g = File("paper4")
    g.set32(44, g.S + 3)
    case("bad_header_field", "section_count", "open", "section_count = 3T + 5", g.bytes())
    g = File("paper4")
    g.set32(40, 4096)
    g.set32(44, 3 * 4096 + 2)
    case("file_too_small", "table_count_4096", "open",
         "table_count = 4096 (legal) with a consistent section_count: the header region R is larger than the file",
         g.bytes())

    # ---- header_checksum ----
    g = File("paper4")
    g.set64(120, g.u64(120) ^ 1)
    case("header_checksum", "stored_value", "open", "bit 0 of header_checksum flipped", g.bytes())
    g = File("paper4")
    g.d[56] ^= 0x20
    case("header_checksum", "scheme_name", "open", "scheme_name's first letter changed, not resealed", g.bytes())
    g = File("paper4")
    g.d[g.desc(1) + 136] += 1
    case("header_checksum", "descriptor", "open", "table 1 prefix_bits + 1, not resealed", g.bytes())
    g = File("paper4")
    g.d[g.entry(g.S - 1) + 24] ^= 0x80
    case("header_checksum", "section_entry", "open", "the IDS section's stored checksum changed, header not resealed", g.bytes())

    # ---- reserved_nonzero ----
    def hdr(what, desc, mut, base="paper4"):
        g = File(base)
        mut(g)
        g.seal_header()
        case(rule_of[0], what, "open", desc + " (header checksum resealed)", g.bytes())

    rule_of = ["reserved_nonzero"]
    hdr("flags", "flags = 1", lambda g: g.set32(12, 1))
    hdr("flags_high_bit", "flags = 0x80000000", lambda g: g.set32(12, 0x80000000))
    hdr("header_byte_54", "header byte 54 = 1", lambda g: g.set8(54, 1))
    hdr("header_byte_55", "header byte 55 = 0x80", lambda g: g.set8(55, 0x80))
    hdr("header_byte_88_v1", "a 1.x file whose header byte 88 is 1 (tagged_section_count is a 2.x field)",
        lambda g: g.set8(88, 1), base="v1_paper4")
    hdr("header_byte_92", "header byte 92 = 1 (the first reserved byte after tagged_section_count)",
        lambda g: g.set8(92, 1))
    hdr("header_byte_119", "header byte 119 = 1", lambda g: g.set8(119, 1))
    hdr("scheme_name_after_zero", "a printable byte after the first zero of scheme_name",
        lambda g: g.set8(56 + 31, ord("x")))
    hdr("scheme_name_nonzero_after_zero", "byte 0x01 two bytes after the first zero of scheme_name",
        lambda g: g.set8(56 + g.d[56:88].index(0) + 2, 1))
    hdr("descriptor_byte_137", "table 0 descriptor byte 137 = 1", lambda g: g.set8(g.desc(0) + 137, 1))
    hdr("descriptor_byte_159_last_table", "last table's descriptor byte 159 = 0xFF",
        lambda g: g.set8(g.desc(g.T - 1) + 159, 0xFF))

    # ---- bad_header_field (after the checksum) ----
    rule_of[0] = "bad_header_field"
    hdr("scheme_name_nonprintable", "scheme_name contains byte 0x7F", lambda g: g.set8(57, 0x7F))
    hdr("scheme_name_control", "scheme_name contains byte 0x09 (tab)", lambda g: g.set8(56, 0x09))
    hdr("scheme_name_high", "scheme_name contains byte 0xC3", lambda g: g.set8(58, 0xC3))
    hdr("block_bytes_not_multiple_of_8", "block_bytes = 1028", lambda g: g.set32(48, 1028))
    hdr("block_bytes_24", "block_bytes = 24 (< 32)", lambda g: g.set32(48, 24))
    hdr("block_bytes_0", "block_bytes = 0", lambda g: g.set32(48, 0))
    hdr("block_bytes_2MiB", "block_bytes = 2097152 (> 1048576)", lambda g: g.set32(48, 2097152))
    hdr("max_distance_65", "max_distance = 65", lambda g: g.set8(52, 65))
    hdr("max_distance_255", "max_distance = 255", lambda g: g.set8(52, 255))
    hdr("id_layout_2", "id_layout = 2", lambda g: g.set8(53, 2))
    hdr("id_count_below_n", "id_count = n - 1", lambda g: g.set64(32, g.n - 1))
    hdr("id_count_0_n_positive", "id_count = 0 with n > 0", lambda g: g.set64(32, 0))
    hdr("n0_id_count_nonzero", "n = 0 with id_count = 1", lambda g: g.set64(32, 1), base="empty")
    hdr("id_layout1_id_count_ne_n", "id_layout = 1 but id_count > n (file with several ids per fingerprint)",
        lambda g: g.set8(53, 1), base="dup_ids")
    hdr("prefix_bits_65", "table 1 prefix_bits = 65", lambda g: g.set8(g.desc(1) + 136, 65))
    hdr("block_count_0", "table 0 block_count = 0 with n > 0", lambda g: g.set64(g.desc(0) + 128, 0))
    hdr("block_count_above_n", "table 2 block_count = n + 1", lambda g: g.set64(g.desc(2) + 128, g.n + 1))
    hdr("block_count_n0", "n = 0 with table 0 block_count = 1", lambda g: g.set64(g.desc(0) + 128, 1), base="empty")

    # ---- bad_permutation ----
    rule_of[0] = "bad_permutation"
    hdr("duplicate_bit", "table 1 source_bit[5] = source_bit[6]",
        lambda g: g.set8(g.desc(1) + 5, g.d[g.desc(1) + 6]))
    hdr("bit_64", "table 0 source_bit[63] = 64", lambda g: g.set8(g.desc(0) + 63, 64))
    hdr("bit_255_last_table", "last table source_bit[0] = 255", lambda g: g.set8(g.desc(g.T - 1), 255))

    # ---- bad_code_lengths ----
    rule_of[0] = "bad_code_lengths"

    def lengths_mut(t, fn):
        def m(g):
            L = g.code_lengths(t)
            fn(L)
            g.d[g.desc(t) + 64:g.desc(t) + 128] = bytes(L)
        return m

    def over(L):  # shorten a longest code: Kraft sum > 1
        h = max(range(64), key=lambda s: (L[s], s))
        L[h] -= 1

    def under(L):  # lengthen a code of length < 12: Kraft sum < 1
        h = max((s for s in range(64) if 0 < L[s] < 12), key=lambda s: (L[s], s))
        L[h] += 1

    def extra_symbol(L):  # one more symbol with a code: over-subscribed
        h = next(s for s in range(64) if L[s] == 0)
        L[h] = 12

    def drop_symbol(L):  # one symbol less: under-subscribed
        h = max(range(64), key=lambda s: (L[s], s))
        L[h] = 0

    def len13(L):  # split a length-12 code in two of length 13
        h = next(s for s in range(64) if L[s] == 12)
        h2 = next(s for s in range(64) if L[s] == 0)
        L[h] = 13
        L[h2] = 13

    hdr("over_subscribed", "table 1: a longest code shortened by one bit (Kraft sum > 1)", lengths_mut(1, over), base="dup_ids")
    hdr("under_subscribed", "table 1: a code lengthened by one bit (Kraft sum < 1)", lengths_mut(1, under), base="dup_ids")
    hdr("extra_symbol", "table 0: one more symbol with a 12-bit code (Kraft sum > 1)", lengths_mut(0, extra_symbol), base="dup_ids")
    hdr("missing_symbol", "table 2: a longest code removed (Kraft sum < 1)", lengths_mut(2, drop_symbol), base="dup_ids")
    hdr("length_13", "table 0: the two 12-bit codes made 13-bit ones (complete, but longer than 12)",
        lengths_mut(0, len13), base="codelen12")
    hdr("single_symbol_length_2", "n = 2: the single symbol has length 2 instead of 1",
        lengths_mut(0, lambda L: L.__setitem__(L.index(1), 2)), base="n2_single_h")
    hdr("n2_all_zero", "n = 2: every code length 0", lengths_mut(1, lambda L: L.__setitem__(L.index(1), 0)),
        base="n2_single_h")
    hdr("n1_nonzero", "n = 1: code_length[0] = 1 (no h values exist)", lengths_mut(0, lambda L: L.__setitem__(0, 1)),
        base="single")
    hdr("n0_nonzero", "n = 0: two codes of length 1", lengths_mut(0, lambda L: (L.__setitem__(3, 1), L.__setitem__(7, 1))),
        base="empty")

    # ---- bad_header_field for block_count comes after the code lengths; section_layout ----
    rule_of[0] = "section_layout"

    def sec_mut(fn):
        def m(g):
            fn(g)
        return m

    hdr("kind", "section 1 has kind BLOCKS instead of BLOCK_KEYS", lambda g: g.set32(g.entry(1), 1))
    hdr("table", "section 3 (BLOCKS of table 1) says table 0", lambda g: g.set32(g.entry(3) + 4, 0))
    hdr("ids_table_field", "the IDS section's table is 0 instead of 0xFFFFFFFF", lambda g: g.set32(g.entry(g.S - 1) + 4, 0))

    def swap(g):
        a, b = g.entry(1), g.entry(2)
        ea, eb = bytes(g.d[a:a + 32]), bytes(g.d[b:b + 32])
        g.d[a:a + 32], g.d[b:b + 32] = eb, ea
    hdr("out_of_order", "section entries 1 (BLOCK_KEYS) and 2 (BLOCK_RANKS) swapped", swap)

    def shift(i, delta):
        def m(g):
            g.set64(g.entry(i) + 8, g.sec_offset(i) + delta)
        return m
    hdr("gap", "section 1 starts 8 bytes after section 0 ends", shift(1, 8))
    hdr("overlap", "section 1 starts 8 bytes before section 0 ends", shift(1, -8))
    hdr("first_not_at_R", "section 0 starts at R + 8", shift(0, 8))
    hdr("offset_huge", "section 4 offset = 2^64 - 8", lambda g: g.set64(g.entry(4) + 8, M64 - 7))
    hdr("size_wrong", "section 1 (BLOCK_KEYS) bytes = block_count*8 + 8",
        lambda g: g.set64(g.entry(1) + 16, g.sec_bytes(1) + 8))
    hdr("size_zero", "section 0 (BLOCKS) bytes = 0", lambda g: g.set64(g.entry(0) + 16, 0))

    def past_end(g):
        g.set64(32, g.id_count + 1)
        g.set64(g.entry(g.S - 1) + 16, g.sec_bytes(g.S - 1) + 8)
    hdr("past_end", "a 1.x file (no tagged section after IDS): id_count + 1 and IDS bytes + 8 (consistent "
        "sizes): IDS runs past the end of the file", past_end, base="v1_dup_ids")

    def short_end(g):
        g.set64(32, g.id_count - 1)
        g.set64(g.entry(g.S - 1) + 16, g.sec_bytes(g.S - 1) - 8)
    hdr("short_of_end", "a 1.x file (E = 0): id_count - 1 and IDS bytes - 8: the last section ends 8 bytes "
        "before the file", short_end, base="v1_dup_ids")

    def layout1_offsets(g):
        g.set64(g.entry(g.S - 2) + 16, (g.n + 1) * 8)
    hdr("id_offsets_with_layout_1", "id_layout = 1 but ID_OFFSETS bytes = (n+1)*8", layout1_offsets)

    def overflow(g):
        big = 1 << 61
        g.set64(24, big)
        g.set64(32, big)
        g.set64(g.desc(0) + 128, big)
    hdr("size_overflow", "n = id_count = 2^61 and table 0 block_count = 2^61: block_count*B overflows 64 bits",
        overflow)

    def overflow_ids(g):
        big = (1 << 61) + 5
        g.set64(24, big)
        g.set64(32, big)
    hdr("ids_size_overflow", "n = id_count = 2^61+5: id_count*8 overflows 64 bits (the BLOCKS sizes are right)",
        overflow_ids)

    f = File("dup_ids")
    for i, kind in {0: "BLOCKS", 1: "BLOCK_KEYS", 2: "BLOCK_RANKS", 3 * f.T: "ID_OFFSETS", 3 * f.T + 1: "IDS"}.items():
        case("section_layout", "truncated_in_%s" % kind, "open",
             "file cut in the middle of section %d (%s), file_bytes = the new size (header resealed)" % (i, kind),
             truncate_in(f, i, True))


def order_cases():
    """Two broken open rules: the first one in the order of §10 is reported."""
    def two(rule, what, desc, mut, base="dup_ids", seal=True):
        g = File(base)
        mut(g)
        if seal:
            g.seal_header()
        case(rule, "order_" + what, "open", "order of the open rules: " + desc, g.bytes())

    two("bad_magic", "magic_and_version", "bad magic and version_major = 2",
        lambda g: (g.set8(1, ord("s")), g.set16(8, 2)))
    two("unsupported_version", "version_and_size", "version_major = 3 and file_bytes wrong",
        lambda g: (g.set16(8, 3), g.set64(16, 12345)))
    two("file_size_mismatch", "size_and_table_count", "file_bytes wrong and table_count = 0",
        lambda g: (g.set64(16, 12345), g.set32(40, 0)))
    two("bad_header_field", "table_count_and_checksum", "table_count = 5000 and a wrong header checksum",
        lambda g: (g.set32(40, 5000), g.set64(120, 0)), seal=False)
    two("header_checksum", "checksum_and_reserved", "flags = 1 without resealing the header checksum",
        lambda g: g.set32(12, 1), seal=False)
    two("reserved_nonzero", "reserved_and_max_distance", "flags = 1 and max_distance = 99",
        lambda g: (g.set32(12, 1), g.set8(52, 99)))
    two("reserved_nonzero", "scheme_tail_and_nonprintable",
        "a non-printable scheme_name byte and a non-zero byte after its first zero",
        lambda g: (g.set8(57, 0x7F), g.set8(87, 1)))
    two("bad_header_field", "header_fields_and_descriptor_reserved",
        "id_layout = 2 and table 0 descriptor byte 140 = 1",
        lambda g: (g.set8(53, 2), g.set8(g.desc(0) + 140, 1)))
    two("reserved_nonzero", "descriptor_reserved_and_prefix_bits",
        "table 1: descriptor byte 140 = 1 and prefix_bits = 70",
        lambda g: (g.set8(g.desc(1) + 140, 1), g.set8(g.desc(1) + 136, 70)))
    two("bad_header_field", "prefix_bits_and_permutation", "table 1: prefix_bits = 70 and source_bit duplicated",
        lambda g: (g.set8(g.desc(1) + 136, 70), g.set8(g.desc(1) + 5, g.d[g.desc(1) + 6])))

    def perm_and_codes(g):
        g.set8(g.desc(2) + 5, g.d[g.desc(2) + 6])
        g.set8(g.desc(2) + 64 + 63, 12)
    two("bad_permutation", "permutation_and_code_lengths", "table 2: source_bit duplicated and code_length[63] = 12 (breaks Kraft's equality)", perm_and_codes)

    def codes_and_block_count(g):
        g.set8(g.desc(0) + 64 + 63, 12)
        g.set64(g.desc(0) + 128, 0)
    two("bad_code_lengths", "code_lengths_and_block_count", "table 0: code_length[63] = 12 (breaks Kraft's equality) and block_count = 0",
        codes_and_block_count)
    two("bad_permutation", "table0_before_table1",
        "table 0 source_bit duplicated and table 1 descriptor byte 150 = 1 (per table, in table order)",
        lambda g: (g.set8(g.desc(0) + 5, g.d[g.desc(0) + 6]), g.set8(g.desc(1) + 150, 1)))
    two("bad_header_field", "table0_block_count_before_table1_reserved",
        "table 0 block_count = n + 1 and table 1 descriptor byte 137 = 1 (per table, in table order)",
        lambda g: (g.set64(g.desc(0) + 128, g.n + 1), g.set8(g.desc(1) + 137, 1)))
    two("section_layout", "first_section_first", "section 1's kind and section 5's offset both wrong",
        lambda g: (g.set32(g.entry(1), 5), g.set64(g.entry(5) + 8, 0)))


def blocks_sealed(g, t, j):
    g.seal_block(t, j)
    g.seal_sections()


def first_block_where(name, mutate, detail_part):
    """The first (table, block) of good file `name` where mutate(file, block_offset) makes the
    reference decoder fail with a detail containing `detail_part`."""
    f = File(name)
    for t in range(f.T):
        for j in range(f.block_count(t)):
            g = File(name)
            mutate(g, g.block_off(t, j))
            try:
                g.decode(t, j)
            except SimdexError as e:
                if detail_part in e.detail:
                    return t, j
    raise AssertionError("no block of %s fails with %r" % (name, detail_part))


def verify_cases():
    # ---- section_checksum ----
    g = File("dup_ids")
    for i, kind in {0: "BLOCKS", 1: "BLOCK_KEYS", 2: "BLOCK_RANKS", 3 * g.T: "ID_OFFSETS", 3 * g.T + 1: "IDS"}.items():
        h = File("dup_ids")
        h.set64(h.entry(i) + 24, h.u64(h.entry(i) + 24) ^ (1 << 40))
        h.seal_header()
        case("section_checksum", "stored_%s" % kind, "verify",
             "section %d (%s): stored checksum changed, header resealed" % (i, kind), h.bytes())
    h = File("paper4")
    i = 3 * h.T
    h.set64(h.entry(i) + 24, 0)
    h.seal_header()
    case("section_checksum", "empty_section", "verify",
         "id_layout 1: the empty ID_OFFSETS section's checksum is 0, not XXH3-64 of no bytes", h.bytes())
    h = File("paper4")
    o = h.ids_off(5)
    h.set64(o, h.u64(o) ^ (1 << 50))
    case("section_checksum", "ids_data", "verify",
         "id_layout 1: one id changed (still a valid id), section checksum not resealed", h.bytes())
    # ---- block_checksum ----
    g = File("dup_ids")
    t, j = 1, 2
    o = g.block_off(t, j)
    g.set32(o, g.u32(o) ^ 0x00010000)
    g.seal_sections()
    case("block_checksum", "stored", "verify",
         "table 1 block 2: stored block_checksum changed; section and header checksums resealed", g.bytes())
    g = File("dup_ids")
    t, j = g.T - 1, g.block_count(g.T - 1) - 1
    o = g.block_off(t, j)
    g.set32(o, (g.u32(o) + 1) & 0xFFFFFFFF)
    g.seal_sections()
    case("block_checksum", "last_block_last_table", "verify",
         "the last block of the last table: block_checksum + 1; section and header resealed", g.bytes())
    g = File("dup_ids")
    o = g.block_off(0, 0)
    g.set32(o, checksum32(bytes(g.d[o:o + g.B])))  # checksum over [0, B) instead of [4, B)
    g.seal_sections()
    case("block_checksum", "covers_whole_block", "verify",
         "table 0 block 0: block_checksum computed over bytes [0, B) instead of [4, B)", g.bytes())

    # ---- bad_block ----
    def bb(what, desc, base, t, j, mut, exact=True):
        g = File(base)
        mut(g, g.block_off(t, j))
        blocks_sealed(g, t, j)
        case("bad_block", what, "verify", desc + " (block, section and header checksums resealed)", g.bytes(), exact)

    bb("entry_count_0", "table 0 block 1: entry_count = 0", "dup_ids", 0, 1,
       lambda g, o: g.set32(o + 4, 0), exact=False)
    bb("entry_count_too_large", "table 1 block 0: entry_count = 2 + (B-16)*8", "dup_ids", 1, 0,
       lambda g, o: g.set32(o + 4, 2 + (g.B - 16) * 8), exact=False)
    bb("entry_count_max", "table 1 block 0: entry_count = 0xFFFFFFFF", "dup_ids", 1, 0,
       lambda g, o: g.set32(o + 4, 0xFFFFFFFF), exact=False)
    bb("undecodable_code", "n = 2, single-symbol code: the stream starts with a 1 bit, which is no code",
       "n2_single_h", 0, 0, lambda g, o: g.set8(o + 16, g.d[o + 16] | 0x80), exact=False)
    bb("no_code_n1", "n = 1 (every code length 0): entry_count = 2, the second entry has no code", "single", 0, 0,
       lambda g, o: g.set32(o + 4, 2), exact=False)

    # bit h of the previous entry is 1: set bit h in first_entry (h of the first pair)
    def bit_h(g, o):
        e0 = g.u64(o + 8)
        t = 1
        ents = g.decode(t, 3)
        h = (ents[0] ^ ents[1]).bit_length() - 1
        g.set64(o + 8, e0 | (1 << h))
    f = File("dup_ids")
    assert len(f.decode(1, 3)) >= 2
    bb("bit_h_set", "table 1 block 3: bit h of first_entry set, h being the first code's symbol", "dup_ids", 1, 3,
       bit_h, exact=False)

    # runs past the stream: entry_count + 1 on a block whose padding is too short for one more entry
    one_more = lambda g, o: g.set32(o + 4, g.u32(o + 4) + 1)  # noqa: E731
    t, j = first_block_where("dup_ids", one_more, "past the stream")
    bb("runs_past_stream", "table %d block %d: entry_count + 1, the extra entry runs past the stream" % (t, j),
       "dup_ids", t, j, one_more, exact=False)

    # residual runs past: B = 32 blocks, find one where a code fits but its residual does not
    # padding not zero: the last stream bit of a block with at least one padding bit
    last_bit = lambda g, o: g.set8(o + g.B - 1, g.d[o + g.B - 1] | 1)  # noqa: E731
    t, j = first_block_where("dup_ids", last_bit, "padding")
    bb("padding_nonzero", "table %d block %d: the last padding bit is 1" % (t, j), "dup_ids", t, j, last_bit)
    bb("padding_all_ones_B4096", "B = 4096: the whole padding after the last entry is 0xFF bytes", "B4096", 2, 0,
       lambda g, o: g.d.__setitem__(slice(o + g.B - 3000, o + g.B), b"\xff" * 3000))

    # ---- keys_order ----
    g = File("dup_ids")
    t, j = 1, 4
    g.set64(g.key_off(t, j), g.u64(g.key_off(t, j)) + 1)
    assert g.u64(g.key_off(t, j)) < g.u64(g.block_off(t, j + 1) + 8)
    g.seal_sections()
    case("keys_order", "key_not_last_entry", "verify",
         "table 1 block 4: key = last entry + 1 (still below the next block's first entry); sections resealed",
         g.bytes())
    g = File("dup_ids")
    t = 1
    j = 5
    a, b = g.block_off(t, j), g.block_off(t, j + 1)
    ba, bb_ = bytes(g.d[a:a + g.B]), bytes(g.d[b:b + g.B])
    g.d[a:a + g.B], g.d[b:b + g.B] = bb_, ba
    ka, kb = g.u64(g.key_off(t, j)), g.u64(g.key_off(t, j + 1))
    g.set64(g.key_off(t, j), kb)
    g.set64(g.key_off(t, j + 1), ka)
    ca, cb = g.u32(a + 4), g.u32(b + 4)
    g.set64(g.rank_off(t, j + 1), g.u64(g.rank_off(t, j)) + ca)
    g.seal_sections()
    case("keys_order", "blocks_swapped", "verify",
         "table 1 blocks 5 and 6 swapped with their keys, ranks consistent: block 6's first entry is not above "
         "block 5's key (the set of entries is unchanged); sections resealed", g.bytes())

    # ---- block_ranks ----
    g = File("dup_ids")
    g.set64(g.rank_off(2, 0), 1)
    g.seal_sections()
    case("block_ranks", "rank0_nonzero", "verify", "table 2: rank[0] = 1; sections resealed", g.bytes(), exact=True)
    g = File("dup_ids")
    g.set64(g.rank_off(0, 3), g.u64(g.rank_off(0, 3)) + 1)
    g.seal_sections()
    case("block_ranks", "rank_disagrees", "verify", "table 0: rank[3] + 1; sections resealed", g.bytes())
    g = File("dup_ids")
    last = g.block_count(3) - 1
    g.set64(g.rank_off(3, last), g.u64(g.rank_off(3, last)) - 1)
    g.seal_sections()
    case("block_ranks", "last_rank", "verify", "table 3: the last block's rank - 1; sections resealed", g.bytes())

    # a table holding n - 1 entries: re-encode table 1 without one entry, same block count
    g = File("dup_ids")
    t = 1
    L = g.code_lengths(t)
    groups = [g.decode(t, j) for j in range(g.block_count(t))]
    jj = next(j for j, grp in enumerate(groups) if len(grp) >= 3)
    del groups[jj][1]
    entries = [e for grp in groups for e in grp]
    blocks, keys, ranks = encode_blocks(entries, L, g.B, [len(x) for x in groups])
    for j, blk in enumerate(blocks):
        o = g.block_off(t, j)
        g.d[o:o + g.B] = blk
        g.set64(g.key_off(t, j), keys[j])
        g.set64(g.rank_off(t, j), ranks[j])
    g.seal_sections()
    case("block_ranks", "table_holds_n_minus_1", "verify",
         "table 1 re-encoded without one entry (same blocks otherwise, consistent ranks): it holds n - 1 entries "
         "(table_mismatch follows)", g.bytes(), exact=False)

    # ---- table_mismatch ----
    def mismatch(base, t, what, desc):
        g = File(base)
        L = g.code_lengths(t)
        groups = [g.decode(t, j) for j in range(g.block_count(t))]
        # change one entry inside a block to a value between its neighbours that keeps every h coded
        for j, grp in enumerate(groups):
            for i in range(1, len(grp) - 1):
                lo, hi = grp[i - 1], grp[i + 1]
                for cand in (grp[i] ^ 1, grp[i] ^ 2, grp[i] ^ 4, grp[i] + 1, grp[i] - 1):
                    if lo < cand < hi and cand != grp[i]:
                        trial = grp[:i] + [cand] + grp[i + 1:]
                        try:
                            blocks, _, _ = encode_blocks(trial, L, g.B, [len(trial)])
                        except ValueError:
                            continue
                        o = g.block_off(t, j)
                        g.d[o:o + g.B] = blocks[0]
                        g.seal_sections()
                        case("table_mismatch", what, "verify", desc + " (block, section and header resealed)",
                             g.bytes())
                        return
        raise AssertionError("no candidate")

    mismatch("dup_ids", 2, "entry_changed", "table 2: one entry inside a block replaced by a nearby value")

    # the same bytes as block_ranks__table_holds_n_minus_1: table 1 lacks a fingerprint of table 0
    data = next(c[4] for c in CASES if c[0] == "block_ranks__table_holds_n_minus_1.sdx")
    case("table_mismatch", "table_holds_n_minus_1", "verify",
         "table 1 re-encoded without one entry (consistent blocks, keys and ranks; block_ranks follows): "
         "it lacks a fingerprint of table 0", data, exact=False)

    # a whole block moved: its first_entry + 2^b, b above every h of the block, so it still decodes
    g = File("dup_ids")
    t, j = 2, 3
    ents = g.decode(t, j)
    top = max((a ^ b).bit_length() - 1 for a, b in zip(ents, ents[1:]))
    b = top + 1
    while (ents[0] >> b) & 1:
        b += 1
    o = g.block_off(t, j)
    g.set64(o + 8, ents[0] + (1 << b))
    blocks_sealed(g, t, j)
    case("table_mismatch", "block_moved", "verify",
         "table 2 block 3: first_entry + 2^%d, above every h of the block: the block decodes to %d entries "
         "that are not in table 0 (keys_order follows; block, section and header resealed)" % (b, len(ents)),
         g.bytes(), exact=False)
    mismatch("paper4", 0, "table0_entry_changed", "table 0: one entry inside a block replaced by a nearby value")

    # ---- bad_ids ----
    def ids(what, desc, mut, base="dup_ids"):
        g = File(base)
        mut(g)
        g.seal_sections()
        case("bad_ids", what, "verify", desc + " (sections and header resealed)", g.bytes())

    ids("offset0_nonzero", "offset[0] = 1", lambda g: g.set64(g.id_offsets_off(0), 1))

    def not_asc(g):
        r = next(r for r in range(g.n) if g.u64(g.id_offsets_off(r + 1)) - g.u64(g.id_offsets_off(r)) >= 2)
        g.set64(g.id_offsets_off(r + 1), g.u64(g.id_offsets_off(r)))
    ids("offsets_not_ascending", "offset[r+1] = offset[r] (an empty id list)", not_asc)

    def descending(g):
        r = 5
        a, b = g.u64(g.id_offsets_off(r)), g.u64(g.id_offsets_off(r + 1))
        g.set64(g.id_offsets_off(r), b)
        g.set64(g.id_offsets_off(r + 1), a)
    ids("offsets_descending", "offset[5] and offset[6] swapped", descending)
    ids("offset_out_of_range", "offset[3] = 2^63 (far past id_count)", lambda g: g.set64(g.id_offsets_off(3), 1 << 63))
    ids("offset_max", "offset[n-1] = 2^64 - 1", lambda g: g.set64(g.id_offsets_off(g.n - 1), M64))
    ids("offset_n_ne_id_count", "offset[n] = id_count + 1",
        lambda g: g.set64(g.id_offsets_off(g.n), g.id_count + 1))

    def ids_swap(g):
        r = next(r for r in range(g.n) if g.u64(g.id_offsets_off(r + 1)) - g.u64(g.id_offsets_off(r)) >= 2)
        i = g.u64(g.id_offsets_off(r))
        a, b = g.u64(g.ids_off(i)), g.u64(g.ids_off(i + 1))
        g.set64(g.ids_off(i), b)
        g.set64(g.ids_off(i + 1), a)
    ids("ids_not_ascending", "the first two ids of a fingerprint swapped", ids_swap)

    def ids_dup(g):
        r = next(r for r in range(g.n) if g.u64(g.id_offsets_off(r + 1)) - g.u64(g.id_offsets_off(r)) >= 2)
        i = g.u64(g.id_offsets_off(r))
        g.set64(g.ids_off(i + 1), g.u64(g.ids_off(i)))
    ids("ids_duplicate", "a fingerprint's first id repeated (a pair stored twice)", ids_dup)
    ids("single_fp_ids_not_ascending", "n = 1: ids 1 and 2 of the only fingerprint swapped",
        lambda g: (lambda a, b: (g.set64(g.ids_off(1), b), g.set64(g.ids_off(2), a)))(g.u64(g.ids_off(1)), g.u64(g.ids_off(2))),
        base="single_many_ids")

    # ---- coverage ----
    g = File("paper4")
    g.set8(52, 4)
    g.seal_header()
    case("coverage", "max_distance_above_scheme", "verify",
         "paper-4 (4 tables of one 16-bit block each, covers k = 3) declaring max_distance = 4: fingerprints "
         "differing in one bit of each block share no prefix (header resealed)", g.bytes())
    g = File("paper4")
    g.set8(g.desc(1) + 136, 24)
    g.seal_header()
    case("coverage", "prefix_longer", "verify",
         "paper-4 with table 1's prefix_bits 16 -> 24 (its block and 8 bits of block 0): one bit of block 0 among "
         "those 8, one of block 2 and one of block 3 meet every prefix with k = 3 (header resealed)", g.bytes())


def tagged_cases():
    """The section directory (§5.1) and FINGERPRINT_SETTINGS (§5.2), from tagged_unknown_optional:
    entries FINGERPRINT_SETTINGS (tag 1), BLOCK_DIRECTORY (tag 2), tag 7 (24 bytes, optional, unknown
    to readers), tag 0x80000001 (empty, private), in this order."""
    base = "tagged_unknown_optional"
    f = File(base)
    SET, DIR, T7, PRIV = (f.tagged_index(tag) for tag in (FINGERPRINT_SETTINGS, BLOCK_DIRECTORY, 7, 0x80000001))
    assert (SET, DIR, T7, PRIV) == (0, 1, 2, 3) and f.E == 4, (SET, DIR, T7, PRIV, f.E)

    def tagged(rule, what, desc, mut, phase="open", reseal_header=True, exact=True):
        g = File(base)
        mut(g)
        if reseal_header:
            g.seal_header()
        case(rule, what, phase, desc + (" (header checksum resealed)" if reseal_header else ""), g.bytes(), exact)

    tagged("tag_order", "tag_0", "the first tagged section's tag is 0 (reserved)",
           lambda g: g.set32(g.tagged_entry(SET), 0))
    tagged("tag_order", "duplicate", "entries 0 and 1 both have tag 1 (BLOCK_DIRECTORY's tag 2 made 1)",
           lambda g: g.set32(g.tagged_entry(DIR), 1))
    tagged("tag_order", "unsorted", "tags 2 then 1 (the tags of entries 0 and 1 swapped, places unchanged)",
           lambda g: (g.set32(g.tagged_entry(SET), 2), g.set32(g.tagged_entry(DIR), 1)))
    tagged("reserved_nonzero", "tag_flags", "tag 7's tag_flags = 2 (a reserved bit)",
           lambda g: g.set32(g.tagged_entry(T7) + 4, 2))
    tagged("unknown_critical_section", "tag_7", "tag 7 (unknown) with CRITICAL set",
           lambda g: g.set32(g.tagged_entry(T7) + 4, 1))
    tagged("unknown_critical_section", "private_tag", "the empty private tag 0x80000001 with CRITICAL set",
           lambda g: g.set32(g.tagged_entry(PRIV) + 4, 1))
    tagged("section_layout", "tagged_overlap", "tag 7's section starts 8 bytes early: it overlaps BLOCK_DIRECTORY",
           lambda g: g.set64(g.tagged_entry(T7) + 8, g.tagged_offset(T7) - 8))
    tagged("section_layout", "tagged_overlaps_ids", "the first tagged section starts 8 bytes into IDS",
           lambda g: g.set64(g.tagged_entry(SET) + 8, g.tagged_offset(SET) - 8))
    tagged("section_layout", "tagged_gap", "tag 7's section starts 8 bytes after BLOCK_DIRECTORY ends",
           lambda g: g.set64(g.tagged_entry(T7) + 8, g.tagged_offset(T7) + 8))
    tagged("section_layout", "tagged_size_not_multiple_of_8", "tag 7's section is 20 bytes",
           lambda g: g.set64(g.tagged_entry(T7) + 16, 20))
    tagged("section_layout", "tagged_past_end", "the last tagged section is 8 bytes long (runs past the end)",
           lambda g: g.set64(g.tagged_entry(PRIV) + 16, 8))
    tagged("section_layout", "tagged_huge", "tag 7's section is 2^64 - 8 bytes (its end overflows 64 bits)",
           lambda g: g.set64(g.tagged_entry(T7) + 16, M64 - 7))

    def short_of_end(g):
        g.d += bytes(8)
        g.set64(16, len(g.d))
    tagged("section_layout", "tagged_short_of_end", "8 zero bytes appended and file_bytes updated: the last "
           "tagged section ends before the file", short_of_end)
    tagged("bad_header_field", "tagged_section_count_1025", "tagged_section_count = 1025 (checked before "
           "the header checksum)", lambda g: g.set32(88, 1025), reseal_header=False)

    def settings(what, desc, mut):
        def m(g):
            mut(g, g.tagged_offset(SET))
            g.seal_tagged(SET)
        tagged("bad_tagged_section", what, "FINGERPRINT_SETTINGS: " + desc + " (its checksum resealed)", m)
    settings("settings_shingle_0", "shingle_size = 0", lambda g, o: g.set8(o + 4, 0))
    settings("settings_shingle_17", "shingle_size = 17", lambda g, o: g.set8(o + 4, 17))
    settings("settings_weighting_2", "weighting = 2", lambda g, o: g.set8(o + 5, 2))
    settings("settings_reserved", "reserved byte 6 = 1", lambda g, o: g.set8(o + 6, 1))
    settings("settings_count_too_large", "stopword_count one more than the entries",
             lambda g, o: g.set32(o + 8, g.u32(o + 8) + 1))
    settings("settings_unsorted", "the first stopword `ss` becomes `zz` (above `the`)",
             lambda g, o: g.d.__setitem__(slice(o + 20, o + 22), b"zz"))
    settings("settings_padding", "a padding byte is 1", lambda g, o: g.set8(o + g.tagged_bytes(SET) - 1, 1))
    tagged("bad_tagged_section", "settings_checksum", "a stopword byte of FINGERPRINT_SETTINGS changed, its "
           "checksum not resealed", lambda g: g.set8(g.tagged_offset(SET) + 20, ord("t")))
    tagged("section_checksum", "tagged_unknown", "a byte of tag 7's section (unknown to readers, optional) "
           "changed, its checksum not resealed", lambda g: g.set8(g.tagged_offset(T7) + 3, 0xEE),
           phase="verify", reseal_header=False)


def directory_cases():
    """BLOCK_DIRECTORY (§5.3). Open phase (its size, directory_table_count, reserved bytes, padding
    and directory_bits) from paper20 (T = 20: 4 bytes of padding after directory_bits; 2 blocks per
    table, d_t = 1); verify phase (its entries) from dup_ids (about 10 blocks per table, d_t = 3).
    Each mutation reseals the section's checksum in its TaggedSectionEntry, then the header checksum,
    so that only the intended rule fires."""
    def directory(rule, what, phase, desc, mut, base, reseal=True, exact=True):
        g = File(base)
        mut(g, g.directory_offset())
        if reseal:
            g.seal_tagged(g.directory())
        g.seal_header()
        case(rule, what, phase, "BLOCK_DIRECTORY: " + desc + (" (its checksum and the header checksum resealed)"
                                                              if reseal else " (header checksum resealed)"),
             g.bytes(), exact)

    f = File("paper20")
    assert f.T % 8 and all(f.directory_bits(t) == 1 for t in range(f.T)), "paper20: T %% 8 = 0 or d_t != 1"

    def bad_open(what, desc, mut, base="paper20"):
        directory("bad_tagged_section", what, "open", desc, mut, base)

    bad_open("directory_table_count", "directory_table_count = T + 1", lambda g, o: g.set32(o, g.T + 1))
    bad_open("directory_table_count_0", "directory_table_count = 0", lambda g, o: g.set32(o, 0))
    bad_open("directory_reserved", "reserved byte 7 = 1", lambda g, o: g.set8(o + 7, 1))
    bad_open("directory_padding", "the last padding byte after directory_bits (byte H - 1) = 1",
             lambda g, o: g.set8(o + g.directory_header() - 1, 1))
    bad_open("directory_bits_33", "directory_bits[3] = 33 (> 32)", lambda g, o: g.set8(o + 8 + 3, 33))
    bad_open("directory_bits_255", "directory_bits[0] = 255", lambda g, o: g.set8(o + 8, 255))
    bad_open("directory_size", "directory_bits[5] = 2 instead of 1: the section's size is not H + the sum of "
             "4 * 2^d_t", lambda g, o: g.set8(o + 8 + 5, 2))
    bad_open("directory_bits_0_size", "directory_bits[19] = 0 instead of 1 (the entries stay): the section's size "
             "is 8 bytes more than H + the sum of 4 * 2^d_t", lambda g, o: g.set8(o + 8 + 19, 0))

    def empty(g):
        # The directory's bytes cut out (it is the last section): an entry of 0 bytes.
        i = g.directory()
        assert i == g.E - 1
        del g.d[g.tagged_offset(i):]
        g.set64(g.tagged_entry(i) + 16, 0)
        g.set64(16, len(g.d))
    directory("bad_tagged_section", "directory_empty", "open", "0 bytes (the section's bytes removed and "
              "file_bytes updated): not even directory_table_count", lambda g, o: empty(g), "paper20")

    # verify phase: the entries are hints until verified (§5.3)
    f = File("dup_ids")
    t = 1
    bits = f.directory_bits(t)
    count = f.block_count(t)
    entries = f.slot_entries(t)
    assert bits >= 2 and entries == slot_blocks([f.u64(f.key_off(t, j)) for j in range(count)], bits)
    s = next(s for s in range(1, 1 << bits) if entries[s] < count)
    directory("bad_tagged_section", "directory_entry_off_by_one", "verify",
              "table %d slot %d: slot_block %d instead of %d (still <= block_count %d)"
              % (t, s, entries[s] + 1, entries[s], count),
              lambda g, o: g.set32(g.slot_off(t, s), entries[s] + 1), "dup_ids")
    s2 = (1 << bits) - 1
    directory("bad_tagged_section", "directory_entry_max", "verify",
              "table %d slot %d (the last): slot_block 0xFFFFFFFF, above block_count %d (a reader clamps it and "
              "never reads outside the table's blocks)" % (t, s2, count),
              lambda g, o: g.set32(g.slot_off(t, s2), 0xFFFFFFFF), "dup_ids")
    s3 = next(s for s in range((1 << bits) - 1) if entries[s] != entries[s + 1])
    directory("bad_tagged_section", "directory_entries_unsorted", "verify",
              "table %d: slots %d and %d swapped (%d, %d): the entries descend there"
              % (t, s3, s3 + 1, entries[s3 + 1], entries[s3]),
              lambda g, o: (g.set32(g.slot_off(t, s3), entries[s3 + 1]), g.set32(g.slot_off(t, s3 + 1), entries[s3])),
              "dup_ids")
    t4 = f.T - 1
    directory("bad_tagged_section", "directory_last_table_zero", "verify",
              "table %d (the last): every entry 0, as if every key were above the last slot's first value" % t4,
              lambda g, o: g.d.__setitem__(slice(g.slot_off(t4, 0), g.slot_off(t4, 0) + (4 << g.directory_bits(t4))),
                                           bytes(4 << g.directory_bits(t4))), "dup_ids")
    directory("section_checksum", "directory_stored", "verify",
              "the stored checksum in its TaggedSectionEntry changed; the section itself is right (a reader does "
              "not check it at open)",
              lambda g, o: g.set64(g.tagged_entry(g.directory()) + 24, g.u64(g.tagged_entry(g.directory()) + 24) ^ 1),
              "dup_ids", reseal=False)


def check_case(name, rule, phase, data, exact):
    try:
        idx = simdex_ref.open_bytes(data, name)
    except SimdexError as e:
        assert phase == "open", "%s: open failed with %s: %s" % (name, e.rule, e.detail)
        assert e.rule == rule, "%s: open failed with %s (%s), expected %s" % (name, e.rule, e.detail, rule)
        return "open: %s" % e.detail
    assert phase == "verify", "%s: opened, expected open to fail with %s" % (name, rule)
    problems = simdex_ref.verify_index(idx)
    rules = sorted({p[0] for p in problems})
    assert rule in rules, "%s: verify reports %s, expected %s" % (name, problems[:4], rule)
    if exact:
        assert rules == [rule], "%s: verify reports %s, expected only %s" % (name, rules, rule)
    return "verify: %s" % ", ".join(rules)


def main(argv):
    os.makedirs(BAD, exist_ok=True)
    for old in os.listdir(BAD):
        if old.endswith(".sdx"):
            os.remove(os.path.join(BAD, old))
    open_cases()
    tagged_cases()
    directory_cases()
    order_cases()
    verify_cases()
    seen = set()
    lines = []
    for name, rule, phase, desc, data, exact in CASES:
        assert name not in seen, name
        seen.add(name)
        got = check_case(name, rule, phase, data, exact)
        with open(os.path.join(BAD, name), "wb") as f:
            f.write(data)
        lines.append("%s\t%s\t%s\t%s\n" % (name, rule, phase, desc))
        if "-v" in argv:
            print("%-60s %s" % (name, got))
    with open(os.path.join(BAD, "MANIFEST.tsv"), "w") as f:
        f.write("# FILE\tRULE\tPHASE\tDESCRIPTION  (generated by make_bad.py from good/*.sdx)\n")
        f.writelines(lines)
    rules = sorted({c[1] for c in CASES})
    print("%d bad files, %d rules: %s" % (len(CASES), len(rules), " ".join(rules)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
