// The memory-bounded writer: radix sort, run files, the external sorter, and the whole build under a
// tiny bound (many runs, several merge levels) giving the same bytes as the in-memory build.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "format/run_tasks.h"
#include "test_util.h"
#include "writer/external_sorter.h"
#include "writer/radix_sort.h"
#include "writer/run_file.h"
#include "writer/u64_store.h"

using namespace simdex;
using namespace simdex::test;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> leftovers(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind(writer::ScratchSpace::kPrefix, 0) == 0)
      out.push_back(e.path().string());
  return out;
}

std::string dir_of(const TempDir& t) { return fs::path(t.file("x")).parent_path().string(); }

}  // namespace

// Keys of many shapes: random, short (high digits all zero), few values with repeats, top digits all
// ones, one dense cluster (a long shared prefix, differing in the low bits only), and keys that
// differ in one bit each (a digit per level of one bucket).
std::vector<uint64_t> keys_of_kind(std::mt19937_64& rng, std::size_t n, int kind) {
  std::vector<uint64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    uint64_t x = rng();
    if (kind == 1) x &= 0xffff;
    if (kind == 2) x = (x & 0xff) | (uint64_t{7} << 60);
    if (kind == 3) x = ~uint64_t{0} - (x & 3);
    if (kind == 4) x = 0x5a5a5a5a5a000000 | (x & 0xffff);
    if (kind == 5) x = uint64_t{1} << (x % 64);
    v[i] = x;
  }
  return v;
}
constexpr int kKinds = 6;

TEST_CASE("radix_sort sorts like std::sort, at any thread count") {
  std::mt19937_64 rng(1);
  for (std::size_t n : {0, 1, 2, 31, 32, 33, 255, 256, 1000, 20000, 70000, 300001, 1500000}) {
    for (int kind = 0; kind < kKinds; ++kind) {
      const std::vector<uint64_t> input = keys_of_kind(rng, n, kind);
      std::vector<uint64_t> expected = input;
      std::sort(expected.begin(), expected.end());
      for (unsigned threads : {1u, 2u, 3u}) {
        CAPTURE(n);
        CAPTURE(kind);
        CAPTURE(threads);
        std::vector<uint64_t> v = input, scratch(n);
        writer::radix_sort(v, scratch, threads);
        CHECK(v == expected);
      }
    }
  }
}

TEST_CASE("radix_sort of pairs: by key, then id, as std::sort, at any thread count") {
  std::mt19937_64 rng(7);
  for (std::size_t n : {0, 1, 40, 1000, 70000, 300001}) {
    for (int kind = 0; kind < kKinds; ++kind) {
      const std::vector<uint64_t> keys = keys_of_kind(rng, n, kind);
      std::vector<writer::Pair> input(n);
      for (std::size_t i = 0; i < n; ++i) input[i] = {keys[i], rng() % 5 == 0 ? ~uint64_t{0} : rng() % 1000};
      auto expected = input;
      std::sort(expected.begin(), expected.end());
      for (unsigned threads : {1u, 2u, 7u}) {
        CAPTURE(n);
        CAPTURE(kind);
        CAPTURE(threads);
        auto got = input;
        std::vector<writer::Pair> scratch(n);
        writer::radix_sort(std::span<writer::Pair>(got), std::span<writer::Pair>(scratch), threads);
        CHECK(got == expected);
      }
    }
  }
}

TEST_CASE("radix_sort on one pool, sort after sort: each sorted, no more threads than its parts") {
  // A table's build sorts on the pool it permutes and encodes on; a pool of --threads 4096 must not
  // start a thread a bucket. 70,000 keys: parts of at least 4,096 keys, 17 of them.
  const long before = threads_in_process();
  format::TaskPool pool(64);
  std::mt19937_64 rng(11);
  for (int kind = 0; kind < kKinds; ++kind) {
    CAPTURE(kind);
    std::vector<uint64_t> v = keys_of_kind(rng, 70000, kind), scratch(v.size());
    std::vector<uint64_t> expected = v;
    std::sort(expected.begin(), expected.end());
    writer::radix_sort(v, scratch, pool);
    CHECK(v == expected);
  }
  CHECK(threads_in_process() - before <= 17);
}

