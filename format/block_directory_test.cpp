// BLOCK_DIRECTORY (spec/FORMAT.md §5.3): the writer's d_t, the entries against their definition on
// ascending keys (random, dense in one slot, at the extremes), and every open rule of the head.
#include "format/block_directory.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "format/endian.h"
#include "simdex/error.h"

using namespace simdex::format;

namespace {

// The definition: the first block whose key is >= the slot's first value.
std::vector<uint64_t> by_definition(unsigned bits, const std::vector<uint64_t>& keys) {
  std::vector<uint64_t> out;
  for (uint64_t s = 0; s < (uint64_t{1} << bits); ++s) {
    const uint64_t first = s << (64 - bits);
    out.push_back(static_cast<uint64_t>(std::lower_bound(keys.begin(), keys.end(), first) - keys.begin()));
  }
  return out;
}

std::vector<uint64_t> streamed(unsigned bits, const std::vector<uint64_t>& keys) {
  std::vector<uint64_t> out;
  std::size_t i = 0;
  for_each_slot_block(
      bits, keys.size(), [&] { return keys.at(i++); },
      [&](uint64_t s, uint64_t block) {
        CHECK(s == out.size());
        out.push_back(block);
      });
  return out;
}

simdex::errc directory_error(std::span<const uint8_t> section, std::span<const uint64_t> blocks) {
  try {
    BlockDirectoryLayout::decode(section, blocks);
  } catch (const simdex::Error& e) {
    return e.code();
  }
  FAIL("no error");
  return simdex::errc::io;
}

}  // namespace

TEST_CASE("directory_bits_for: floor(log2(blocks)) up to 18, 0 below 2 blocks and above u32") {
  CHECK(directory_bits_for(0) == 0);
  CHECK(directory_bits_for(1) == 0);
  CHECK(directory_bits_for(2) == 1);
  CHECK(directory_bits_for(3) == 1);
  CHECK(directory_bits_for(4) == 2);
  CHECK(directory_bits_for(24414) == 14);
  CHECK(directory_bits_for((uint64_t{1} << 19) - 1) == 18);
  CHECK(directory_bits_for(uint64_t{1} << 19) == 18);  // 2.2: at most 2^18 slots (1 MiB)
  CHECK(directory_bits_for(2083333) == 18);            // 100M fingerprints at B = 256: 8 blocks a slot
  CHECK(directory_bits_for(UINT32_MAX) == 18);
  CHECK(directory_bits_for(uint64_t{1} << 32) == 0);
}

TEST_CASE("slot blocks streamed from the keys equal the definition") {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 200; ++round) {
    const std::size_t n = 1 + rng() % 300;
    std::vector<uint64_t> keys;
    const int shape = round % 4;
    for (std::size_t i = 0; i < n; ++i) {
      uint64_t k = rng();
      if (shape == 1) k = 0x1234000000000000ULL | (k >> 20);               // dense: every key in one slot
      if (shape == 2) k = (k & 1) ? ~uint64_t{0} - (k >> 40) : (k >> 40);  // at both ends
      keys.push_back(k);
    }
    if (shape == 3) keys.push_back(~uint64_t{0});
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    for (unsigned bits :
         {1u, 2u, directory_bits_for(keys.size()) ? directory_bits_for(keys.size()) : 1u, 12u})
      CHECK(streamed(bits, keys) == by_definition(bits, keys));
  }
  CHECK(streamed(1, {0}) == std::vector<uint64_t>{0, 1});
  CHECK(streamed(1, {~uint64_t{0}}) == std::vector<uint64_t>{0, 0});
}

TEST_CASE(
    "a table's entries from its keys in memory: the definition at the writer's d_t, the same bytes as "
    "streamed") {
  std::mt19937_64 rng(9);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{1000},
                        (std::size_t{1} << 19) + 7}) {
    CAPTURE(n);
    std::vector<uint64_t> keys(n);
    for (uint64_t& k : keys) k = n % 2 ? rng() : 0x00ff000000000000ULL | (rng() >> 24);  // spread, or dense
    std::sort(keys.begin(), keys.end());
    const std::vector<uint8_t> entries = encode_directory_entries(keys);
    const unsigned bits = directory_bits_for(n);
    if (bits == 0) {
      CHECK(entries.empty());
      continue;
    }
    REQUIRE(entries.size() == std::size_t{4} << bits);
    const std::vector<uint64_t> expected = by_definition(bits, keys);
    bool all_equal = true;
    for (std::size_t s = 0; s < expected.size(); ++s)
      all_equal &= load_le32(entries.data() + 4 * s) == expected[s];
    CHECK(all_equal);
    // The whole section of this one table, streamed: the head, then the same entries.
    std::vector<uint8_t> section;
    encode_block_directory(
        std::vector<uint64_t>{n}, [&](uint32_t, uint64_t j) { return keys[j]; },
        [&](std::span<const uint8_t> b) { section.insert(section.end(), b.begin(), b.end()); });
    const std::vector<uint8_t> head = BlockDirectoryLayout({static_cast<uint8_t>(bits)}).encode_head();
    CHECK(std::vector<uint8_t>(section.begin(), section.begin() + static_cast<std::ptrdiff_t>(head.size())) ==
          head);
    CHECK(std::vector<uint8_t>(section.begin() + static_cast<std::ptrdiff_t>(head.size()), section.end()) ==
          entries);
  }
}

TEST_CASE("the head: layout, round trip and every open rule") {
  const std::vector<uint64_t> blocks = {5, 1, 300};
  BlockDirectoryLayout layout({2, 0, 8});
  CHECK(layout.entries_offset[0] == 16);  // 8 + 3 bytes of bits, padded
  CHECK(layout.entries_offset[2] == 16 + 16);
  CHECK(layout.bytes == 16 + 16 + 1024);
  std::vector<uint8_t> section = layout.encode_head();
  section.resize(layout.bytes, 0);
  CHECK(BlockDirectoryLayout::decode(section, blocks).bits == layout.bits);

  auto broken = [&](auto&& change) {
    std::vector<uint8_t> s = section;
    change(s);
    return directory_error(s, blocks);
  };
  CHECK(broken([](auto& s) { s.resize(8); }) == simdex::errc::bad_tagged_section);
  CHECK(broken([](auto& s) { store_le32(s.data(), 4); }) == simdex::errc::bad_tagged_section);
  CHECK(broken([](auto& s) { s[5] = 1; }) == simdex::errc::bad_tagged_section);
  CHECK(broken([](auto& s) { s[12] = 1; }) == simdex::errc::bad_tagged_section);      // padding
  CHECK(broken([](auto& s) { s[8 + 1] = 33; }) == simdex::errc::bad_tagged_section);  // bits > 32
  CHECK(broken([](auto& s) { s[8] = 3; }) == simdex::errc::bad_tagged_section);       // size disagrees
  CHECK(broken([](auto& s) { s.push_back(0); }) == simdex::errc::bad_tagged_section);
  // u32 entries cannot count 2^32 blocks.
  const std::vector<uint64_t> huge = {uint64_t{1} << 32, 1, 300};
  CHECK(directory_error(section, huge) == simdex::errc::bad_tagged_section);
}
