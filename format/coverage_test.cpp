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

// A family of up to 8 random prefixes over the low `bits` positions (1 to 12), and a k below 6.
struct SmallFamily {
  unsigned bits, k;
  std::vector<uint64_t> masks;
};
SmallFamily small_family(std::mt19937_64& rng) {
  SmallFamily f;
  f.bits = 1 + rng() % 12;
  const unsigned tables = 1 + rng() % 8;
  f.k = rng() % 6;
  for (unsigned t = 0; t < tables; ++t) f.masks.push_back(rng() & rng() & ((uint64_t{1} << f.bits) - 1));
  return f;
}

// `count` random prefixes of 16 positions each: hitting sets of 12 are far beyond a small budget.
std::vector<uint64_t> hard_family(std::mt19937_64& rng, int count) {
  std::vector<uint64_t> masks;
  for (int t = 0; t < count; ++t) {
    uint64_t m = 0;
    while (std::popcount(m) < 16) m |= uint64_t{1} << (rng() % 64);
    masks.push_back(m);
  }
  return masks;
}

}  // namespace

TEST_CASE("coverage agrees with brute force on small random families, with a valid witness") {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 3000; ++round) {
    const auto [bits, k, masks] = small_family(rng);
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
  const std::vector<uint64_t> masks = hard_family(rng, 4096);
  const Coverage c = check_coverage(masks, 12, 100'000);
  CHECK(c.status == Coverage::Status::unchecked);
  CHECK(c.steps <= 100'000 + 4097);
}

TEST_CASE("tables_within keeps exactly the tables that are first to group some pair within k") {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 3000; ++round) {
    const auto [bits, k, masks] = small_family(rng);
    const auto tables = static_cast<unsigned>(masks.size());
    // Brute force: every set D of at most k positions, and the first table whose prefix D misses.
    std::vector<bool> first(tables, false);
    for (uint64_t d = 0; d < (uint64_t{1} << bits); ++d) {
      if (static_cast<unsigned>(std::popcount(d)) > k) continue;
      for (unsigned t = 0; t < tables; ++t)
        if ((masks[t] & d) == 0) {
          first[t] = true;
          break;
        }
    }
    std::vector<uint32_t> expected;
    for (uint32_t t = 0; t < tables; ++t)
      if (first[t]) expected.push_back(t);
    CAPTURE(round);
    CHECK(simdex::format::tables_within(masks, k) == expected);
  }
}

TEST_CASE("tables_within: table 0 alone at k = 0; all tables past the analysed count or the budget") {
  const std::vector<uint64_t> blocks{0xFF00, 0x00FF, 0xF0F0, 0x0F0F};
  CHECK(simdex::format::tables_within(blocks, 0) == std::vector<uint32_t>{0});
  CHECK(simdex::format::tables_within(blocks, 64) == std::vector<uint32_t>{0, 1, 2, 3});
  std::vector<uint64_t> many(simdex::format::kMaxTablesAnalysed + 1, 0xFF);
  CHECK(simdex::format::tables_within(many, 0).size() == many.size());
  const std::vector<uint64_t> same{0xFF, 0xFF};  // table 1 groups nothing table 0 does not
  CHECK(simdex::format::tables_within(same, 1) == std::vector<uint32_t>{0});
  CHECK(simdex::format::tables_within(same, 1, 0) == std::vector<uint32_t>{0, 1});  // out of budget: kept
  // 200 random 16-bit prefixes, k = 12: the budget (for all tables together) runs out early, and
  // every table from there on is kept.
  std::mt19937_64 rng(11);
  const std::vector<uint64_t> hard = hard_family(rng, 200);
  const auto kept = simdex::format::tables_within(hard, 12, 100'000);
  REQUIRE(kept.size() >= 150);
  for (uint32_t t = 50; t < 200; ++t) CHECK(kept[kept.size() - 200 + t] == t);
}
