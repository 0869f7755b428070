#include "format/coverage.h"

#include <doctest/doctest.h>

#include <bit>
#include <chrono>
#include <random>
#include <vector>

#include "simdex/error.h"
#include "simdex/scheme.h"

using simdex::Scheme;
using simdex::format::check_coverage;
using simdex::format::Coverage;

namespace {

std::vector<uint64_t> masks_of(const Scheme& s) {
  std::vector<uint64_t> m;
  for (const auto& t : s.tables) m.push_back(t.prefix_mask());
  return m;
}

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

TEST_CASE("every scheme simdex makes decides within a small part of the budget") {
  uint64_t most = 0;
  const auto start = std::chrono::steady_clock::now();
  auto check = [&](const Scheme& s) {
    CAPTURE(s.name);
    const Coverage c = check_coverage(masks_of(s), s.max_distance);
    CHECK(c.status == Coverage::Status::covered);
    most = std::max(most, c.steps);
    // One more bit of distance is never covered by these schemes: the search finds the witness.
    if (s.max_distance < 64) CHECK(check_coverage(masks_of(s), s.max_distance + 1).status == Coverage::Status::uncovered);
  };
  for (unsigned k = 0; k <= 32; ++k)
    for (unsigned m = k + 1; m <= 64; ++m) {
      Scheme s;
      try {
        s = Scheme::one_level(m, k);
      } catch (const simdex::Error&) {
        continue;  // more than 4096 tables
      }
      check(s);
    }
  for (unsigned k = 0; k <= 4; ++k)
    for (unsigned top = k + 1; top <= 12; ++top)
      for (unsigned sub = k + 1; sub <= 12; ++sub) {
        try {
          check(Scheme::two_level(top, sub, k));
        } catch (const simdex::Error&) {
        }
      }
  for (const char* name : {"paper-20", "paper-16", "paper-10", "paper-4"}) check(Scheme::named(name, 3, 0));
  MESSAGE("most steps: " << most << ", all schemes in "
                         << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s");
  CHECK(most < simdex::format::kCoverageBudget / 2);
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
