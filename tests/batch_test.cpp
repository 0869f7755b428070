// Batch work (pairs, join, clusters) against brute force: every scheme family, several k, duplicate
// fingerprints with several ids, thread-count invariance, empty inputs.
#include "simdex/batch.h"

#include <doctest/doctest.h>

#include <random>
#include <set>
#include <string>
#include <tuple>

#include "reader/batch_work.h"
#include "reader/index_impl.h"
#include "reader/probe.h"
#include "test_util.h"

using namespace simdex;
using namespace simdex::test;

namespace {

using PairSet = std::vector<std::tuple<uint64_t, uint64_t, unsigned>>;  // (a, b, distance), sorted

std::vector<uint64_t> distinct(const Pairs& pairs) {
  std::vector<uint64_t> f;
  for (auto [x, id] : pairs) f.push_back(x);
  std::sort(f.begin(), f.end());
  f.erase(std::unique(f.begin(), f.end()), f.end());
  return f;
}

PairSet brute_pairs(const std::vector<uint64_t>& f, unsigned k) {
  PairSet out;
  for (std::size_t i = 0; i < f.size(); ++i)
    for (std::size_t j = i + 1; j < f.size(); ++j) {
      const auto d = static_cast<unsigned>(std::popcount(f[i] ^ f[j]));
      if (d <= k) out.emplace_back(f[i], f[j], d);
    }
  return out;
}

// Pairs as the library reports them; REQUIREs each pair to come once, a < b, ids right.
PairSet library_pairs(const Index& index, unsigned k, unsigned threads, const Oracle* oracle = nullptr) {
  BatchOptions o;
  o.k = static_cast<int>(k);
  o.threads = threads;
  o.with_ids = oracle != nullptr;
  PairSet out;
  const BatchStats stats = find_pairs(index, o, [&](std::span<const NearPair> batch) {
    for (const NearPair& p : batch) {
      REQUIRE(p.a < p.b);
      if (oracle) {
        REQUIRE(p.ids_a.to_vector() == oracle->all().at(p.a));
        REQUIRE(p.ids_b.to_vector() == oracle->all().at(p.b));
      }
      out.emplace_back(p.a, p.b, p.distance);
    }
  });
  REQUIRE(stats.results == out.size());
  uint64_t by_table = 0;
  const auto& read = index_impl(index).file.tables_within(k);
  for (uint32_t i = 0; i < stats.tables.size(); ++i) {
    const auto& t = stats.tables[i];
    const bool searched = std::find(read.begin(), read.end(), i) != read.end();
    REQUIRE(t.read == searched);
    REQUIRE(t.blocks_decoded == (searched ? t.blocks : 0));  // every block of a table read once
    by_table += t.results;
  }
  REQUIRE(by_table == out.size());
  std::sort(out.begin(), out.end());
  REQUIRE(std::adjacent_find(out.begin(), out.end()) == out.end());  // each pair once
  return out;
}

std::set<std::vector<uint64_t>> brute_clusters(const std::vector<uint64_t>& f, const PairSet& edges) {
  std::map<uint64_t, uint64_t> parent;
  for (uint64_t x : f) parent[x] = x;
  auto find = [&](uint64_t x) {
    while (parent[x] != x) x = parent[x];
    return x;
  };
  for (auto [a, b, d] : edges) parent[find(a)] = find(b);
  std::map<uint64_t, std::vector<uint64_t>> groups;
  for (uint64_t x : f) groups[find(x)].push_back(x);
  std::set<std::vector<uint64_t>> out;
  for (auto& [r, g] : groups) out.insert(g);
  return out;
}

std::set<std::vector<uint64_t>> library_clusters(const Index& index, unsigned k, unsigned threads,
                                                 std::size_t min_size) {
  BatchOptions o;
  o.k = static_cast<int>(k);
  o.threads = threads;
  ClusterOptions c;
  c.min_size = min_size;
  std::set<std::vector<uint64_t>> out;
  uint64_t previous_first = 0;
  bool any = false;
  find_clusters(index, o, c, [&](std::span<const ClusterMember> members) {
    std::vector<uint64_t> g;
    for (const auto& m : members) g.push_back(m.fingerprint);
    REQUIRE(std::is_sorted(g.begin(), g.end()));
    REQUIRE(g.size() >= min_size);
    if (any) REQUIRE(g.front() > previous_first);  // clusters in order of their first member
    previous_first = g.front();
    any = true;
    REQUIRE(out.insert(g).second);
  });
  return out;
}

using Hits = std::vector<std::tuple<std::size_t, uint64_t, unsigned>>;  // (query, fingerprint, distance)

Hits library_join(const Index& index, const std::vector<Query>& queries, unsigned k, unsigned threads,
                  const Oracle& oracle) {
  BatchOptions o;
  o.k = static_cast<int>(k);
  o.threads = threads;
  o.with_ids = true;
  Hits out;
  const BatchStats stats = join(index, queries, o, [&](std::span<const JoinHit> batch) {
    for (const JoinHit& h : batch) {
      REQUIRE(h.query < queries.size());
      REQUIRE(h.query_id == queries[h.query].id);
      REQUIRE(h.query_fingerprint == queries[h.query].fingerprint);
      REQUIRE(h.ids.to_vector() == oracle.all().at(h.fingerprint));
      out.emplace_back(h.query, h.fingerprint, h.distance);
    }
  });
  const auto& read = index_impl(index).file.tables_within(k);
  for (uint32_t i = 0; i < stats.tables.size(); ++i) {
    REQUIRE(stats.tables[i].blocks_decoded <= stats.tables[i].blocks);  // each block at most once
    const bool searched = std::find(read.begin(), read.end(), i) != read.end();
    REQUIRE(stats.tables[i].read == searched);
    if (!searched) REQUIRE(stats.tables[i].blocks_decoded == 0);
  }
  std::sort(out.begin(), out.end());
  REQUIRE(std::adjacent_find(out.begin(), out.end()) == out.end());
  return out;
}

Hits brute_join(const std::vector<Query>& queries, unsigned k, const Oracle& oracle) {
  Hits out;
  for (std::size_t i = 0; i < queries.size(); ++i)
    for (const auto& e : oracle.query(queries[i].fingerprint, k))
      out.emplace_back(i, e.fingerprint, e.distance);
  std::sort(out.begin(), out.end());
  return out;
}

// Builds `pairs` with `scheme` and checks pairs, clusters and join for every k up to the scheme's.
void check_all(const Pairs& pairs, const Scheme& scheme, uint32_t block_bytes, uint64_t seed,
               bool join_too = true) {
  TempDir dir;
  BuildOptions options;
  options.scheme = scheme;
  options.block_bytes = block_bytes;
  build(dir.file("x.sdx"), pairs, options);
  const Index index = Index::open(dir.file("x.sdx"));
  const Oracle oracle(pairs);
  const auto fps = distinct(pairs);
  std::mt19937_64 rng(seed);
  for (unsigned k = 0; k <= scheme.max_distance; ++k) {
    CAPTURE(k);
    const PairSet expected = brute_pairs(fps, k);
    REQUIRE(library_pairs(index, k, 2, &oracle) == expected);
    REQUIRE(library_clusters(index, k, 2, 1) == brute_clusters(fps, expected));
    if (!join_too) continue;
    std::vector<Query> queries;
    uint64_t id = 1000000;
    for (uint64_t q : queries_for(rng, pairs, k, 300)) queries.push_back({q, id++});
    for (std::size_t i = 0; i < 50 && i < pairs.size(); ++i)
      queries.push_back({pairs[i].first, id++});  // stored
    queries.push_back(queries.front());           // a repeated query is answered again
    REQUIRE(library_join(index, queries, k, 2, oracle) == brute_join(queries, k, oracle));
  }
}

// With duplicates: clustered data where some fingerprints have several ids.
Pairs with_duplicates(Pairs p, std::mt19937_64& rng) {
  const std::size_t n = p.size();
  for (std::size_t i = 0; i < n / 10; ++i) p.emplace_back(p[rng() % n].first, 5000000 + i);
  return p;
}

}  // namespace

