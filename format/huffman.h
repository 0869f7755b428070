// The canonical, length-limited Huffman code of h in [0, 63] (spec/FORMAT.md, "Huffman code").
// Writer side: lengths from frequencies. Both sides: canonical codes from lengths. Reader side:
// validation of stored lengths and a lookup table indexed by the next kMaxCodeLength bits.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace simdex::format {

inline constexpr unsigned kSymbols = 64;
inline constexpr unsigned kMaxCodeLength = 12;

using CodeLengths = std::array<uint8_t, kSymbols>;

// Optimal-as-Huffman lengths limited to kMaxCodeLength; deterministic for given frequencies.
// No symbol with frequency > 0: all lengths 0. Exactly one: that symbol gets length 1.
CodeLengths code_lengths_from_frequencies(const std::array<uint64_t, kSymbols>& frequency);

// Empty string when `lengths` is a legal code for a table of `entry_count` entries, else the reason.
std::string check_code_lengths(const CodeLengths& lengths, uint64_t entry_count);

// Canonical assignment: symbols sorted by (length, symbol) get consecutive codes, each length's first
// code being (previous length's last code + 1) shifted left by the length difference.
struct CanonicalCode {
  std::array<uint16_t, kSymbols> code{};  // right-aligned, written MSB first
  CodeLengths length{};
  explicit CanonicalCode(const CodeLengths& lengths);
};

// Decoding: peek kMaxCodeLength bits (MSB first, zero-filled past the stream), index the table.
// Two levels: codes of up to kShortBits bits (nearly every h: a table's h cluster around
// 64 - log2(n)) resolve in a 512-byte table that stays in the L1 cache beside a query's other
// tables; longer ones in the full 8 KiB table.
class DecodeTable {
 public:
  static constexpr unsigned kIndexBits = kMaxCodeLength;
  static constexpr unsigned kShortBits = 8;
  DecodeTable() = default;
  explicit DecodeTable(const CodeLengths& lengths);
  // Entry: (bits << 8) | symbol, bits = the code's length + the symbol, which is h: all the bits an
  // entry takes in a block's stream (its code, then its h bits below h), so that the decode moves
  // on by one add. 0: no code starts with these bits.
  static unsigned entry_bits(uint16_t entry) { return entry >> 8; }
  static unsigned entry_symbol(uint16_t entry) { return entry & 0xFF; }
  static unsigned entry_code_length(uint16_t entry) { return entry_bits(entry) - entry_symbol(entry); }
  uint16_t lookup(uint32_t next_bits) const {
    const uint16_t e = short_[next_bits >> (kIndexBits - kShortBits)];
    return e != 0 ? e : table_[next_bits];
  }

 private:
  std::array<uint16_t, 1u << kShortBits> short_{};  // 0: the code is longer than kShortBits (or none)
  std::array<uint16_t, 1u << kIndexBits> table_{};
};

}  // namespace simdex::format
