// Batch work (pairs, join, clusters) on hostile files that open cleanly: ranks that lie, schemes
// that make the work explode, thread creation that fails. Every case ends in a simdex::Error or a
// right answer, never a crash.
#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <type_traits>

#include "format/checksum.h"
#include "format/endian.h"
#include "format/layout.h"
#include "reader/batch_work.h"
#include "reader/index_file.h"
#include "reseal.h"
#include "simdex/batch.h"
#include "test_util.h"

using namespace simdex;
using namespace simdex::test;

namespace {

std::vector<uint8_t> built(const Pairs& pairs, Scheme scheme, uint32_t block_bytes) {
  TempDir dir;
  BuildOptions o;
  o.scheme = std::move(scheme);
  o.block_bytes = block_bytes;
  build(dir.file("h.sdx"), pairs, o);
  return read_bytes(dir.file("h.sdx"));
}

// Every checksum rewritten (tests/reseal.h): after an edit the file is checksum-valid again, as a
// hostile file would be.
void reseal(std::vector<uint8_t>& f) { test::reseal(f.data(), f.size()); }

// Sets BLOCK_RANKS[block] of `table` and reseals.
std::vector<uint8_t> with_rank(std::vector<uint8_t> f, uint32_t table, uint64_t block, uint64_t rank) {
  const auto file = reader::IndexFile::parse(f.data(), f.size());
  REQUIRE(block < file.tables()[table].block_count());
  const auto at = static_cast<std::size_t>(file.tables()[table].ranks - f.data()) + 8 * block;
  format::store_le64(f.data() + at, rank);
  reseal(f);
  return f;
}

// The code of the Error that `run` throws; "" when it throws none.
template <typename Run>
std::string error_of(Run&& run) {
  try {
    run();
  } catch (const Error& e) {
    return std::string(errc_name(e.code()));
  }
  return "";
}

void pairs(const Index& index, BatchOptions o) {
  find_pairs(index, o, [](std::span<const NearPair>) {});
}
void joined(const Index& index, const std::vector<Query>& queries, BatchOptions o) {
  join(index, queries, o, [](std::span<const JoinHit>) {});
}
void clusters(const Index& index, BatchOptions o) {
  find_clusters(index, o, {}, [](std::span<const ClusterMember>) {});
}

std::vector<Query> queries_of(const Pairs& pairs) {
  std::vector<Query> q;
  for (auto [f, id] : pairs) q.push_back({f, id});
  return q;
}

}  // namespace

TEST_CASE("ranks from BLOCK_RANKS are checked before they index anything, in every batch command") {
  std::mt19937_64 rng(5);
  const Pairs data = clustered_pairs(rng, 3000, 3);
  const auto good = built(data, Scheme::named("paper-4", 3, 0), 128);
  const auto n = reader::IndexFile::parse(good.data(), good.size()).header().fingerprint_count;
  const auto queries = queries_of(data);
  BatchOptions o;
  o.threads = 3;
  o.with_ids = true;
  // Past the end, wrapping around 64 bits, and in range but not where the block starts.
  for (const uint64_t rank : {n, n + 1000, UINT64_MAX - 5, uint64_t{1}}) {
    CAPTURE(rank);
    const auto bad = with_rank(good, 0, 3, rank);
    const Index index = Index::from_buffer(bad.data(), bad.size());
    CHECK(error_of([&] { clusters(index, o); }) == "block_ranks");
    CHECK(error_of([&] { pairs(index, o); }) == "block_ranks");
    if (rank >= n) CHECK(error_of([&] { joined(index, queries, o); }) == "block_ranks");
    CHECK(!index.verify().ok());
  }
  // Table 0's first rank, which no chain of counts checks.
  const auto bad = with_rank(good, 0, 0, 7);
  const Index index = Index::from_buffer(bad.data(), bad.size());
  CHECK(error_of([&] { clusters(index, o); }) == "block_ranks");
}

namespace {

// One table per permutation given, every one with prefix_bits p: a file that passes verify (a table
// with p = 0 reads everything, so coverage holds) however few prefix bits it has.
Scheme short_prefix_scheme(unsigned tables, unsigned p, unsigned k) {
  Scheme s;
  s.name = "short-prefix";
  s.max_distance = k;
  std::mt19937_64 rng(tables * 100 + p);
  for (unsigned t = 0; t < tables; ++t) {
    TableLayout l;
    for (unsigned i = 0; i < 64; ++i) l.source_bit[i] = static_cast<uint8_t>(63 - i);
    if (t > 0) std::shuffle(l.source_bit.begin(), l.source_bit.end(), rng);
    l.prefix_bits = p;
    s.tables.push_back(l);
  }
  return s;
}

}  // namespace