TEST_CASE("pairs, clusters and join agree with brute force: paper schemes, clustered data") {
  std::mt19937_64 rng(21);
  for (const char* name : {"paper-20", "paper-16", "paper-10", "paper-4"}) {
    CAPTURE(name);
    check_all(with_duplicates(clustered_pairs(rng, 1500, 4), rng), Scheme::named(name, 3, 0), 64, rng());
  }
}

TEST_CASE("one-level and two-level schemes with other k, random and dense-prefix data") {
  std::mt19937_64 rng(22);
  check_all(with_duplicates(clustered_pairs(rng, 1200, 3), rng), Scheme::one_level(3, 1), 128, rng());
  check_all(with_duplicates(clustered_pairs(rng, 1200, 6), rng), Scheme::one_level(7, 5), 64, rng());
  check_all(random_pairs(rng, 1500), Scheme::one_level(4, 2), 256, rng());
  check_all(dense_prefix_pairs(rng, 800, 40), Scheme::one_level(6, 4), 64, rng(), false);
  check_all(clustered_pairs(rng, 1000, 3), Scheme::two_level(3, 3, 2), 64, rng());
  check_all(clustered_pairs(rng, 500, 2), Scheme::one_level(1, 0), 32, rng());
}

TEST_CASE("a group of 20,000 entries (compared row by row, in stripes) gives brute force's pairs") {
  std::mt19937_64 rng(24);
  check_all(dense_prefix_pairs(rng, 20000, 40), Scheme::one_level(2, 1), 256, rng(), false);
}

