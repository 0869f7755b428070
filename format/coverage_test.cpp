#include "format/coverage.h"

#include <doctest/doctest.h>

#include <bit>
#include <random>
#include <vector>

#include "simdex/error.h"

using simdex::format::check_coverage;
using simdex::format::Coverage;

namespace {

// Every set of at most k of the low `bits` positions (no other position is in a prefix).
bool covered_by_brute_force(const std::vector<uint64_t>& masks, unsigned k, unsigned bits) {
  for (uint64_t d = 0; d < (uint64_t{1} << bits); ++d) {
    if (static_cast<unsigned>(std::popcount(d)) > k) continue;
    bool missed_by_all = true;
    for (uint64_t m : masks) missed_by_all &= (m & d) != 0;
    if (missed_by_all) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("coverage agrees with brute force on small random families, with a valid witness") {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 3000; ++round) {
    const unsigned bits = 1 + rng() % 12, tables = 1 + rng() % 8, k = rng() % 6;
    std::vector<uint64_t> masks;
    for (unsigned t = 0; t < tables; ++t) masks.push_back(rng() & rng() & ((uint64_t{1} << bits) - 1));
    const Coverage c = check_coverage(masks, k);
    CAPTURE(round);
    REQUIRE(c.status != Coverage::Status::unchecked);
    CHECK((c.status == Coverage::Status::covered) == covered_by_brute_force(masks, k, bits));
    if (c.status == Coverage::Status::uncovered) {
      CHECK(static_cast<unsigned>(std::popcount(c.uncovered)) <= k);
      for (uint64_t m : masks) CHECK((m & c.uncovered) != 0);
    }
  }
}

TEST_CASE("a table with prefix_bits = 0 covers every k; k = 64 needs one") {
  CHECK(check_coverage(std::vector<uint64_t>{~uint64_t{0}, 0}, 64).status == Coverage::Status::covered);
  CHECK(check_coverage(std::vector<uint64_t>{~uint64_t{0}, 1}, 64).status == Coverage::Status::uncovered);
}

TEST_CASE("past the budget the rule is unchecked, not decided") {
  // 4096 random 16-bit prefixes with k = 12: a hitting set search far beyond a budget of 10^5.
  std::mt19937_64 rng(9);
  std::vector<uint64_t> masks;
  for (int t = 0; t < 4096; ++t) {
    uint64_t m = 0;
    while (std::popcount(m) < 16) m |= uint64_t{1} << (rng() % 64);
    masks.push_back(m);
  }
  const Coverage c = check_coverage(masks, 12, 100'000);
  CHECK(c.status == Coverage::Status::unchecked);
  CHECK(c.steps <= 100'000 + 4097);
}
