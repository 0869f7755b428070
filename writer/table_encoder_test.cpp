// encode_table against TableEncoder: the same code, blocks, keys and ranks from the same entries,
// whatever the threads and the data (random, clustered, dense low bits), at small and large blocks.
#include "writer/table_encoder.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "format/run_tasks.h"

namespace {

using simdex::writer::encode_table;
using simdex::writer::HHistogram;
using simdex::writer::TableEncoder;

std::vector<uint64_t> sorted_distinct(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// Random entries; entries in clusters of close values; consecutive values (h = 0 or 1: hundreds of
// entries a block); and a few entries with every h up to 63.
std::vector<std::vector<uint64_t>> inputs() {
  std::mt19937_64 rng(41);
  std::vector<std::vector<uint64_t>> out;
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{1000}, std::size_t{150000}}) {
    std::vector<uint64_t> v(n);
    for (auto& x : v) x = rng();
    out.push_back(sorted_distinct(v));
  }
  std::vector<uint64_t> clustered;
  for (int c = 0; c < 2000; ++c) {
    const uint64_t base = rng();
    for (int i = 0; i < 50; ++i) clustered.push_back(base ^ (rng() & 0xffff));
  }
  out.push_back(sorted_distinct(clustered));
  std::vector<uint64_t> dense(100000);
  for (std::size_t i = 0; i < dense.size(); ++i) dense[i] = (uint64_t{7} << 40) + i;
  out.push_back(dense);
  std::vector<uint64_t> every_h;
  for (unsigned h = 0; h < 64; ++h) every_h.push_back(uint64_t{1} << h);
  out.push_back(sorted_distinct(every_h));
  return out;
}

}  // namespace

TEST_CASE("encode_table makes TableEncoder's bytes on any number of threads") {
  for (const auto& entries : inputs()) {
    for (uint32_t block_bytes : {32u, 256u, 4096u}) {
      CAPTURE(entries.size());
      CAPTURE(block_bytes);
      HHistogram histogram;
      for (uint64_t e : entries) histogram.add(e);
      const auto lengths = histogram.code_lengths();
      std::vector<uint8_t> expected;
      TableEncoder encoder(lengths, block_bytes, [&](const uint8_t* b, std::size_t size) {
        expected.insert(expected.end(), b, b + size);
      });
      for (uint64_t e : entries) encoder.add(e);
      encoder.finish();
      for (unsigned threads : {1u, 2u, 3u, 7u}) {
        CAPTURE(threads);
        simdex::format::HugeBuffer<uint8_t> blocks;
        simdex::format::TaskPool pool(threads);
        const auto got = encode_table(entries, block_bytes, pool, blocks);
        CHECK(got.code_length == lengths);
        CHECK(got.keys == encoder.keys());
        CHECK(got.ranks == encoder.ranks());
        REQUIRE(blocks.size() == expected.size());
        CHECK(std::equal(expected.begin(), expected.end(), blocks.data()));
      }
    }
  }
}
