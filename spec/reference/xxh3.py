"""XXH3-64 (seed 0, default secret) in pure Python, standard library only.

Written from the prose and pseudocode of the xxHash specification
(Cyan4973/xxHash, doc/xxhash_spec.md, "XXH3 Algorithm Description"), not from xxhash.h.
Only what simdex needs: XXH3_64bits(data) with seed 0 and the default 192-byte secret.
"""

import struct

M64 = (1 << 64) - 1
M32 = (1 << 32) - 1

PRIME32_1 = 0x9E3779B1
PRIME32_2 = 0x85EBCA77
PRIME32_3 = 0xC2B2AE3D
PRIME64_1 = 0x9E3779B185EBCA87
PRIME64_2 = 0xC2B2AE3D27D4EB4F
PRIME64_3 = 0x165667B19E3779F9
PRIME64_4 = 0x85EBCA77C2B2AE63
PRIME64_5 = 0x27D4EB2F165667C5
PRIME_MX1 = 0x165667919E3779F9
PRIME_MX2 = 0x9FB21C651E98DF25

SECRET = bytes([
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
])
SECRET_LEN = len(SECRET)  # 192

# The secret read as a little-endian u64 / u32 at every byte offset (the spec reads it unaligned).
_S64 = [int.from_bytes(SECRET[o:o + 8], "little") for o in range(SECRET_LEN - 7)]
_S32 = [int.from_bytes(SECRET[o:o + 4], "little") for o in range(SECRET_LEN - 3)]

STRIPE_LEN = 64
STRIPES_PER_BLOCK = (SECRET_LEN - 64) // 8  # 16
BLOCK_LEN = STRIPE_LEN * STRIPES_PER_BLOCK  # 1024

_u64x2 = struct.Struct("<2Q")
_u64x8 = struct.Struct("<8Q")


def _rotl64(x, s):
    return ((x << s) | (x >> (64 - s))) & M64


def _bswap64(x):
    return int.from_bytes(x.to_bytes(8, "little"), "big")


def _avalanche(x):
    x ^= x >> 37
    x = (x * PRIME_MX1) & M64
    x ^= x >> 32
    return x


def _avalanche_xxh64(x):
    x ^= x >> 33
    x = (x * PRIME64_2) & M64
    x ^= x >> 29
    x = (x * PRIME64_3) & M64
    x ^= x >> 32
    return x


def _mix_step(data, pos, secret_offset):
    """mixStep of the spec with seed 0: 16 bytes of data at pos, 16 bytes of secret."""
    d0, d1 = _u64x2.unpack_from(data, pos)
    product = (d0 ^ _S64[secret_offset]) * (d1 ^ _S64[secret_offset + 8])
    return (product & M64) ^ (product >> 64)


def _len_0():
    return _avalanche_xxh64(_S64[56] ^ _S64[64])


def _len_1to3(data):
    n = len(data)
    combined = data[n - 1] | (n << 8) | (data[0] << 16) | (data[n >> 1] << 24)
    value = ((_S32[0] ^ _S32[4]) & M32) ^ combined
    return _avalanche_xxh64(value)


def _len_4to8(data):
    n = len(data)
    first = int.from_bytes(data[0:4], "little")
    last = int.from_bytes(data[n - 4:n], "little")
    combined = last | (first << 32)
    value = (_S64[8] ^ _S64[16]) ^ combined  # minus modifiedSeed, which is 0 for seed 0
    value ^= _rotl64(value, 49) ^ _rotl64(value, 24)
    value = (value * PRIME_MX2) & M64
    value ^= (value >> 35) + n
    value = (value * PRIME_MX2) & M64
    value ^= value >> 28
    return value


def _len_9to16(data):
    n = len(data)
    first = int.from_bytes(data[0:8], "little")
    last = int.from_bytes(data[n - 8:n], "little")
    low = (_S64[24] ^ _S64[32]) ^ first
    high = (_S64[40] ^ _S64[48]) ^ last
    product = low * high
    value = (n + _bswap64(low) + high + ((product & M64) ^ (product >> 64))) & M64
    return _avalanche(value)


