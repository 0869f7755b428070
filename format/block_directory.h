// The bytes of the BLOCK_DIRECTORY tagged section (spec/FORMAT.md §5.3): per table, for each value of
// the top d_t bits of a permuted value (a slot), the first block whose key is at least the slot's
// first value. A probe reads one entry instead of searching BLOCK_KEYS. Bytes only: the head's codec
// and open rules, the writer's choice of d_t, and the entries computed from ascending block keys
// (the writer writes them, verification compares them).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace simdex::format {

inline constexpr unsigned kMaxDirectoryBits = 32;
inline constexpr uint64_t kMaxDirectoryBlockCount = UINT32_MAX;  // entries are u32

// The most bits simdex writes (since format 2.2): a directory of at most 1 MiB a table, which a
// reader can keep in memory (reader::TableView::directory_copy); a larger table has 2^18 slots of
// several blocks each, among which a probe finds its block by interpolation.
inline constexpr unsigned kWriterMaxDirectoryBits = 18;

// What simdex writes for a table of `block_count` blocks (spec §5.3, "How simdex chooses d_t"):
// floor(log2(block_count)), so 1 to 2 blocks per slot, at most kWriterMaxDirectoryBits; 0 (no
// directory) below 2 blocks and above kMaxDirectoryBlockCount.
unsigned directory_bits_for(uint64_t block_count);

// The section's head: d_t per table and where each table's entries start.
struct BlockDirectoryLayout {
  std::vector<uint8_t> bits;             // d_t, 0 = no directory for table t
  std::vector<uint64_t> entries_offset;  // byte offset of table t's entries in the section (if d_t > 0)
  uint64_t bytes = 0;                    // the section's size

  explicit BlockDirectoryLayout(std::vector<uint8_t> directory_bits);
  // The layout simdex writes for tables of these block counts (d_t = directory_bits_for).
  static BlockDirectoryLayout written_for(std::span<const uint64_t> block_counts);
  // The head: directory_table_count, reserved, directory_bits, padding (entries_offset[0] bytes).
  std::vector<uint8_t> encode_head() const;
  // The open rules of §5.3 for a section of `section` bytes in a file whose tables have these block
  // counts: Error(bad_tagged_section) naming what is wrong. Reads the head only (O(T) bytes).
  static BlockDirectoryLayout decode(std::span<const uint8_t> section,
                                     std::span<const uint64_t> block_counts);
};

// slot_block[s] for s = 0 .. 2^bits - 1 (bits >= 1) of a table whose block keys, ascending, are
// next_key() called block_count times: emit(s, block) once per slot in slot order. Streams both
// ways: O(1) memory, O(block_count + 2^bits) time.
void for_each_slot_block(unsigned bits, uint64_t block_count, const std::function<uint64_t()>& next_key,
                         const std::function<void(uint64_t slot, uint64_t block)>& emit);

// A table's entries as simdex writes them (d_t = directory_bits_for(keys.size())), from its block
// keys in memory, ascending: 4 << d_t bytes, none when d_t is 0. After the head of a layout of
// those d_t, the tables' entries in table order are the section (encode_block_directory).
std::vector<uint8_t> encode_directory_entries(std::span<const uint64_t> keys);

// The whole section as simdex writes it (d_t = directory_bits_for(block count)), in pieces to `write`
// (O(1) memory): the head, then each table's entries from its keys, key(t, j) called for
// j = 0, 1, ... within each table in table order.
void encode_block_directory(std::span<const uint64_t> block_counts,
                            const std::function<uint64_t(uint32_t table, uint64_t block)>& key,
                            const std::function<void(std::span<const uint8_t>)>& write);

}  // namespace simdex::format
