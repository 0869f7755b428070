#include "fingerprint/bit_counts.h"

#include <doctest/doctest.h>

#include <random>
#include <vector>

namespace {
// Each bit of each hash looked at alone.
std::vector<std::uint64_t> plain_counts(const std::vector<std::uint64_t>& hashes) {
  std::vector<std::uint64_t> counts(64, 0);
  for (const std::uint64_t h : hashes)
    for (unsigned b = 0; b < 64; ++b) counts[b] += (h >> b) & 1;
  return counts;
}
}  // namespace

TEST_CASE("count_ones: exact counts at every length around its blocks of 16 and groups of 240") {
  std::mt19937_64 rng(17);
  for (std::size_t n = 0; n <= 1000; n += (n < 300 ? 1 : 37)) {
    for (const int kind : {0, 1, 2, 3}) {  // random, all ones, sparse, one bit on
      std::vector<std::uint64_t> hashes(n);
      for (std::uint64_t& h : hashes)
        h = kind == 0   ? rng()
            : kind == 1 ? ~std::uint64_t{0}
            : kind == 2 ? rng() & rng() & rng()
                        : uint64_t{1} << 63;
      std::uint64_t ones[64];
      for (std::uint64_t& o : ones) o = 7;  // added to, not overwritten
      simdex::text::count_ones(hashes, ones);
      const std::vector<std::uint64_t> expected = plain_counts(hashes);
      CAPTURE(n);
      CAPTURE(kind);
      for (unsigned b = 0; b < 64; ++b) REQUIRE(ones[b] == expected[b] + 7);
    }
  }
}

TEST_CASE("majority_bits: set where more than half the hashes have a 1, ties included, at every length") {
  std::mt19937_64 rng(19);
  for (std::size_t n = 0; n <= 700; n += (n < 300 ? 1 : 23)) {
    for (const int kind : {0, 1, 2}) {  // random (ties at even lengths), all ones, sparse
      std::vector<std::uint64_t> hashes(n);
      for (std::uint64_t& h : hashes) h = kind == 0 ? rng() : kind == 1 ? ~std::uint64_t{0} : rng() & rng();
      const std::vector<std::uint64_t> counts = plain_counts(hashes);
      std::uint64_t expected = 0;
      for (unsigned b = 0; b < 64; ++b)
        if (2 * counts[b] > n) expected |= std::uint64_t{1} << b;
      CAPTURE(n);
      CAPTURE(kind);
      REQUIRE(simdex::text::majority_bits(hashes) == expected);
    }
  }
}
