// One block of a table (spec/FORMAT.md, "Blocks"):
//   offset 0  block_checksum u32  low 32 bits of XXH3-64 of bytes [4, block_bytes)
//   offset 4  entry_count    u32  >= 1
//   offset 8  first_entry    u64  the first (permuted) fingerprint, raw
//   offset 16 bit stream, MSB first: per next entry, code(h) then the h bits of the entry below h;
//             then zero bits up to the end of the block.
// h is the index of the highest 1-bit of (entry XOR previous entry); since entries ascend, bit h is
// 0 in the previous entry and 1 in this one, and the bits above h are equal.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "format/endian.h"
#include "format/huffman.h"
#include "format/layout.h"

namespace simdex::format {

inline unsigned h_of(uint64_t previous, uint64_t entry) {
  return 63u - static_cast<unsigned>(std::countl_zero(previous ^ entry));
}
inline uint64_t low_bits(uint64_t x, unsigned n) { return n == 0 ? 0 : x & (~uint64_t{0} >> (64 - n)); }
// 1 << h by a load: a shift by a variable count is several micro-ops on many x86 cores.
inline constexpr auto kBitAt = [] {
  std::array<uint64_t, 64> bits{};
  for (unsigned h = 0; h < 64; ++h) bits[h] = uint64_t{1} << h;
  return bits;
}();
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
  // Appends `entry` (> the last one) to a block that fits() so far, unchecked: for a caller that
  // cut the blocks by entry_bits already, and checks fits() after each entry.
  void append(uint64_t entry);
  bool fits() const { return bit_pos_ <= block_capacity_bits(block_bytes_); }
  // The bits an entry takes after `previous` in a block's stream (code(h) and the h bits below h):
  // the entry goes to a new block when they do not fit.
  unsigned entry_bits(uint64_t previous, uint64_t entry) const {
    const unsigned h = h_of(previous, entry);
    return code_.length[h] + h;
  }
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
  uint64_t pending_ = 0;  // the bits of the stream's last, partial byte, at the top
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
  bool operator==(const BlockResult&) const = default;
};

// Reads a block's entries one at a time (decode_block and decode_two_blocks step it). No
// allocation, no reads outside [block, block + readable), where readable >= block_bytes (more lets
// the bit reader load 8 bytes at a time near the end).
class BlockCursor {
 public:
  BlockCursor(const uint8_t* block, uint32_t block_bytes, std::size_t readable, const DecodeTable& table)
      : stream_(block + kBlockHeaderBytes),
        stream_readable_(readable - kBlockHeaderBytes),
        capacity_(block_capacity_bits(block_bytes)),
        table_(&table),
        count_(load_le32(block + 4)),
        entry_(load_le64(block + 8)),
        window_(peek(0)),
        ahead_(bytes_at(8)) {
    if (count_ == 0 || count_ - 1 > capacity_) status_ = BlockStatus::bad_count;
  }

  // ok, also at the block's end; bad_count from the start when entry_count is illegal; stopped
  // after stop(); else the bad entry that next() met.
  BlockStatus status() const { return status_; }
  uint64_t entry() const { return entry_; }  // entry index() of the block, once status() is ok
  uint32_t index() const { return index_; }

  // Moves to the next entry. False at the end of the block (status stays ok) or on a bad entry
  // (status says which; entry() stays the last good one).
  [[gnu::always_inline]] bool next() {
    if (index_ + 1 >= count_) return false;
    // The window holds the 64 bits from pos_, so code and rest come without a load when they span at
    // most 57 bits (nearly always: h is about 64 - log2(n) and codes are short), and the next window
    // is this one shifted, filled from the bytes ahead of it: the chain from one entry to the next
    // is a table lookup and two shifts, not also a load from a position just computed (a join of
    // 4,096 queries against 1M 1.11-1.12x faster; bench/RESULTS.md). The bytes ahead are loaded
    // off the chain. Few instructions: the decode of two blocks in turn is bound by them.
    const uint64_t w = window_;
    const uint16_t code = table_->lookup(static_cast<uint32_t>(w >> (64 - DecodeTable::kIndexBits)));
    const unsigned bits = DecodeTable::entry_bits(code);  // code(h) and the h bits below h
    const unsigned h = DecodeTable::entry_symbol(code);
    const uint64_t below = kBitAt[h] - 1;  // bits 0 to h - 1
    const uint64_t next_pos = pos_ + bits;
    uint64_t rest;
    if (bits - 1 < 57) [[likely]] {       // 1 to 57 bits
      rest = (w >> (64 - bits)) & below;  // the top `bits` bits of w, less the code (0 when h is 0)
      // ahead_ starts pos_ & 7 bits before pos_ + 64: those bits are w's last, so they fall on
      // themselves in the OR.
      window_ = (w << bits) | (ahead_ >> (64 - bits - (pos_ & 7)));
    } else {
      if (bits == 0) return fail(BlockStatus::bad_code);
      const unsigned len = bits - h;  // h >= 46 here: codes are at most 12 bits
      if (h <= 57)
        rest = peek(pos_ + len) >> (64 - h);
      else
        rest = ((peek(pos_ + len) >> 32) << (h - 32)) | (peek(pos_ + len + 32) >> (96 - h));
      window_ = peek(next_pos) | (peek(next_pos + 56) >> 56);  // peek's last pos & 7 bits are 0
    }
    ahead_ = bytes_at((next_pos >> 3) + 8);
    pos_ = next_pos;
    if ((pos_ > capacity_) | ((entry_ & (below + 1)) != 0)) [[unlikely]]
      return fail(pos_ > capacity_ ? BlockStatus::overrun : BlockStatus::bad_order);
    // Bit h is 0 (checked): setting the bits below it and adding 1 sets it and clears those below.
    entry_ = ((entry_ | below) + 1) | rest;
    ++index_;
    return true;
  }