TEST_CASE("clusters of near-identical entries, their pairs reported by different tables, equal brute force") {
  // Random walks of 1- and 2-bit steps: every entry within k of several others, the pairs of one
  // cluster put together by different tables. clusters reports, within a group, only the pairs
  // that join its components: one built on another table's pairs would drop a link.
  std::mt19937_64 rng(25);
  for (int round = 0; round < 40; ++round) {
    CAPTURE(round);
    // Rounds 20..39 start every walk in one prefix of 40 bits: groups of hundreds of entries in
    // table 0, whose components the scan (compare_components) merges as later entries link them.
    const uint64_t dense = rng() << 24;
    Pairs pairs;
    while (pairs.size() < 600) {
      uint64_t x = round < 20 ? rng() : dense | (rng() >> 40);
      for (unsigned steps = 2 + rng() % 12; steps > 0; --steps) {
        pairs.emplace_back(x, pairs.size());
        for (unsigned f = 1 + rng() % 2; f > 0; --f) x ^= uint64_t{1} << (rng() % 64);
      }
    }
    TempDir dir;
    BuildOptions options;
    options.scheme = Scheme::named(round % 2 ? "paper-4" : "paper-10", 3, 0);
    options.block_bytes = 32;
    build(dir.file("x.sdx"), pairs, options);
    const Index index = Index::open(dir.file("x.sdx"));
    const auto fps = distinct(pairs);
    for (unsigned k : {2u, 3u}) {
      CAPTURE(k);
      REQUIRE(library_clusters(index, k, 1 + round % 3, 1) == brute_clusters(fps, brute_pairs(fps, k)));
    }
  }
}