TEST_CASE(
    "prefix_bits = 0: pairs, clusters and join refuse fast above the work limit, and go on when forced") {
  std::mt19937_64 rng(8);
  const Pairs data = random_pairs(rng, 300'000);
  const auto f = built(data, short_prefix_scheme(4, 0, 3), 4096);
  const Index index = Index::from_buffer(f.data(), f.size());
  REQUIRE(index.verify().ok());
  const auto queries = queries_of(data);
  BatchOptions o;  // the default limit: 4 tables of 300k entries in one group are 1.8e11 comparisons
  auto seconds_since = [](auto start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto start = std::chrono::steady_clock::now();
  CHECK(error_of([&] { pairs(index, o); }) == "work_limit");
  CHECK(error_of([&] { joined(index, queries, o); }) == "work_limit");
  // 10,000 queries are 1.2e10 comparisons, below the limit, but every probe reads all 300k entries.
  const std::remove_cv_t<decltype(queries)> ten_thousand(queries.begin(), queries.begin() + 10'000);
  CHECK(error_of([&] { joined(index, ten_thousand, o); }) == "work_limit");
  CHECK(seconds_since(start) < 5);
  // clusters has no estimate to refuse on before (its component scan costs about a comparison an
  // entry where entries are near): it counts what it compares and stops at the floor of a
  // degenerate file, 1e9 comparisons (about a second; ten under ASan's checks of each load): bounds
  // that hours of work fail and a core shared with other tests (ctest -j) does not.
  start = std::chrono::steady_clock::now();
  CHECK(error_of([&] { clusters(index, o); }) == "work_limit");
#if defined(SIMDEX_TEST_ASAN)
  CHECK(seconds_since(start) < 80);
#else
  CHECK(seconds_since(start) < 20);
#endif
  // A small file of the same scheme under a small limit; forced, the answers are right.
  const Pairs few(data.begin(), data.begin() + 3000);
  const auto g = built(few, short_prefix_scheme(3, 0, 3), 256);
  const Index small = Index::from_buffer(g.data(), g.size());
  o.work_limit = 100'000;
  CHECK(error_of([&] { pairs(small, o); }) == "work_limit");
  CHECK(error_of([&] { joined(small, queries_of(few), o); }) == "work_limit");
  o.work_limit = UINT64_MAX;
  uint64_t found = 0;
  find_pairs(small, o, [&](std::span<const NearPair> b) { found += b.size(); });
  uint64_t brute = 0;
  for (std::size_t i = 0; i < few.size(); ++i)
    for (std::size_t j = i + 1; j < few.size(); ++j) brute += std::popcount(few[i].first ^ few[j].first) <= 3;
  CHECK(found == brute);
}

TEST_CASE("the work estimate follows the real group sizes; legitimate schemes stay below the default limit") {
  std::mt19937_64 rng(12);
  struct Case {
    std::string name;
    Pairs data;
    Scheme scheme;
  };
  std::vector<Case> cases;
  cases.push_back({"paper-4 random", random_pairs(rng, 200'000), Scheme::named("paper-4", 3, 0)});
  cases.push_back({"blocks-9 k8 random", random_pairs(rng, 100'000), Scheme::one_level(9, 8)});
  cases.push_back({"paper-10 clustered", clustered_pairs(rng, 100'000, 3), Scheme::named("paper-10", 3, 0)});
  cases.push_back(
      {"paper-4 dense prefix", dense_prefix_pairs(rng, 50'000, 12), Scheme::named("paper-4", 3, 0)});
  cases.push_back({"p = 4, 2 tables", random_pairs(rng, 50'000), short_prefix_scheme(2, 4, 0)});
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const auto f = built(c.data, c.scheme, 1024);
    const auto file = reader::IndexFile::parse(f.data(), f.size());
    // Exact: the pairs within each prefix group of every table; the estimate may miss by a factor
    // of 3 plus one comparison an entry (groups of one or two entries are not told apart).
    double exact = 0;
    for (const auto& t : file.tables()) {
      std::map<uint64_t, uint64_t> groups;
      const unsigned p = t.prefix_bits();
      for (uint64_t j = 0; j < t.block_count(); ++j)
        file.decode(t, j, [&](uint64_t e, uint32_t) {
          ++groups[p == 0 ? 0 : e >> (64 - p)];
          return true;
        });
      for (const auto& [g, size] : groups)
        exact += static_cast<double>(size) * static_cast<double>(size - 1) / 2;
    }
    const double slack = static_cast<double>(file.header().fingerprint_count * file.tables().size());
    const reader::Work work = reader::pairs_work(file, file.header().max_distance);
    const double estimate = work.comparisons;
    MESSAGE(c.name << ": estimate " << estimate << ", exact " << exact);
    CHECK(estimate < 3 * exact + slack);
    CHECK(estimate > exact / 3 - slack);
    CHECK(estimate < static_cast<double>(BatchOptions::kDefaultWorkLimit));
    CHECK_NOTHROW(reader::check_work("pairs", work, BatchOptions::kDefaultWorkLimit));
  }
}

#if !defined(SIMDEX_TEST_ASAN) && defined(__GLIBC__)
#include <malloc.h>

TEST_CASE("opening a file of 4096 tables allocates in proportion to what it reads, not 8 KiB a table") {
  // The decode tables are built on a table's first decode: opening and probing one table leaves
  // the other 4095 without one (32 MiB before).
  std::mt19937_64 rng(2);
  const auto f = built(random_pairs(rng, 10), short_prefix_scheme(4096, 16, 0), 256);
  auto allocated = [] {  // small chunks and mmapped large ones
    const auto m = mallinfo2();
    return m.uordblks + m.hblkhd;
  };
  const std::size_t before = allocated();
  const Index index = Index::from_buffer(f.data(), f.size());
  const std::size_t opened = allocated() - before;
  MESSAGE("open of 4096 tables: " << opened << " bytes");
  CHECK(opened < 16 * 1024 * 1024);
}
#endif