TEST_CASE("radix_sort: keys that nest the most passes within the caches (their counters' bound)") {
  // 8,192 keys in the low 7 bits (64 of each value) and one key apart at each 14-bit digit from the
  // top: four passes of 2^14 buckets nested, each leaving the 8,192 in one bucket, then one of 2^8
  // (the bound of the counters kept for them; ASan builds see a pass past it).
  std::vector<uint64_t> keys;
  for (uint64_t i = 0; i < 8192; ++i) keys.push_back(i % 128);
  for (unsigned bit : {63u, 49u, 35u, 21u}) keys.push_back(uint64_t{1} << bit);
  std::mt19937_64 rng(3);
  std::shuffle(keys.begin(), keys.end(), rng);
  std::vector<uint64_t> expected = keys, scratch(keys.size());
  std::sort(expected.begin(), expected.end());
  writer::radix_sort(keys, scratch);
  CHECK(keys == expected);
  std::vector<writer::Pair> pairs, pair_scratch(expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    pairs.push_back({expected[expected.size() - 1 - i], i % 3});
  auto expected_pairs = pairs;
  std::sort(expected_pairs.begin(), expected_pairs.end());
  writer::radix_sort(std::span<writer::Pair>(pairs), std::span<writer::Pair>(pair_scratch));
  CHECK(pairs == expected_pairs);
}

TEST_CASE("run files: records round-trip through small buffers; files are removed") {
  TempDir dir;
  writer::ScratchSpace space(dir_of(dir));
  std::string path;
  {
    writer::TempFile file(space);
    path = file.path();
    CHECK(fs::path(path).filename().string().rfind(".simdex-sort-", 0) == 0);
    CHECK(fs::exists(path));
    writer::RunWriter<writer::Pair> out(file, 3);
    for (uint64_t i = 0; i < 1000; ++i) out.add({i * 7, i});
    out.flush();
    CHECK(file.size() == 1000 * sizeof(writer::Pair));
    CHECK(space.bytes_in_use() == file.size());
    writer::RunReader<writer::Pair> in(file, 7);
    for (uint64_t i = 0; i < 1000; ++i) {
      REQUIRE(!in.done());
      CHECK(in.head() == writer::Pair{i * 7, i});
      in.pop();
    }
    CHECK(in.done());
    writer::RunReader<writer::Pair> part(file, 4, 990, 5);  // records 990..994
    std::vector<uint64_t> ids;
    for (; !part.done(); part.pop()) ids.push_back(part.head().id);
    CHECK(ids == std::vector<uint64_t>{990, 991, 992, 993, 994});
  }
  CHECK(!fs::exists(path));
  CHECK(space.bytes_in_use() == 0);
  CHECK(space.peak_bytes() == 1000 * sizeof(writer::Pair));
}

TEST_CASE("merge_readers merges runs of different lengths, keeping repeats") {
  TempDir dir;
  writer::ScratchSpace space(dir_of(dir));
  std::mt19937_64 rng(2);
  std::vector<std::unique_ptr<writer::TempFile>> files;
  std::vector<uint64_t> all;
  for (int r = 0; r < 5; ++r) {
    std::vector<uint64_t> run(static_cast<std::size_t>(r * 37));
    for (auto& x : run) x = rng() % 500;
    std::sort(run.begin(), run.end());
    all.insert(all.end(), run.begin(), run.end());
    files.push_back(std::make_unique<writer::TempFile>(space));
    files.back()->append(run.data(), run.size() * 8);
  }
  std::vector<writer::RunReader<uint64_t>> readers;
  for (auto& f : files) readers.emplace_back(*f, 5);
  std::vector<uint64_t> merged;
  writer::merge_readers(readers, [&](uint64_t x) { merged.push_back(x); });
  std::sort(all.begin(), all.end());
  CHECK(merged == all);
}

TEST_CASE("ExternalSorter: many runs and merge levels give the sorted records, twice") {
  TempDir dir;
  writer::ScratchSpace space(dir_of(dir));
  std::mt19937_64 rng(3);
  std::vector<uint64_t> values(50000);
  for (auto& x : values) x = rng();
  {
    writer::ExternalSorter<writer::SortU64> sorter(space, 16 << 10);  // 1024 values a run
    for (uint64_t x : values) sorter.add(x);
    sorter.finish();
    CHECK(sorter.external());
    CHECK(sorter.runs_written() > 49);  // 49 runs, then merges of fan-in 2
    CHECK(sorter.run_count() <= 2);
    std::sort(values.begin(), values.end());
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<uint64_t> out;
      sorter.for_each([&](uint64_t x) { out.push_back(x); });
      CHECK(out == values);
    }
    CHECK(!leftovers(dir_of(dir)).empty());
  }
  CHECK(leftovers(dir_of(dir)).empty());

  // Pairs: repeats dropped within runs, ordered by (key, id) across them.
  writer::ExternalSorter<writer::SortPairs> pairs(space, 8 << 10);
  std::vector<writer::Pair> expected;
  for (int i = 0; i < 20000; ++i) {
    const writer::Pair p{rng() % 3000, rng() % 4};
    pairs.add(p);
    expected.push_back(p);
  }
  pairs.finish();
  CHECK(pairs.external());
  std::vector<writer::Pair> out;
  pairs.for_each([&](const writer::Pair& p) {
    if (out.empty() || !(out.back() == p)) out.push_back(p);
  });
  std::sort(expected.begin(), expected.end());
  expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
  CHECK(out == expected);

  // Within the bound: no file.
  writer::ExternalSorter<writer::SortU64> small(space, 1 << 20);
  const uint64_t files_before = space.files_created();
  for (int i = 0; i < 1000; ++i) small.add(rng());
  small.finish();
  CHECK(!small.external());
  CHECK(space.files_created() == files_before);
}

