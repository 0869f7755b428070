#include "format/block.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>

#include "format/checksum.h"

using namespace simdex::format;

namespace {
struct Encoded {
  std::vector<std::vector<uint8_t>> blocks;
  CodeLengths lengths;
};

Encoded encode(const std::vector<uint64_t>& sorted, uint32_t block_bytes) {
  std::array<uint64_t, kSymbols> f{};
  for (std::size_t i = 1; i < sorted.size(); ++i) ++f[h_of(sorted[i - 1], sorted[i])];
  Encoded out;
  out.lengths = code_lengths_from_frequencies(f);
  BlockEncoder enc(out.lengths, block_bytes);
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0 && enc.add(sorted[i])) continue;
    if (i > 0) {
      const uint8_t* b = enc.finish();
      out.blocks.emplace_back(b, b + block_bytes);
    }
    enc.start(sorted[i]);
  }
  if (!sorted.empty()) {
    const uint8_t* b = enc.finish();
    out.blocks.emplace_back(b, b + block_bytes);
  }
  return out;
}

std::vector<uint64_t> decode_all(const Encoded& e, uint32_t block_bytes) {
  const DecodeTable table(e.lengths);
  std::vector<uint64_t> out;
  for (const auto& b : e.blocks) {
    CHECK(load_le32(b.data()) == checksum32(b.data() + 4, block_bytes - 4));
    const auto r = decode_block(b.data(), block_bytes, b.size(), table, [&](uint64_t x, uint32_t) {
      out.push_back(x);
      return true;
    });
    CHECK(r.status == BlockStatus::ok);
    CHECK(block_padding_is_zero(b.data(), block_bytes, r.end_bit));
  }
  return out;
}

std::vector<uint64_t> random_sorted(std::mt19937_64& rng, std::size_t n, uint64_t mask = ~uint64_t{0}) {
  std::set<uint64_t> s;
  while (s.size() < n) s.insert(rng() & mask);
  return {s.begin(), s.end()};
}
}  // namespace

TEST_CASE("blocks round-trip random, dense and extreme entries at every block size") {
  std::mt19937_64 rng(1);
  for (uint32_t block_bytes : {32u, 64u, 256u, 1024u, 4096u}) {
    for (auto values : {random_sorted(rng, 3000), random_sorted(rng, 3000, 0xfff),
                        std::vector<uint64_t>{0, 1, 2, 3, ~uint64_t{0} - 1, ~uint64_t{0}},
                        std::vector<uint64_t>{0, uint64_t{1} << 63},  // h = 63
                        std::vector<uint64_t>{42}}) {
      const auto e = encode(values, block_bytes);
      CHECK(decode_all(e, block_bytes) == values);
    }
  }
}

TEST_CASE("a table with a single distinct h codes it in one bit") {
  // Ascending entries can share one h only when there are two of them (bit h must go 0 -> 1), so a
  // single-h table is n = 2: try the lowest and the highest h.
  for (const auto& values :
       {std::vector<uint64_t>{0, 1}, std::vector<uint64_t>{5, (uint64_t{1} << 63) | 5}}) {
    const auto e = encode(values, 64);
    unsigned used = 0;
    for (auto l : e.lengths) used += l != 0;
    CHECK(used == 1);
    CHECK(check_code_lengths(e.lengths, 2).empty());
    CHECK(decode_all(e, 64) == values);
  }
}

TEST_CASE("corrupt blocks never read out of bounds and are reported") {
  std::mt19937_64 rng(3);
  const auto values = random_sorted(rng, 400);
  const uint32_t block_bytes = 256;
  const auto e = encode(values, block_bytes);
  const DecodeTable table(e.lengths);
  unsigned bad = 0;
  for (int round = 0; round < 3000; ++round) {
    auto b = e.blocks[rng() % e.blocks.size()];
    const auto byte = rng() % block_bytes;
    b[byte] ^= static_cast<uint8_t>(1u << (rng() % 8));
    const auto r =
        decode_block(b.data(), block_bytes, b.size(), table, [](uint64_t, uint32_t) { return true; });
    const bool checksum_ok = load_le32(b.data()) == checksum32(b.data() + 4, block_bytes - 4);
    CHECK(!checksum_ok);  // every single-bit flip is caught by the block checksum
    bad += r.status != BlockStatus::ok;
  }
  CHECK(bad > 0);
}

TEST_CASE("two blocks decoded in turn give what each gives alone, stopped early or corrupt") {
  std::mt19937_64 rng(7);
  struct Seen {
    std::vector<std::pair<uint64_t, uint32_t>> visited;
    uint32_t stop_at;  // the visitor declines the entry of this index
    bool operator()(uint64_t e, uint32_t i) {
      visited.emplace_back(e, i);
      return i != stop_at;
    }
  };
  for (uint32_t block_bytes : {32u, 256u, 1024u}) {
    for (const auto& values : {random_sorted(rng, 2000), random_sorted(rng, 2000, 0xfff),
                               random_sorted(rng, 2000, 0xffff000000000000)}) {
      const auto e = encode(values, block_bytes);
      const DecodeTable table(e.lengths);
      std::set<BlockStatus> statuses;
      for (int round = 0; round < 400; ++round) {
        auto a = e.blocks[rng() % e.blocks.size()], b = e.blocks[rng() % e.blocks.size()];
        for (auto* block : {&a, &b})
          if (rng() % 3 == 0) (*block)[rng() % block_bytes] ^= static_cast<uint8_t>(1u << (rng() % 8));
        // Stop nowhere, at the first entry, or somewhere in the block.
        auto stop = [&] {
          return std::array<uint32_t, 3>{UINT32_MAX, 0, static_cast<uint32_t>(rng() % 64)}[rng() % 3];
        };
        Seen alone_a{{}, stop()}, alone_b{{}, stop()};
        Seen two_a{{}, alone_a.stop_at}, two_b{{}, alone_b.stop_at};
        const auto ra = decode_block(a.data(), block_bytes, a.size(), table, alone_a);
        const auto rb = decode_block(b.data(), block_bytes, b.size(), table, alone_b);
        const auto [ta, tb] = decode_two_blocks(BlockCursor(a.data(), block_bytes, a.size(), table), two_a,
                                                BlockCursor(b.data(), block_bytes, b.size(), table), two_b);
        CHECK(ra == ta);
        CHECK(rb == tb);
        CHECK(alone_a.visited == two_a.visited);
        CHECK(alone_b.visited == two_b.visited);
        statuses.insert(ra.status);
      }
      CHECK(statuses.count(BlockStatus::ok) + statuses.count(BlockStatus::stopped) == 2);
    }
  }
}
