// One block of a table (spec/FORMAT.md, "Blocks"):
//   offset 0  block_checksum u32  low 32 bits of XXH3-64 of bytes [4, block_bytes)
//   offset 4  entry_count    u32  >= 1
//   offset 8  first_entry    u64  the first (permuted) fingerprint, raw
//   offset 16 bit stream, MSB first: per next entry, code(h) then the h bits of the entry below h;
//             then zero bits up to the end of the block.
// h is the index of the highest 1-bit of (entry XOR previous entry); since entries ascend, bit h is
// 0 in the previous entry and 1 in this one, and the bits above h are equal.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "format/endian.h"
#include "format/huffman.h"
#include "format/layout.h"

namespace simdex::format {

inline unsigned h_of(uint64_t previous, uint64_t entry) {
  return 63u - static_cast<unsigned>(std::countl_zero(previous ^ entry));
}
inline uint64_t low_bits(uint64_t x, unsigned n) { return n == 0 ? 0 : x & (~uint64_t{0} >> (64 - n)); }
inline uint64_t block_capacity_bits(uint32_t block_bytes) {
  return (uint64_t{block_bytes} - kBlockHeaderBytes) * 8;
}

// Fills blocks entry by entry; the caller moves to a new block when add() says the entry won't fit.
class BlockEncoder {
 public:
  BlockEncoder(const CodeLengths& lengths, uint32_t block_bytes);
  void start(uint64_t first_entry);
  // Appends `entry` (> the last one) if its bits fit in this block; false leaves the block unchanged.
  bool add(uint64_t entry);
  // Completes header and checksum; the returned block_bytes bytes stay valid until the next start().
  const uint8_t* finish();
  uint32_t entry_count() const { return count_; }
  uint64_t last_entry() const { return last_; }
  uint32_t block_bytes() const { return block_bytes_; }

 private:
  static constexpr unsigned kMaxPutBits = 57;  // 64 minus the up to 7 bits already in the first byte
  void put_bits(uint64_t value, unsigned n);   // 1 <= n <= kMaxPutBits
  CanonicalCode code_;
  std::vector<uint8_t> buf_;
  uint32_t block_bytes_;
  uint64_t bit_pos_ = 0;
  uint64_t last_ = 0;
  uint32_t count_ = 0;
};

enum class BlockStatus : uint8_t {
  ok,         // every entry decoded
  stopped,    // the visitor asked to stop
  bad_count,  // entry_count is 0 or more than the block can hold
  bad_code,   // bits that start no code of this table
  bad_order,  // bit h of the previous entry is 1: the entry would not ascend
  overrun,    // the entries need more bits than the block has
};
const char* block_status_text(BlockStatus s);

struct BlockResult {
  BlockStatus status;
  uint32_t decoded;  // entries passed to the visitor
  uint64_t last;     // the last entry decoded
  uint64_t end_bit;  // bit position after the last entry, within the bit stream
};

// Decodes the block at `block`. `readable` is how many bytes from `block` may be read (>= block_bytes;
// more lets the bit reader load 8 bytes at a time near the end). visit(entry, index) returns false to
// stop. No allocation, no reads outside [block, block + readable).
template <typename Visit>
BlockResult decode_block(const uint8_t* block, uint32_t block_bytes, std::size_t readable,
                         const DecodeTable& table, Visit&& visit) {
  const uint64_t capacity = block_capacity_bits(block_bytes);
  const uint32_t count = load_le32(block + 4);
  uint64_t entry = load_le64(block + 8);
  if (count == 0 || count - 1 > capacity) return {BlockStatus::bad_count, 0, entry, 0};
  const uint8_t* stream = block + kBlockHeaderBytes;
  const std::size_t stream_readable = readable - kBlockHeaderBytes;
  // 64 bits from bit `pos`, MSB-aligned; at least 57 of them are real stream bits.
  auto peek = [&](uint64_t pos) -> uint64_t {
    const std::size_t byte = pos >> 3;
    uint64_t w;
    if (byte + 8 <= stream_readable) {
      w = load_be64(stream + byte);
    } else {
      w = 0;
      for (std::size_t i = 0; i < 8; ++i) w = (w << 8) | (byte + i < stream_readable ? stream[byte + i] : 0);
    }
    return w << (pos & 7);
  };
  if (!visit(entry, 0u)) return {BlockStatus::stopped, 1, entry, 0};
  uint64_t pos = 0;
  for (uint32_t i = 1; i < count; ++i) {
    // One 64-bit load serves code and rest when they span at most 57 bits (nearly always: h is about
    // 64 - log2(n) and codes are short); the rest needs a second load only beyond that.
    const uint64_t w = peek(pos);
    const uint16_t symbol = table.lookup(static_cast<uint32_t>(w >> (64 - DecodeTable::kIndexBits)));
    const unsigned len = symbol >> 8;
    if (len == 0) return {BlockStatus::bad_code, i, entry, pos};
    const unsigned h = symbol & 63;
    uint64_t rest = 0;
    if (h > 0) {
      if (len + h <= 57) {
        rest = (w << len) >> (64 - h);
      } else if (h <= 57) {
        rest = peek(pos + len) >> (64 - h);
      } else {
        rest = ((peek(pos + len) >> 32) << (h - 32)) | (peek(pos + len + 32) >> (96 - h));
      }
    }
    pos += len + h;
    if (pos > capacity) return {BlockStatus::overrun, i, entry, pos};
    if ((entry >> h) & 1) return {BlockStatus::bad_order, i, entry, pos};
    const uint64_t high = h == 63 ? 0 : (entry >> (h + 1)) << (h + 1);
    entry = high | (uint64_t{1} << h) | rest;
    if (!visit(entry, i)) return {BlockStatus::stopped, i + 1, entry, pos};
  }
  return {BlockStatus::ok, count, entry, pos};
}

// True when the bit stream is zero from bit `end_bit` to the end of the block.
bool block_padding_is_zero(const uint8_t* block, uint32_t block_bytes, uint64_t end_bit);

}  // namespace simdex::format