TEST_CASE("clusters of a group of 100,000 near-identical entries: about one comparison an entry") {
  // Each entry the centre with 2 to 4 of its bits flipped: every two within 8, one component,
  // found with about one comparison an entry and table, where every two entries of the group were
  // compared (2.5e9 a table: minutes). 2,000 random entries around them are alone.
  std::mt19937_64 rng(26);
  const uint64_t centre = rng();
  std::set<uint64_t> near;
  while (near.size() < 100'000) {
    uint64_t x = centre;
    for (unsigned f = 2 + rng() % 3; f > 0; --f) x ^= uint64_t{1} << (rng() % 64);
    near.insert(x);
  }
  std::vector<uint64_t> far;
  while (far.size() < 2'000) {
    const uint64_t x = rng();
    bool alone = std::popcount(x ^ centre) > 12;  // then above 8 from every near entry
    for (uint64_t y : far) alone = alone && std::popcount(x ^ y) > 8;
    if (alone) far.push_back(x);
  }
  Pairs pairs;
  for (uint64_t x : near) pairs.emplace_back(x, pairs.size());
  for (uint64_t x : far) pairs.emplace_back(x, pairs.size());
  TempDir dir;
  BuildOptions options;
  options.k = 8;
  options.scheme = Scheme::one_level(9, 8);  // prefixes of 7 bits: about 70,000 of them share table 0's
  build(dir.file("x.sdx"), pairs, options);
  const Index index = Index::open(dir.file("x.sdx"));
  for (unsigned threads : {1u, 2u}) {
    BatchOptions o;
    o.threads = threads;
    // an entry against each component of its group: the one of the near entries and the far ones
    // that share its prefix (2,000 / 2^7 a group): about 9 x 100,000 x 16 comparisons in all
    o.work_limit = 100'000'000;
    std::set<std::vector<uint64_t>> got;
    find_clusters(index, o, {.min_size = 1}, [&](std::span<const ClusterMember> members) {
      std::vector<uint64_t> g;
      for (const auto& m : members) g.push_back(m.fingerprint);
      got.insert(g);
    });
    REQUIRE(got.size() == 1 + far.size());
    const std::vector<uint64_t> whole(near.begin(), near.end());
    CHECK(got.count(whole) == 1);
    for (uint64_t x : far) CHECK(got.count({x}) == 1);
  }
}

// `pairs` in a paper-10 index (k = 3) of 64-byte blocks in `dir`, opened.
Index paper10_index(const TempDir& dir, const Pairs& pairs) {
  BuildOptions options;
  options.scheme = Scheme::named("paper-10", 3, 0);
  options.block_bytes = 64;
  build(dir.file("x.sdx"), pairs, options);
  return Index::open(dir.file("x.sdx"));
}

TEST_CASE("results do not depend on the thread count") {
  std::mt19937_64 rng(23);
  const Pairs pairs = with_duplicates(clustered_pairs(rng, 4000, 3), rng);
  TempDir dir;
  const Index index = paper10_index(dir, pairs);
  const Oracle oracle(pairs);
  std::vector<Query> queries;
  for (uint64_t q : queries_for(rng, pairs, 3, 2000)) queries.push_back({q, queries.size()});
  const PairSet p1 = library_pairs(index, 3, 1, &oracle);
  const auto c1 = library_clusters(index, 3, 1, 2);
  const Hits j1 = library_join(index, queries, 3, 1, oracle);
  CHECK(!p1.empty());
  CHECK(!c1.empty());
  CHECK(!j1.empty());
  for (unsigned threads : {2u, 5u}) {
    CAPTURE(threads);
    CHECK(library_pairs(index, 3, threads, &oracle) == p1);
    CHECK(library_clusters(index, 3, threads, 2) == c1);
    CHECK(library_join(index, queries, 3, threads, oracle) == j1);
  }
}

TEST_CASE("below the index's k, only the tables that are first to group some pair within k are read") {
  // paper-10 (k = 3): 5 blocks of the 64 bits, a table for each 2 of them as its prefix. Within
  // k = 0 table 0 finds everything; within 1 the differing bit lies in one block, and for every
  // block the first table to leave it out of its prefix is 0, 1 or 4; within 2, 6 tables serve.
  std::mt19937_64 rng(25);
  const Pairs pairs = with_duplicates(clustered_pairs(rng, 3000, 3), rng);
  TempDir dir;
  const Index index = paper10_index(dir, pairs);
  const auto& file = index_impl(index).file;
  CHECK(file.tables_within(0) == std::vector<uint32_t>{0});
  CHECK(file.tables_within(1) == std::vector<uint32_t>{0, 1, 4});
  CHECK(file.tables_within(2).size() == 6);
  CHECK(file.tables_within(3).size() == 10);
  CHECK(error_code([&] { file.tables_within(4); }) == errc::usage);  // above the index's k
  const Oracle oracle(pairs);
  for (unsigned k = 0; k <= 3; ++k) {
    CAPTURE(k);
    std::vector<Query> queries;
    for (uint64_t q : queries_for(rng, pairs, k, 500)) queries.push_back({q, queries.size()});
    for (std::size_t i = 0; i < 100; ++i) queries.push_back({pairs[i].first, queries.size()});
    CHECK(library_join(index, queries, k, 2, oracle) == brute_join(queries, k, oracle));
    for (const Query& q : queries) REQUIRE(answer(index, q.fingerprint, k) == oracle.query(q.fingerprint, k));
  }
}