TEST_CASE("ExternalSorter: the runs open stay few however many are spilled") {
  // Each run holds a descriptor until merged: 2,000 runs kept open until the end needed 2,000 (a
  // build with a tiny memory bound failed under `ulimit -n 256`). Runs of one level are merged
  // fan_in at a time as they come: with fan-in 2, one run per level, log2(2000) + 1 at most.
  TempDir dir;
  writer::ScratchSpace space(dir_of(dir));
  writer::ExternalSorter<writer::SortU64> sorter(space, 4 << 10);  // 256 values a run, fan-in 2
  std::mt19937_64 rng(5);
  std::vector<uint64_t> values(512000);
  std::size_t most_open = 0;
  for (auto& x : values) {
    sorter.add(x = rng());
    most_open = std::max(most_open, sorter.run_count());
  }
  sorter.finish();
  CHECK(sorter.runs_written() >= 2000);
  CHECK(most_open <= 12);
  CHECK(sorter.run_count() <= 2);
  std::sort(values.begin(), values.end());
  std::vector<uint64_t> out;
  sorter.for_each([&](uint64_t x) { out.push_back(x); });
  CHECK(out == values);
}

TEST_CASE("U64Store: the same values in memory and in a file") {
  TempDir dir;
  writer::ScratchSpace space(dir_of(dir));
  writer::U64Store mem, file(space);
  for (uint64_t i = 0; i < 300000; ++i) {
    mem.push(i * i);
    file.push(i * i);
  }
  mem.finish();
  file.finish();
  CHECK(!file.in_memory());
  std::vector<uint64_t> a, b;
  mem.for_each_chunk([&](const uint64_t* p, std::size_t n) { a.insert(a.end(), p, p + n); });
  file.for_each_chunk([&](const uint64_t* p, std::size_t n) { b.insert(b.end(), p, p + n); });
  CHECK(a == b);
  writer::U64Store::Cursor c(file);
  for (uint64_t i = 0; i < 300000; ++i) REQUIRE(c.next() == i * i);
}

namespace {

// Same pairs, the in-memory build and builds under tiny bounds with 1 and 2 threads: same bytes.
void check_same_bytes(const Pairs& pairs, const std::optional<Scheme>& scheme, uint32_t block_bytes = 1024) {
  TempDir dir;
  BuildOptions base;
  base.scheme = scheme;
  base.block_bytes = block_bytes;
  base.temp_dir = dir_of(dir);
  build(dir.file("memory.sdx"), pairs, base);
  const auto expected = read_bytes(dir.file("memory.sdx"));
  REQUIRE(!expected.empty());
  for (uint64_t memory : {uint64_t{64} << 10, uint64_t{1} << 20}) {
    for (unsigned threads : {1u, 2u}) {
      CAPTURE(memory);
      CAPTURE(threads);
      BuildOptions o = base;
      o.memory_bytes = memory;
      o.threads = threads;
      IndexBuilder b(o);
      // A different order and repeats must not matter.
      for (auto it = pairs.rbegin(); it != pairs.rend(); ++it) b.add(it->first, it->second);
      for (std::size_t i = 0; i < pairs.size(); i += 3) b.add(pairs[i].first, pairs[i].second);
      const BuildSummary s = b.write(dir.file("bounded.sdx"));
      if (memory == (uint64_t{64} << 10)) CHECK(s.temp_files > 10);
      CHECK(read_bytes(dir.file("bounded.sdx")) == expected);
      CHECK(leftovers(dir_of(dir)).empty());
    }
  }
}

}  // namespace

