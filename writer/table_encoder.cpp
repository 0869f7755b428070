#include "writer/table_encoder.h"

#include <cstring>
#include <stdexcept>
#include <utility>

#include "format/run_tasks.h"

namespace simdex::writer {

TableEncoder::TableEncoder(const format::CodeLengths& lengths, uint32_t block_bytes, BlockSink sink)
    : block_(lengths, block_bytes), sink_(std::move(sink)) {}

void TableEncoder::add(uint64_t entry) {
  if (open_ && block_.add(entry)) {
    ++entries_;
    return;
  }
  if (open_) close_block();
  ranks_.push_back(entries_);
  block_.start(entry);
  open_ = true;
  ++entries_;
}

void TableEncoder::close_block() {
  keys_.push_back(block_.last_entry());
  sink_(block_.finish(), block_.block_bytes());
  open_ = false;
}

void TableEncoder::finish() {
  if (open_) close_block();
}

EncodedTable encode_table(std::span<const uint64_t> entries, uint32_t block_bytes, format::TaskPool& pool,
                          format::HugeBuffer<uint8_t>& blocks) {
  const std::size_t n = entries.size();
  EncodedTable r;
  // The h frequencies a part at a time, each part's histogram started at the entry before it.
  const std::size_t parts = format::parts_for(n, pool.threads());
  std::vector<HHistogram> histograms(parts);
  pool.run(parts, [&](std::size_t s, unsigned, std::atomic<uint64_t>&) {
    auto [i, end] = format::part_range(n, s, parts);
    for (i = i > 0 ? i - 1 : 0; i < end; ++i) histograms[s].add(entries[i]);
  });
  for (std::size_t s = 1; s < parts; ++s) histograms[0].merge(histograms[s]);
  r.code_length = histograms[0].code_lengths();
  // Where the blocks start: as TableEncoder fills them, an entry opening a new block when its
  // bits do not fit in the room left.
  format::BlockEncoder encoder(r.code_length, block_bytes);
  const uint64_t capacity = format::block_capacity_bits(block_bytes);
  uint64_t used = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned bits = i == 0 ? 0 : encoder.entry_bits(entries[i - 1], entries[i]);
    if (i == 0 || used + bits > capacity) {
      r.ranks.push_back(i);
      used = 0;
    } else {
      used += bits;
    }
  }
  const std::size_t block_count = r.ranks.size();
  blocks.resize(block_count * block_bytes);
  r.keys.resize(block_count);
  const std::size_t block_parts = format::parts_for(block_count, pool.threads(), 256);
  pool.run(block_parts, [&](std::size_t s, unsigned, std::atomic<uint64_t>&) {
    format::BlockEncoder block(r.code_length, block_bytes);
    for (auto [j, end] = format::part_range(block_count, s, block_parts); j < end; ++j) {
      const std::size_t first = r.ranks[j], last = j + 1 < block_count ? r.ranks[j + 1] : n;
      block.start(entries[first]);
      for (std::size_t i = first + 1; i < last; ++i) {
        block.append(entries[i]);  // cut above by the bits that add checks: checked once, here
        if (!block.fits()) throw std::logic_error("encode_table: a block's entries do not fit");
      }
      std::memcpy(blocks.data() + j * block_bytes, block.finish(), block_bytes);
      r.keys[j] = entries[last - 1];
    }
  });
  return r;
}

}  // namespace simdex::writer