// Extreme fingerprints (0, ~0 and their neighbours) with several ids each, added to `p`.
Pairs with_extremes(Pairs p) {
  uint64_t id = 9000000;
  for (uint64_t x :
       {uint64_t{0}, uint64_t{1}, uint64_t{3}, ~uint64_t{0}, ~uint64_t{0} - 1, ~uint64_t{0} >> 1})
    for (int copy = 0; copy < 2; ++copy) p.emplace_back(x, id++);
  return p;
}

TEST_CASE("join with more queries than prefixes: chunks share blocks, hits the same at every thread count") {
  // Queries outnumber the stored fingerprints' prefix groups, so neighbouring query groups read the
  // same blocks: the join still splits them among threads, and each hit comes once.
  std::mt19937_64 rng(25);
  struct Case {
    const char* what;
    Pairs pairs;
    Scheme scheme;
    std::size_t queries;  // above 65536, the queries are also permuted and sorted in slices
  };
  const Case cases[] = {
      {"random", with_extremes(random_pairs(rng, 1500)), Scheme::named("paper-4", 3, 0), 66000},
      {"clustered", with_extremes(with_duplicates(clustered_pairs(rng, 1500, 3), rng)),
       Scheme::named("paper-10", 3, 0), 4000},
      {"dense prefix", with_extremes(with_duplicates(dense_prefix_pairs(rng, 1200, 44), rng)),
       Scheme::one_level(4, 3), 4000},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    TempDir dir;
    BuildOptions options;
    options.scheme = c.scheme;
    options.block_bytes = 64;
    build(dir.file("x.sdx"), c.pairs, options);
    const Index index = Index::open(dir.file("x.sdx"));
    const Oracle oracle(c.pairs);
    std::vector<Query> queries;
    for (uint64_t q : queries_for(rng, c.pairs, 3, c.queries)) queries.push_back({q, queries.size()});
    for (uint64_t q : {uint64_t{0}, ~uint64_t{0}, uint64_t{2}, ~uint64_t{0} - 3})
      queries.push_back({q, queries.size()});
    const Hits expected = brute_join(queries, 3, oracle);
    CHECK(expected.size() > queries.size() / 2);
    for (unsigned threads : {1u, 2u, 3u, 7u}) {
      CAPTURE(threads);
      CHECK(library_join(index, queries, 3, threads, oracle) == expected);
    }
  }
}

TEST_CASE("join with fewer queries than blocks (the sparse path) and more (the dense path)") {
  // The join finds its groups' blocks through a pipeline when the queries are fewer than a table's
  // blocks, else by searching from the last group's block: both against brute force, ids included.
  std::mt19937_64 rng(31);
  const Pairs sets[] = {with_extremes(random_pairs(rng, 8000)),
                        with_extremes(with_duplicates(clustered_pairs(rng, 8000, 3), rng)),
                        with_extremes(dense_prefix_pairs(rng, 8000, 40))};
  for (const Pairs& pairs : sets) {
    TempDir dir;
    BuildOptions options;
    options.scheme = Scheme::named("paper-10", 3, 0);
    options.block_bytes = 32;  // about 2,000 blocks a table
    build(dir.file("s.sdx"), pairs, options);
    const Index index = Index::open(dir.file("s.sdx"));
    const Oracle oracle(pairs);
    for (std::size_t count : {1u, 7u, 300u, 5000u}) {
      CAPTURE(count);
      std::vector<Query> queries;
      for (uint64_t q : queries_for(rng, pairs, 3, count)) queries.push_back({q, queries.size()});
      const Hits expected = brute_join(queries, 3, oracle);
      for (unsigned threads : {1u, 2u}) {
        CAPTURE(threads);
        CHECK(library_join(index, queries, 3, threads, oracle) == expected);
      }
    }
  }
}

