#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <set>

#include "format/coverage.h"
#include "format/permutation.h"
#include "simdex/error.h"
#include "simdex/scheme.h"

using simdex::Scheme;

namespace {
std::set<unsigned> prefixes(const Scheme& s) {
  std::set<unsigned> p;
  for (const auto& t : s.tables) p.insert(t.prefix_bits);
  return p;
}
std::vector<uint64_t> masks_of(const Scheme& s) {
  std::vector<uint64_t> m;
  for (const auto& t : s.tables) m.push_back(t.prefix_mask());
  return m;
}
}  // namespace

TEST_CASE("the paper's four k=3 schemes: table counts and prefix lengths") {
  CHECK(Scheme::named("paper-20", 3, 0).tables.size() == 20);
  CHECK(prefixes(Scheme::named("paper-20", 3, 0)) == std::set<unsigned>{31, 32, 33});
  CHECK(Scheme::named("paper-16", 3, 0).tables.size() == 16);
  CHECK(prefixes(Scheme::named("paper-16", 3, 0)) == std::set<unsigned>{28});
  CHECK(Scheme::named("paper-10", 3, 0).tables.size() == 10);
  CHECK(prefixes(Scheme::named("paper-10", 3, 0)) == std::set<unsigned>{25, 26});
  CHECK(Scheme::named("paper-4", 3, 0).tables.size() == 4);
  CHECK(prefixes(Scheme::named("paper-4", 3, 0)) == std::set<unsigned>{16});
  CHECK_THROWS_AS(Scheme::named("paper-20", 4, 0), simdex::Error);
  CHECK_THROWS_AS(Scheme::named("nonsense", 3, 0), simdex::Error);
}

TEST_CASE("every scheme covers every k up to its own, and table 0 is the identity") {
  std::vector<Scheme> schemes;
  for (const char* n : {"paper-20", "paper-16", "paper-10", "paper-4"})
    schemes.push_back(Scheme::named(n, 3, 0));
  for (unsigned k = 0; k <= 8; ++k)
    for (unsigned m = k + 1; m <= k + 3; ++m) schemes.push_back(Scheme::one_level(m, k));
  schemes.push_back(Scheme::two_level(3, 3, 2));
  schemes.push_back(Scheme::two_level(5, 4, 3));
  for (uint64_t n : {uint64_t{10}, uint64_t{1} << 20, uint64_t{1} << 33})
    for (unsigned k : {0u, 3u, 5u, 8u}) schemes.push_back(Scheme::automatic(n, k));
  for (const auto& s : schemes) {
    CAPTURE(s.name);
    for (unsigned k = 0; k <= s.max_distance; ++k) CHECK(!s.uncovered_difference(k));
    CHECK(simdex::format::Permutation(s.tables[0].source_bit).is_identity());
    for (const auto& t : s.tables) CHECK(simdex::format::Permutation::check(t.source_bit).empty());
  }
}

TEST_CASE("a scheme missing a table is caught by the coverage check, with a witness") {
  Scheme s = Scheme::named("paper-10", 3, 0);
  s.tables.pop_back();
  const auto witness = s.uncovered_difference(3);
  REQUIRE(witness);
  CHECK(std::popcount(*witness) <= 3);
  for (const auto& t : s.tables) CHECK((t.prefix_mask() & *witness) != 0);
  CHECK(Scheme::named("paper-10", 3, 0).uncovered_difference(4));  // k=4 is beyond it
}

TEST_CASE("automatic schemes grow with n") {
  CHECK(Scheme::automatic(1000, 3).tables.size() == 4);
  CHECK(Scheme::automatic(uint64_t{1} << 30, 3).tables.size() > 4);
}

TEST_CASE("every scheme of the catalogue (what build --help prints) is a name Scheme::named accepts") {
  for (const auto& entry : simdex::scheme_catalogue()) {
    const std::string& name = entry.first;  // not a structured binding: clang 14 cannot capture one
    CAPTURE(name);
    const std::string concrete = name == "blocks-M" ? "blocks-6" : name;
    CHECK_NOTHROW(Scheme::named(concrete, 3, 1000));
  }
  CHECK_THROWS_WITH_AS(Scheme::named("nonsense", 3, 0), doctest::Contains("known: paper-20, paper-16"),
                       simdex::Error);
}

// The coverage search (format/coverage.cpp) on every scheme the policy makes.
TEST_CASE("every scheme simdex makes decides within a small part of the budget") {
  uint64_t most = 0;
  const auto start = std::chrono::steady_clock::now();
  auto check = [&](const Scheme& s) {
    CAPTURE(s.name);
    const simdex::format::Coverage c = simdex::format::check_coverage(masks_of(s), s.max_distance);
    CHECK(c.status == simdex::format::Coverage::Status::covered);
    most = std::max(most, c.steps);
    // One more bit of distance is never covered by these schemes: the search finds the witness.
    if (s.max_distance < 64)
      CHECK(simdex::format::check_coverage(masks_of(s), s.max_distance + 1).status ==
            simdex::format::Coverage::Status::uncovered);
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
                         << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
                         << " s");
  CHECK(most < simdex::format::kCoverageBudget / 2);
}
