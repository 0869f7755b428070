"""Document ids and the key map (spec/KEYS.md), written from the spec alone (standard library).

    from keys_ref import key_id, escape_key, write_key_map, read_key_map

key_id(b"...") is the id of a key; write_key_map({id: key}) the bytes a writer writes;
read_key_map(data) the {id: key} a reader reads, raising ValueError("LINE: why") for anything the
spec tells a reader to reject (and reading simdex 0.1's paths.tsv listings, §3).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xxh3 import xxh3_64  # noqa: E402

HEADER = b"#simdex-keys 1\n"
SHORT = {0x5C: b"\\\\", 0x09: b"\\t", 0x0A: b"\\n", 0x0D: b"\\r"}


def key_id(key):
    return xxh3_64(key)


def _hex_escaped(b):
    return (b < 0x20 or b == 0x7F) and b not in SHORT


def escape_key(key):
    out = bytearray()
    for b in key:
        if b in SHORT:
            out += SHORT[b]
        elif _hex_escaped(b):
            out += b"\\x%02x" % b
        else:
            out.append(b)
    return bytes(out)


def unescape_key(s):
    out, i = bytearray(), 0
    while i < len(s):
        b = s[i]
        if b < 0x20 or b == 0x7F:
            raise ValueError("raw control byte")
        if b != 0x5C:
            out.append(b)
            i += 1
            continue
        nxt = s[i + 1:i + 2]
        back = {b"\\": 0x5C, b"t": 0x09, b"n": 0x0A, b"r": 0x0D}
        if nxt in back:
            out.append(back[nxt])
            i += 2
        elif nxt == b"x":
            digits = s[i + 2:i + 4]
            if len(digits) != 2 or any(c not in b"0123456789abcdef" for c in digits):
                raise ValueError("bad \\x escape")
            value = int(digits, 16)
            if not _hex_escaped(value):
                raise ValueError("\\x%02x is not how this byte is written" % value)
            out.append(value)
            i += 4
        else:
            raise ValueError("bad escape")
    return bytes(out)


def write_key_map(keys):
    return HEADER + b"".join(b"%d\t%s\n" % (i, escape_key(keys[i])) for i in sorted(keys))


def read_key_map(data):
    if not data:
        raise ValueError("an empty file is not a key map")
    legacy = not data.startswith(b"#")
    line_no = 1
    if not legacy:
        if not data.startswith(HEADER):
            raise ValueError("1: not a key map of version 1")
        data = data[len(HEADER):]
        line_no = 2
    if data and not data.endswith(b"\n"):
        raise ValueError("last line without LF")
    keys, last = {}, None
    for line in data.split(b"\n")[:-1] if data else []:
        if b"\t" not in line:
            raise ValueError("%d: no TAB" % line_no)
        digits, key = line.split(b"\t", 1)
        if not digits.isdigit() or not digits.isascii() or (len(digits) > 1 and digits[:1] == b"0") or int(digits) >= 1 << 64:
            raise ValueError("%d: bad id" % line_no)
        ident = int(digits)
        if last is not None and ident <= last:
            raise ValueError("%d: ids not ascending" % line_no)
        try:
            keys[ident] = key if legacy else unescape_key(key)
        except ValueError as e:
            raise ValueError("%d: %s" % (line_no, e))
        last = ident
        line_no += 1
    return keys
