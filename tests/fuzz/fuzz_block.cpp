// libFuzzer target for the block decoder alone: the input's first 64 bytes are a table's code
// lengths (a legal default code is used when they are not legal), the rest is one block. The block
// is also decoded in turn with its second half (decode_two_blocks), which must give what
// decode_block gives for each.
#include <cstddef>
#include <cstdint>

#include "format/block.h"
#include "format/huffman.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace simdex::format;
  if (size < 64 + kMinBlockBytes) return 0;
  CodeLengths lengths{};
  for (unsigned s = 0; s < kSymbols; ++s) lengths[s] = data[s];
  if (!check_code_lengths(lengths, 2).empty())
    for (unsigned s = 0; s < kSymbols; ++s) lengths[s] = 6;  // 64 codes of 6 bits: complete
  const DecodeTable table(lengths);
  const uint8_t* block = data + 64;
  const std::size_t available = size - 64;
  const auto block_bytes =
      static_cast<uint32_t>(std::min<std::size_t>(available & ~std::size_t{7}, kMaxBlockBytes));
  uint64_t previous = 0, sum = 0, alone_a = 0;
  bool ascending = true;
  const auto r = decode_block(block, block_bytes, block_bytes, table, [&](uint64_t e, uint32_t i) {
    if (i > 0 && e <= previous) ascending = false;  // the decoder's own checks must guarantee order
    previous = e;
    sum += e;
    alone_a = alone_a * 31 + e + i;  // as add_to below hashes the entries
    return true;
  });
  if (!ascending) __builtin_trap();
  if (r.status == BlockStatus::ok) (void)block_padding_is_zero(block, block_bytes, r.end_bit);

  const uint8_t* second = block + block_bytes / 2;
  const uint32_t second_bytes = (block_bytes / 2) & ~uint32_t{7};
  if (second_bytes < kMinBlockBytes) return static_cast<int>(sum & 0);
  uint64_t sum_a = 0, sum_b = 0, alone_b = 0;
  auto add_to = [](uint64_t& s) {
    return [&s](uint64_t e, uint32_t i) {
      s = s * 31 + e + i;
      return true;
    };
  };
  const auto rb = decode_block(second, second_bytes, second_bytes, table, add_to(alone_b));
  const auto [ta, tb] =
      decode_two_blocks(BlockCursor(block, block_bytes, block_bytes, table), add_to(sum_a),
                        BlockCursor(second, second_bytes, second_bytes, table), add_to(sum_b));
  if (!(r == ta) || !(rb == tb) || sum_a != alone_a || sum_b != alone_b) __builtin_trap();
  return static_cast<int>(sum & 0);
}