TEST_CASE("duplicate groups, cluster sizes in ids, k above the index's k") {
  TempDir dir;
  // 0xff (ids 1, 2, 3), 0xfe (id 4): distance 1; 0xf000... (id 5) alone with ids; 0 (ids 6, 7) alone.
  const Pairs pairs = {{0xff, 1}, {0xff, 2}, {0xff, 3}, {0xfe, 4}, {0xf000000000000000, 5}, {0, 6}, {0, 7}};
  BuildOptions options;
  options.scheme = Scheme::named("paper-4", 3, 0);
  build(dir.file("x.sdx"), pairs, options);
  const Index index = Index::open(dir.file("x.sdx"));
  BatchOptions o;
  o.with_ids = true;
  o.duplicates = true;
  std::vector<std::tuple<uint64_t, uint64_t, unsigned, std::vector<uint64_t>, std::vector<uint64_t>>> got;
  find_pairs(index, o, [&](std::span<const NearPair> b) {
    for (const auto& p : b) got.emplace_back(p.a, p.b, p.distance, p.ids_a.to_vector(), p.ids_b.to_vector());
  });
  std::sort(got.begin(), got.end());
  using V = std::vector<uint64_t>;
  REQUIRE(got.size() == 3);
  CHECK(got[0] == std::make_tuple(uint64_t{0}, uint64_t{0}, 0u, V{6, 7}, V{6, 7}));
  CHECK(got[1] == std::make_tuple(uint64_t{0xfe}, uint64_t{0xff}, 1u, V{4}, V{1, 2, 3}));
  CHECK(got[2] == std::make_tuple(uint64_t{0xff}, uint64_t{0xff}, 0u, V{1, 2, 3}, V{1, 2, 3}));

  std::vector<std::vector<uint64_t>> clusters;
  ClusterOptions c;
  c.min_size = 2;
  c.size_in_ids = true;  // 0 has two ids: a cluster of two documents
  find_clusters(index, {}, c, [&](std::span<const ClusterMember> m) {
    std::vector<uint64_t> ids;
    for (const auto& x : m)
      for (uint64_t id : x.ids) ids.push_back(id);
    clusters.push_back(ids);
  });
  CHECK(clusters == std::vector<std::vector<uint64_t>>{{6, 7}, {4, 1, 2, 3}});

  BatchOptions too_big;
  too_big.k = 4;
  CHECK(error_code([&] { find_pairs(index, too_big, [](std::span<const NearPair>) {}); }) == errc::usage);
  CHECK(error_code([&] { find_clusters(index, too_big, {}, [](std::span<const ClusterMember>) {}); }) ==
        errc::usage);
  const std::vector<Query> q = {{0xff, 1}};
  CHECK(error_code([&] { join(index, q, too_big, [](std::span<const JoinHit>) {}); }) == errc::usage);
}

