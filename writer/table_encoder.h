// Encodes one table: a sorted run of distinct permuted fingerprints into blocks, block keys (the
// last entry of each block) and block ranks (the index of each block's first entry).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "format/block.h"
#include "format/huffman.h"
#include "format/huge_pages.h"

namespace simdex::format {
class TaskPool;
}

namespace simdex::writer {

// Frequencies of h over consecutive entries; the table's code is built from them.
class HHistogram {
 public:
  void add(uint64_t entry) {
    if (count_++ > 0) ++frequency_[format::h_of(last_, entry)];
    last_ = entry;
  }
  format::CodeLengths code_lengths() const { return format::code_lengths_from_frequencies(frequency_); }
  // Adds the frequencies of another part of the entries (counted from the entry before it on).
  void merge(const HHistogram& other) {
    for (std::size_t h = 0; h < frequency_.size(); ++h) frequency_[h] += other.frequency_[h];
  }

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

// A table encoded from its entries in memory (ascending, distinct) on the pool's threads, with the
// bytes TableEncoder makes of them: the h frequencies counted in parts, the blocks cut in one cheap
// pass (an entry's bits, BlockEncoder::entry_bits, against the room left), then the blocks encoded
// in parts into `blocks` (block_bytes each). At 100M a table's encoding took 2 s on one thread, the
// longest serial step of a build on 16.
struct EncodedTable {
  format::CodeLengths code_length{};
  std::vector<uint64_t> keys, ranks;
};
EncodedTable encode_table(std::span<const uint64_t> entries, uint32_t block_bytes, format::TaskPool& pool,
                          format::HugeBuffer<uint8_t>& blocks);

}  // namespace simdex::writer
