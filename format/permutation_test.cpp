#include "format/permutation.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "simdex/error.h"

using namespace simdex::format;

TEST_CASE("apply and invert match the bitwise definition for random permutations") {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 100; ++round) {
    std::array<uint8_t, 64> src;
    std::iota(src.begin(), src.end(), 0);
    if (round > 0) std::shuffle(src.begin(), src.end(), rng);
    const Permutation p(src);
    CHECK(p.is_identity() == (round == 0));
    for (int i = 0; i < 50; ++i) {
      const uint64_t x = rng();
      uint64_t expected = 0;
      for (unsigned j = 0; j < 64; ++j) expected |= ((x >> src[j]) & 1) << j;
      CHECK(p.apply(x) == expected);
      CHECK(p.invert(p.apply(x)) == x);
    }
  }
}

TEST_CASE("a source bit used twice is rejected") {
  std::array<uint8_t, 64> src;
  std::iota(src.begin(), src.end(), 0);
  src[5] = 6;
  CHECK_THROWS_AS(Permutation{src}, simdex::Error);
  src[5] = 64;
  CHECK(!Permutation::check(src).empty());
}