TEST_CASE("pairs and clusters at k = 0 compare nothing: a dense prefix is no work, only duplicates") {
  TempDir dir;
  // 200,000 distinct fingerprints sharing their top 40 bits (groups far past the work limit at
  // k >= 1), one of them held twice.
  Pairs pairs;
  for (uint64_t i = 0; i < 200'000; ++i)  // an odd multiplier: distinct low 24 bits, spread
    pairs.push_back({(uint64_t{0xabcdef1234} << 24) | ((i * 2654435761u) & 0xffffff), i});
  pairs.push_back({pairs[7].first, 999'999});
  build(dir.file("dense.sdx"), pairs, {});
  const Index index = Index::open(dir.file("dense.sdx"));
  BatchOptions o;
  o.k = 0;
  o.work_limit = 0;
  o.with_ids = o.duplicates = true;
  std::vector<std::pair<uint64_t, std::vector<uint64_t>>> got;
  find_pairs(index, o, [&](std::span<const NearPair> b) {
    for (const auto& p : b) {
      CHECK(p.a == p.b);
      got.emplace_back(p.a, p.ids_a.to_vector());
    }
  });
  CHECK(got == std::vector<std::pair<uint64_t, std::vector<uint64_t>>>{{pairs[7].first, {7, 999'999}}});
  std::size_t clusters = 0;
  ClusterOptions c;
  c.size_in_ids = true;
  find_clusters(index, o, c, [&](std::span<const ClusterMember> m) {
    CHECK(m.size() == 1);
    ++clusters;
  });
  CHECK(clusters == 1);
  BatchOptions k1 = o;  // the same prefix at k = 1: refused, as it would compare about 2e10 pairs
  k1.k = 1;
  CHECK(error_code([&] { find_pairs(index, k1, [](std::span<const NearPair>) {}); }) == errc::work_limit);
}

TEST_CASE("empty index and empty query set") {
  TempDir dir;
  build(dir.file("e.sdx"), {}, {});
  const Index empty = Index::open(dir.file("e.sdx"));
  std::size_t calls = 0;
  const auto stats = find_pairs(empty, {}, [&](std::span<const NearPair>) { ++calls; });
  CHECK(stats.results == 0);
  find_clusters(empty, {}, {.min_size = 1}, [&](std::span<const ClusterMember>) { ++calls; });
  const std::vector<Query> q = {{0, 0}, {1, 1}};
  CHECK(join(empty, q, {}, [&](std::span<const JoinHit>) { ++calls; }).results == 0);
  CHECK(calls == 0);

  std::mt19937_64 rng(24);
  build(dir.file("x.sdx"), clustered_pairs(rng, 300, 3), {});
  const Index index = Index::open(dir.file("x.sdx"));
  const auto js = join(index, {}, {}, [&](std::span<const JoinHit>) { ++calls; });
  CHECK(js.results == 0);
  for (const auto& t : js.tables) CHECK(t.blocks_decoded == 0);
  CHECK(calls == 0);
}

TEST_CASE("the work estimate's prefix groups: where the searches put them, on every block") {
  // reader::prefix_run answers from the neighbouring keys where it can: on sorted keys it must give
  // what first_block_not_below gives, on groups within a block and on groups across many (dense
  // prefixes, 32-byte blocks), for schemes of long and of short prefixes.
  std::mt19937_64 rng(23);
  const std::vector<std::pair<const char*, Pairs>> data = {
      {"random", random_pairs(rng, 5000)},
      {"clustered", clustered_pairs(rng, 5000, 3)},
      {"dense prefix", dense_prefix_pairs(rng, 5000, 40)}};
  for (const auto& d : data)
    for (const char* scheme : {"paper-10", "paper-4"})
      for (const uint32_t block_bytes : {32u, 256u}) {
        const std::string name = d.first;  // (not a structured binding: CAPTURE's lambda takes it)
        const Pairs& pairs = d.second;
        CAPTURE(name);
        CAPTURE(scheme);
        CAPTURE(block_bytes);
        TempDir dir;
        build(dir.file("w.sdx"), pairs, scheme, block_bytes);
        const Index index = Index::open(dir.file("w.sdx"));
        uint64_t multi_block = 0;
        for (const reader::TableView& t : index_impl(index).file.tables()) {
          REQUIRE(t.prefix_bits() > 0);
          REQUIRE(t.prefix_bits() < 64);
          for (uint64_t j = 0; j < t.block_count(); ++j) {
            const auto [lo, hi] = reader::prefix_range(t.key(j), t.prefix_bits());
            const uint64_t first = t.first_block_not_below(lo);
            const reader::BlockRun expected{
                first, hi == ~uint64_t{0} ? t.block_count() : t.first_block_not_below(hi + 1, first)};
            CAPTURE(j);
            CHECK(reader::prefix_run(t, j) == expected);
            multi_block += expected.end - expected.first > 1;
          }
        }
        if (name == "dense prefix" && block_bytes == 32) CHECK(multi_block > 0);
      }
}
