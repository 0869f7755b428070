// Verify checks the rule `coverage` (spec/FORMAT.md §10): a file whose tables cannot find every
// fingerprint within its max_distance fails, and a search past its budget is reported unchecked.
#include <doctest/doctest.h>

#include <chrono>

#include "format/endian.h"
#include "format/layout.h"
#include "reseal.h"
#include "test_util.h"

using namespace simdex;
using namespace simdex::test;

namespace {

std::vector<uint8_t> built(Scheme scheme, std::size_t n) {
  std::mt19937_64 rng(17);
  TempDir dir;
  BuildOptions o;
  o.scheme = std::move(scheme);
  build(dir.file("c.sdx"), random_pairs(rng, n), o);
  return read_bytes(dir.file("c.sdx"));
}

void reseal_header(std::vector<uint8_t>& f) { test::reseal_header(f.data(), f.size()); }

}  // namespace

TEST_CASE("verify: a max_distance the tables do not cover breaks the rule coverage") {
  auto f = built(Scheme::named("paper-4", 3, 0), 500);
  {
    const Index index = Index::from_buffer(f.data(), f.size());
    CHECK(index.verify().ok());
  }
  f[52] = 4;  // max_distance: paper-4 covers 3
  reseal_header(f);
  const Index index = Index::from_buffer(f.data(), f.size());
  const auto report = index.verify();
  REQUIRE(report.problems.size() == 1);
  CHECK(report.problems[0].code == errc::coverage);
  CHECK(report.unchecked.empty());
}

TEST_CASE("verify: a coverage search past its budget is unchecked, named, and ends in bounded time") {
  // 4096 tables of random permutations with 16-bit prefixes and k = 12: the hitting-set search
  // cannot decide it within its budget.
  std::mt19937_64 rng(4);
  Scheme s;
  s.name = "random";
  s.max_distance = 12;
  for (int t = 0; t < 4096; ++t) {
    TableLayout l;
    for (unsigned i = 0; i < 64; ++i) l.source_bit[i] = static_cast<uint8_t>(i);
    std::shuffle(l.source_bit.begin(), l.source_bit.end(), rng);
    l.prefix_bits = 16;
    s.tables.push_back(l);
  }
  const auto f = built(s, 3);
  const Index index = Index::from_buffer(f.data(), f.size());
  const auto start = std::chrono::steady_clock::now();
  const auto report = index.verify();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("verify of 4096 random tables: " << seconds << " s");
  CHECK(report.ok());
  REQUIRE(report.unchecked.size() == 1);
  CHECK(report.unchecked[0].code == errc::coverage);
  CHECK(seconds < 30);  // about a second in a release build
}