TEST_CASE("a tiny memory bound gives the same bytes: random, one id each") {
  std::mt19937_64 rng(11);
  check_same_bytes(random_pairs(rng, 30000), Scheme::named("paper-10", 3, 0));
}

TEST_CASE("a tiny memory bound gives the same bytes: clustered, several ids, auto scheme, small blocks") {
  std::mt19937_64 rng(12);
  Pairs pairs = clustered_pairs(rng, 20000, 3);
  for (std::size_t i = 0; i < 5000; ++i) pairs.emplace_back(pairs[rng() % pairs.size()].first, 100000 + i);
  check_same_bytes(pairs, std::nullopt, 256);
}

TEST_CASE("a tiny memory bound gives the same bytes when table 0 permutes") {
  std::mt19937_64 rng(13);
  Scheme scheme = Scheme::named("paper-10", 3, 0);
  std::swap(scheme.tables[0], scheme.tables[1]);
  Pairs pairs = clustered_pairs(rng, 15000, 3);
  for (std::size_t i = 0; i < 3000; ++i) pairs.emplace_back(pairs[rng() % pairs.size()].first, 50000 + i);
  check_same_bytes(pairs, scheme);
  // And the answers are right.
  TempDir dir;
  BuildOptions o;
  o.scheme = scheme;
  o.memory_bytes = 64 << 10;
  o.temp_dir = dir_of(dir);
  build(dir.file("p.sdx"), pairs, o);
  const Index index = Index::open(dir.file("p.sdx"));
  const Oracle oracle(pairs);
  for (uint64_t q : queries_for(rng, pairs, 3, 300)) REQUIRE(answer(index, q, 3) == oracle.query(q, 3));
}

TEST_CASE("temporary files are removed on failure, and leftovers of dead builds on the next spill") {
  TempDir dir;
  const std::string stale = dir.file(".simdex-sort-2147483646-0");  // no such process
  { std::ofstream(stale) << "old run"; }
  std::mt19937_64 rng(14);
  const Pairs pairs = random_pairs(rng, 20000);
  BuildOptions o;
  o.memory_bytes = 64 << 10;
  o.temp_dir = dir_of(dir);
  o.scheme = Scheme::named("paper-4", 3, 0);
  CHECK_THROWS_AS(build(dir.file("no-such-dir/x.sdx"), pairs, o), Error);
  CHECK(leftovers(dir_of(dir)).empty());
  CHECK(!fs::exists(stale));
}

TEST_CASE("progress is reported") {
  TempDir dir;
  std::mt19937_64 rng(15);
  BuildOptions o;
  o.memory_bytes = 64 << 10;
  o.temp_dir = dir_of(dir);
  std::vector<std::string> stages;
  o.progress = [&](std::string_view stage, uint64_t, uint64_t) {
    if (stages.empty() || stages.back() != stage) stages.emplace_back(stage);
  };
  build(dir.file("a.sdx"), random_pairs(rng, 5000), o);
  CHECK(std::find(stages.begin(), stages.end(), "tables") != stages.end());
  CHECK(std::find(stages.begin(), stages.end(), "merge") != stages.end());
}

TEST_CASE("external sort of pairs: the same records at every thread count, in memory and in runs") {
  TempDir dir;
  writer::ScratchSpace space(dir_of(dir));
  for (uint64_t memory : {uint64_t{64} << 10, uint64_t{64} << 20}) {
    std::vector<std::vector<writer::Pair>> outs;
    for (unsigned threads : {1u, 3u}) {
      writer::ExternalSorter<writer::SortPairs> pairs(space, memory, threads);
      std::mt19937_64 same(8);
      for (int i = 0; i < 200000; ++i) pairs.add({same() % 90000, same() % 3});
      pairs.finish();
      CHECK(pairs.external() == (memory < (1 << 20)));
      outs.emplace_back();
      pairs.for_each([&](const writer::Pair& p) { outs.back().push_back(p); });
    }
    CHECK(outs[0] == outs[1]);
    CHECK(std::is_sorted(outs[0].begin(), outs[0].end()));
  }
}
