#include "format/block_directory.h"

#include <algorithm>
#include <bit>
#include <string>

#include "format/endian.h"
#include "format/tagged_sections.h"
#include "simdex/error.h"

namespace simdex::format {

namespace {

constexpr uint64_t kHeadBytes = 8;  // directory_table_count u32, reserved u32

[[noreturn]] void bad_directory(const std::string& what) {
  throw Error(errc::bad_tagged_section,
              describe_tag(static_cast<uint32_t>(Tag::block_directory)) + ": " + what);
}

}  // namespace

unsigned directory_bits_for(uint64_t block_count) {
  if (block_count < 2 || block_count > kMaxDirectoryBlockCount) return 0;
  return std::min(static_cast<unsigned>(std::bit_width(block_count) - 1), kWriterMaxDirectoryBits);
}

BlockDirectoryLayout::BlockDirectoryLayout(std::vector<uint8_t> directory_bits)
    : bits(std::move(directory_bits)), entries_offset(bits.size(), 0) {
  uint64_t at = pad8(kHeadBytes + bits.size());
  for (std::size_t t = 0; t < bits.size(); ++t) {
    entries_offset[t] = at;
    if (bits[t] > 0) at += uint64_t{4} << bits[t];  // bits <= 32 and T <= 4096: no overflow
  }
  bytes = at;
}

BlockDirectoryLayout BlockDirectoryLayout::written_for(std::span<const uint64_t> block_counts) {
  std::vector<uint8_t> bits;
  for (uint64_t count : block_counts) bits.push_back(static_cast<uint8_t>(directory_bits_for(count)));
  return BlockDirectoryLayout(std::move(bits));
}

std::vector<uint8_t> BlockDirectoryLayout::encode_head() const {
  std::vector<uint8_t> head(pad8(kHeadBytes + bits.size()), 0);
  store_le32(head.data(), static_cast<uint32_t>(bits.size()));
  for (std::size_t t = 0; t < bits.size(); ++t) head[kHeadBytes + t] = bits[t];
  return head;
}

BlockDirectoryLayout BlockDirectoryLayout::decode(std::span<const uint8_t> section,
                                                  std::span<const uint64_t> block_counts) {
  const uint64_t tables = block_counts.size();
  const uint64_t head = pad8(kHeadBytes + tables);
  if (section.size() < head)
    bad_directory(std::to_string(section.size()) + " bytes, less than its " + std::to_string(head) +
                  "-byte head");
  if (load_le32(section.data()) != tables)
    bad_directory("directory_table_count " + std::to_string(load_le32(section.data())) +
                  " is not the file's " + std::to_string(tables) + " tables");
  if (load_le32(section.data() + 4) != 0) bad_directory("reserved bytes 4..7 are not 0");
  for (uint64_t i = kHeadBytes + tables; i < head; ++i)
    if (section[i] != 0) bad_directory("padding byte " + std::to_string(i) + " is not 0");
  std::vector<uint8_t> bits(section.begin() + kHeadBytes,
                            section.begin() + static_cast<std::ptrdiff_t>(kHeadBytes + tables));
  for (std::size_t t = 0; t < bits.size(); ++t) {
    const std::string name = "table " + std::to_string(t) + ": ";
    if (bits[t] > kMaxDirectoryBits)
      bad_directory(name + "directory_bits " + std::to_string(bits[t]) + " > " +
                    std::to_string(kMaxDirectoryBits));
    if (bits[t] > 0 && block_counts[t] > kMaxDirectoryBlockCount)
      bad_directory(name + "a directory of u32 entries for " + std::to_string(block_counts[t]) + " blocks");
  }
  BlockDirectoryLayout layout(std::move(bits));
  if (layout.bytes != section.size())
    bad_directory(std::to_string(section.size()) + " bytes, but its directory_bits make " +
                  std::to_string(layout.bytes));
  return layout;
}

void for_each_slot_block(unsigned bits, uint64_t block_count, const std::function<uint64_t()>& next_key,
                         const std::function<void(uint64_t slot, uint64_t block)>& emit) {
  const uint64_t slots = uint64_t{1} << bits;
  uint64_t s = 0;
  // Block j is the answer of every slot not yet answered whose first value is <= key[j].
  for (uint64_t j = 0; j < block_count && s < slots; ++j) {
    const uint64_t last_slot = next_key() >> (64 - bits);
    for (; s <= last_slot && s < slots; ++s) emit(s, j);
  }
  for (; s < slots; ++s) emit(s, block_count);
}

std::vector<uint8_t> encode_directory_entries(std::span<const uint64_t> keys) {
  const unsigned bits = directory_bits_for(keys.size());
  if (bits == 0) return {};
  std::vector<uint8_t> out(std::size_t{4} << bits);
  std::size_t j = 0;
  for_each_slot_block(
      bits, keys.size(), [&] { return keys[j++]; },
      [&](uint64_t slot, uint64_t block) {
        store_le32(out.data() + 4 * slot, static_cast<uint32_t>(block));
      });
  return out;
}

void encode_block_directory(std::span<const uint64_t> block_counts,
                            const std::function<uint64_t(uint32_t table, uint64_t block)>& key,
                            const std::function<void(std::span<const uint8_t>)>& write) {
  const BlockDirectoryLayout layout = BlockDirectoryLayout::written_for(block_counts);
  write(layout.encode_head());
  constexpr std::size_t kChunk = 1 << 14;  // entries per write
  std::vector<uint8_t> out;
  out.reserve(4 * kChunk);
  for (uint32_t t = 0; t < layout.bits.size(); ++t) {
    if (layout.bits[t] == 0) continue;
    uint64_t j = 0;
    for_each_slot_block(
        layout.bits[t], block_counts[t], [&] { return key(t, j++); },
        [&](uint64_t, uint64_t block) {
          out.resize(out.size() + 4);
          store_le32(out.data() + out.size() - 4, static_cast<uint32_t>(block));
          if (out.size() == 4 * kChunk) {
            write(out);
            out.clear();
          }
        });
  }
  write(out);
}

}  // namespace simdex::format
