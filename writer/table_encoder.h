// Encodes one table: a sorted run of distinct permuted fingerprints into blocks, block keys (the
// last entry of each block) and block ranks (the index of each block's first entry).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "format/block.h"
#include "format/huffman.h"

namespace simdex::writer {

// Frequencies of h over consecutive entries; the table's code is built from them.
class HHistogram {
 public:
  void add(uint64_t entry) {
    if (count_++ > 0) ++frequency_[format::h_of(last_, entry)];
    last_ = entry;
  }
  format::CodeLengths code_lengths() const { return format::code_lengths_from_frequencies(frequency_); }

 private:
  std::array<uint64_t, format::kSymbols> frequency_{};
  uint64_t last_ = 0, count_ = 0;
};

class TableEncoder {
 public:
  using BlockSink = std::function<void(const uint8_t* block, std::size_t bytes)>;
  TableEncoder(const format::CodeLengths& lengths, uint32_t block_bytes, BlockSink sink);
  void add(uint64_t entry);  // entries strictly ascending
  void finish();
  const std::vector<uint64_t>& keys() const { return keys_; }
  const std::vector<uint64_t>& ranks() const { return ranks_; }

 private:
  void close_block();
  format::BlockEncoder block_;
  BlockSink sink_;
  std::vector<uint64_t> keys_, ranks_;
  uint64_t entries_ = 0;
  bool open_ = false;
};

}  // namespace simdex::writer
