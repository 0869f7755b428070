#include "writer/table_encoder.h"

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

}  // namespace simdex::writer