  // The visitor declined entry(): the block's decode ends there.
  void stop() { status_ = BlockStatus::stopped; }

  BlockResult result() const {
    switch (status_) {
      case BlockStatus::ok:
        return {status_, count_, entry_, pos_};
      case BlockStatus::bad_count:
        return {status_, 0, entry_, 0};
      default:  // stopped at entry index_, or a bad entry after it: index_ + 1 were visited
        return {status_, index_ + 1, entry_, pos_};
    }
  }

 private:
  // The 8 stream bytes from `byte` as a big-endian word, zero past the readable bytes.
  uint64_t bytes_at(std::size_t byte) const {
    if (byte + 8 <= stream_readable_) [[likely]]
      return load_be64(stream_ + byte);
    uint64_t w = 0;
    for (std::size_t i = 0; i < 8; ++i) w = (w << 8) | (byte + i < stream_readable_ ? stream_[byte + i] : 0);
    return w;
  }
  // 64 bits from bit `pos`, MSB-aligned; at least 57 of them are real stream bits (the last pos & 7
  // are 0).
  uint64_t peek(uint64_t pos) const { return bytes_at(pos >> 3) << (pos & 7); }
  bool fail(BlockStatus s) {  // pos_ stays where the bad entry's code began, or past its bits
    status_ = s;
    return false;
  }

  const uint8_t* stream_;
  std::size_t stream_readable_;
  uint64_t capacity_;
  const DecodeTable* table_;
  uint32_t count_;
  uint64_t entry_;
  uint64_t window_;  // the 64 stream bits from pos_, all real
  uint64_t ahead_;   // bytes_at((pos_ >> 3) + 8): the bits after the window's, from pos_ & 7 before
  uint32_t index_ = 0;
  uint64_t pos_ = 0;
  BlockStatus status_ = BlockStatus::ok;
};

// The cursor's first entry, then each next one, offered to visit(entry, index), which returns
// false to stop: true while the block has more to offer.
// (Forced inline: a call per entry costs more than the entry's decode.)
template <typename Visit>
[[gnu::always_inline]] inline bool visit_first(BlockCursor& c, Visit& visit) {
  if (c.status() != BlockStatus::ok) return false;
  if (visit(c.entry(), c.index())) return true;
  c.stop();
  return false;
}
template <typename Visit>
[[gnu::always_inline]] inline bool visit_next(BlockCursor& c, Visit& visit) {
  if (!c.next()) return false;
  if (visit(c.entry(), c.index())) return true;
  c.stop();
  return false;
}

// Decodes the cursor's block: visit(entry, index) for each entry, in order, until it returns false.
template <typename Visit>
BlockResult decode_block(BlockCursor c, Visit&& visit) {
  for (bool more = visit_first(c, visit); more; more = visit_next(c, visit)) {
  }
  return c.result();
}
template <typename Visit>
BlockResult decode_block(const uint8_t* block, uint32_t block_bytes, std::size_t readable,
                         const DecodeTable& table, Visit&& visit) {
  return decode_block(BlockCursor(block, block_bytes, readable, table), visit);
}

// Two blocks decoded in turn, an entry of each: each entry's place in its block depends on the
// previous entry's code, so one block decodes at the speed of that chain of loads; stepping two
// blocks overlaps their chains. Each visitor sees its block's entries in order, as decode_block
// gives them. Always inlined, as reader::probe_two is.
template <typename VisitA, typename VisitB>
[[gnu::always_inline]] inline std::pair<BlockResult, BlockResult> decode_two_blocks(BlockCursor a,
                                                                                    VisitA&& visit_a,
                                                                                    BlockCursor b,
                                                                                    VisitB&& visit_b) {
  bool more_a = visit_first(a, visit_a), more_b = visit_first(b, visit_b);
  while (more_a && more_b) {
    more_a = visit_next(a, visit_a);
    more_b = visit_next(b, visit_b);
  }
  while (more_a) more_a = visit_next(a, visit_a);
  while (more_b) more_b = visit_next(b, visit_b);
  return {a.result(), b.result()};
}

// True when the bit stream is zero from bit `end_bit` to the end of the block.
bool block_padding_is_zero(const uint8_t* block, uint32_t block_bytes, uint64_t end_bit);

}  // namespace simdex::format
