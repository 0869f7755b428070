#include "format/block.h"

#include <cstring>

#include "format/checksum.h"

namespace simdex::format {

// buf_ has 16 bytes of slack past the block: put_bits stores a whole word, and an entry appended
// to a full block (append, then fits() false) stays within them.
BlockEncoder::BlockEncoder(const CodeLengths& lengths, uint32_t block_bytes)
    : code_(lengths), buf_(block_bytes + 16), block_bytes_(block_bytes) {}

void BlockEncoder::start(uint64_t first_entry) {
  std::memset(buf_.data(), 0, buf_.size());
  store_le64(buf_.data() + 8, first_entry);
  bit_pos_ = 0;
  pending_ = 0;
  last_ = first_entry;
  count_ = 1;
}

bool BlockEncoder::add(uint64_t entry) {
  if (bit_pos_ + entry_bits(last_, entry) > block_capacity_bits(block_bytes_)) return false;
  append(entry);
  return true;
}

void BlockEncoder::append(uint64_t entry) {
  const unsigned h = h_of(last_, entry);
  const unsigned len = code_.length[h];
  const uint64_t rest = low_bits(entry, h);
  if (len + h <= kMaxPutBits) {
    put_bits((uint64_t{code_.code[h]} << h) | rest, len + h);
  } else {
    put_bits(code_.code[h], len);
    put_bits(rest >> 32, h - 32);
    put_bits(rest & 0xffffffffu, 32);
  }
  last_ = entry;
  ++count_;
}

void BlockEncoder::put_bits(uint64_t value, unsigned n) {
  // MSB first: bit i of the stream is bit (7 - i % 8) of stream byte i / 8. The word stored at the
  // current byte is the bits of that byte written so far (kept in pending_, at the top), the value,
  // then zeros, as the zeroed block has there. Not OR-ed into the word loaded from there: that load
  // overlaps the previous store, which the CPU cannot forward to it (a stall of each entry).
  const unsigned used = bit_pos_ & 7;
  pending_ |= value << (64 - used - n);
  store_be64(buf_.data() + kBlockHeaderBytes + (bit_pos_ >> 3), pending_);
  bit_pos_ += n;
  const unsigned whole_bytes = (used + n) >> 3;
  pending_ = whole_bytes == 8 ? 0 : pending_ << (8 * whole_bytes);
}

const uint8_t* BlockEncoder::finish() {
  store_le32(buf_.data() + 4, count_);
  store_le32(buf_.data(), checksum32(buf_.data() + kBlockChecksumBytes, block_bytes_ - kBlockChecksumBytes));
  return buf_.data();
}

const char* block_status_text(BlockStatus s) {
  switch (s) {
    case BlockStatus::ok:
      return "ok";
    case BlockStatus::stopped:
      return "stopped";
    case BlockStatus::bad_count:
      return "entry_count is 0 or larger than the block can hold";
    case BlockStatus::bad_code:
      return "bits that start no Huffman code of the table";
    case BlockStatus::bad_order:
      return "bit h of the previous entry is set (entries would not ascend)";
    case BlockStatus::overrun:
      return "entries run past the end of the block";
  }
  return "?";
}

bool block_padding_is_zero(const uint8_t* block, uint32_t block_bytes, uint64_t end_bit) {
  const uint8_t* stream = block + kBlockHeaderBytes;
  const uint64_t bytes = block_bytes - kBlockHeaderBytes;
  uint64_t byte = end_bit >> 3;
  if (byte >= bytes) return true;
  if ((end_bit & 7) != 0) {
    if (stream[byte] & (0xffu >> (end_bit & 7))) return false;
    ++byte;
  }
  for (; byte < bytes; ++byte)
    if (stream[byte] != 0) return false;
  return true;
}

}  // namespace simdex::format