def _len_17to128(data):
    n = len(data)
    acc = (n * PRIME64_1) & M64
    rounds = ((n - 1) >> 5) + 1
    for i in range(rounds - 1, -1, -1):
        acc += _mix_step(data, i * 16, i * 32)
        acc += _mix_step(data, n - i * 16 - 16, i * 32 + 16)
    return _avalanche(acc & M64)


def _len_129to240(data):
    n = len(data)
    acc = (n * PRIME64_1) & M64
    chunks = n >> 4
    for i in range(8):
        acc += _mix_step(data, i * 16, i * 16)
    acc = _avalanche(acc & M64)
    for i in range(8, chunks):
        acc += _mix_step(data, i * 16, (i - 8) * 16 + 3)
    acc += _mix_step(data, n - 16, 119)
    return _avalanche(acc & M64)


_SCRAMBLE = [_S64[SECRET_LEN - 64 + 8 * i] for i in range(8)]


def _accumulate(acc, stripe, secret_offset):
    """accumulate(stripe[8], secretOffset): 8 lanes, in place."""
    for i in range(8):
        lane = stripe[i]
        value = lane ^ _S64[secret_offset + 8 * i]
        acc[i ^ 1] = (acc[i ^ 1] + lane) & M64
        acc[i] = (acc[i] + (value & M32) * (value >> 32)) & M64


def _scramble(acc):
    for i in range(8):
        a = acc[i]
        a ^= a >> 47
        a ^= _SCRAMBLE[i]
        acc[i] = (a * PRIME32_1) & M64


def _len_large(data):
    n = len(data)
    acc = [PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1]
    # Step 2: full blocks while more than one block's worth remains (the last block, even if
    # full, is left to step 3).
    full_blocks = (n - 1) // BLOCK_LEN
    unpack = _u64x8.unpack_from
    for b in range(full_blocks):
        base = b * BLOCK_LEN
        for s in range(STRIPES_PER_BLOCK):
            _accumulate(acc, unpack(data, base + s * STRIPE_LEN), s * 8)
        _scramble(acc)
    # Step 3: the last block's full stripes except the last one, then the last 64 bytes.
    base = full_blocks * BLOCK_LEN
    last_len = n - base  # 1 .. BLOCK_LEN
    for s in range((last_len - 1) // STRIPE_LEN):
        _accumulate(acc, unpack(data, base + s * STRIPE_LEN), s * 8)
    _accumulate(acc, unpack(data, n - STRIPE_LEN), SECRET_LEN - 71)
    # Step 4: final merge with secret offset 11.
    result = (n * PRIME64_1) & M64
    for i in range(4):
        product = (acc[2 * i] ^ _S64[11 + 16 * i]) * (acc[2 * i + 1] ^ _S64[11 + 16 * i + 8])
        result += (product & M64) ^ (product >> 64)
    return _avalanche(result & M64)


def xxh3_64(data):
    """XXH3_64bits(data) with seed 0 and the default secret."""
    data = bytes(data) if not isinstance(data, (bytes, bytearray, memoryview)) else data
    if isinstance(data, memoryview):
        data = data.tobytes()
    n = len(data)
    if n == 0:
        return _len_0()
    if n <= 3:
        return _len_1to3(data)
    if n <= 8:
        return _len_4to8(data)
    if n <= 16:
        return _len_9to16(data)
    if n <= 128:
        return _len_17to128(data)
    if n <= 240:
        return _len_129to240(data)
    return _len_large(data)


def checksum32(data):
    """Low 32 bits of XXH3-64 (spec/FORMAT.md §1)."""
    return xxh3_64(data) & M32


if __name__ == "__main__":  # pragma: no cover - manual check
    import sys
    for arg in sys.argv[1:]:
        with open(arg, "rb") as f:
            print("%016x  %s" % (xxh3_64(f.read()), arg))
