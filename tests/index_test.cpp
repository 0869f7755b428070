// The writer and the reader together, against brute force.
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

#include "format/endian.h"
#include "format/permutation.h"
#include "format/thread_count.h"
#include "reader/index_impl.h"
#include "test_util.h"

using namespace simdex;
using namespace simdex::test;

namespace {

void check_against_brute_force(const Pairs& pairs, const Scheme& scheme, uint32_t block_bytes,
                               std::size_t queries, uint64_t seed) {
  TempDir dir;
  const std::string path = dir.file("x.sdx");
  BuildOptions options;
  options.scheme = scheme;
  options.block_bytes = block_bytes;
  build(path, pairs, options);
  OpenOptions open_options;  // each preload choice in turn: the answers never depend on it
  open_options.preload = static_cast<OpenOptions::Preload>(seed % 3);
  const Index index = Index::open(path, open_options);
  REQUIRE(index.verify().ok());
  const Oracle oracle(pairs);
  CHECK(index.fingerprint_count() == oracle.all().size());
  std::mt19937_64 rng(seed);
  for (unsigned k = 0; k <= scheme.max_distance; ++k)
    for (uint64_t q : queries_for(rng, pairs, k, queries)) {
      CAPTURE(q);
      CAPTURE(k);
      REQUIRE(answer(index, q, k) == oracle.query(q, k));
    }
  for (const auto& [f, ids] : oracle.all()) REQUIRE(index.ids_of(f).to_vector() == ids);
}

std::vector<Scheme> all_schemes() {
  std::vector<Scheme> s;
  for (const char* n : {"paper-20", "paper-16", "paper-10", "paper-4"}) s.push_back(Scheme::named(n, 3, 0));
  s.push_back(Scheme::one_level(1, 0));
  s.push_back(Scheme::one_level(3, 1));
  s.push_back(Scheme::one_level(4, 2));
  s.push_back(Scheme::one_level(7, 5));
  s.push_back(Scheme::one_level(8, 6));
  s.push_back(Scheme::two_level(3, 3, 2));
  return s;
}

}  // namespace

TEST_CASE("every scheme and every k it supports agrees with brute force on random data") {
  std::mt19937_64 rng(11);
  for (const auto& scheme : all_schemes()) {
    CAPTURE(scheme.name);
    check_against_brute_force(random_pairs(rng, 3000), scheme, 256, 60, rng());
  }
}

TEST_CASE("clustered near-duplicates, dense prefixes and duplicate fingerprints with many ids") {
  std::mt19937_64 rng(12);
  for (const auto& scheme : all_schemes()) {
    CAPTURE(scheme.name);
    const unsigned flip = std::max(1u, scheme.max_distance);
    check_against_brute_force(clustered_pairs(rng, 3000, flip), scheme, 256, 60, rng());
    check_against_brute_force(dense_prefix_pairs(rng, 3000, 40), scheme, 128, 30, rng());
    Pairs dup = clustered_pairs(rng, 500, flip);
    for (std::size_t i = 0; i < 500; ++i)
      dup.emplace_back(dup[rng() % dup.size()].first, 10000 + rng() % 200);
    check_against_brute_force(dup, scheme, 512, 60, rng());
  }
}

TEST_CASE("edge sets: n = 0, 1, 2, one block, thousands of blocks, 0 and 2^64-1, one distinct h") {
  std::mt19937_64 rng(13);
  const Scheme s = Scheme::named("paper-10", 3, 0);
  check_against_brute_force({}, s, 1024, 20, 1);
  check_against_brute_force({{0x1234, 7}}, s, 1024, 20, 2);
  check_against_brute_force({{0, 1}, {~uint64_t{0}, 2}}, s, 1024, 20, 3);  // extremes
  check_against_brute_force({{0, 1}, {1, 2}, {0, 3}}, s, 1024, 20, 4);     // single distinct h
  check_against_brute_force({{0, 1}, {1, 2}, {2, 3}, {~uint64_t{0}, 9}}, s, 32, 20, 5);
  check_against_brute_force(random_pairs(rng, 50), s, 4096, 40, 6);   // all in one block
  check_against_brute_force(random_pairs(rng, 20000), s, 32, 40, 7);  // ~20000 blocks
}

// Reads one byte of each page. Not instrumented: ASan's (or TSan's) check of each read would fault
// in pages of its shadow memory, which are no pages of the file.
__attribute__((no_sanitize("address", "thread"))) static uint8_t touch_every_page(const uint8_t* data,
                                                                                  std::size_t size) {
  uint8_t sink = 0;
  for (std::size_t at = 0; at < size; at += 4096) sink ^= static_cast<volatile const uint8_t*>(data)[at];
  return sink;
}

TEST_CASE("preload=all maps every page at open: reading the whole file afterwards faults no page") {
  std::mt19937_64 rng(11);
  TempDir dir;
  const std::string path = dir.file("x.sdx");
  build(path, random_pairs(rng, 60000), BuildOptions{});
  auto faults_reading_all = [&](OpenOptions::Preload preload) {
    OpenOptions o;
    o.preload = preload;
    const Index index = Index::open(path, o);
    const reader::IndexFile& file = index_impl(index).file;
    rusage before{}, after{};
    ::getrusage(RUSAGE_THREAD, &before);
    const uint8_t sink = touch_every_page(static_cast<const uint8_t*>(file.data()), file.size());
    ::getrusage(RUSAGE_THREAD, &after);
    asm volatile("" : : "r"(sink));
    return (after.ru_minflt - before.ru_minflt) + (after.ru_majflt - before.ru_majflt);
  };
  CHECK(faults_reading_all(OpenOptions::Preload::all) == 0);
  CHECK(faults_reading_all(OpenOptions::Preload::none) > 0);  // the file is 1 MB: more than fault-around maps
}

TEST_CASE("every table round-trips: its blocks decode to the sorted permuted fingerprints") {
  std::mt19937_64 rng(14);
  const Pairs pairs = clustered_pairs(rng, 5000, 3);
  TempDir dir;
  BuildOptions o;
  o.scheme = Scheme::named("paper-16", 3, 0);
  o.block_bytes = 200;
  build(dir.file("t.sdx"), pairs, o);
  const Index index = Index::open(dir.file("t.sdx"));
  const auto& file = index_impl(index).file;
  const Oracle oracle(pairs);
  for (const auto& t : file.tables()) {
    std::vector<uint64_t> expected;
    for (const auto& [f, ids] : oracle.all()) expected.push_back(t.permutation.apply(f));
    std::sort(expected.begin(), expected.end());
    std::vector<uint64_t> got;
    for (uint64_t j = 0; j < t.block_count(); ++j) {
      CHECK(t.rank(j) == got.size());
      file.decode(t, j, [&](uint64_t e, uint32_t) {
        got.push_back(e);
        return true;
      });
      CHECK(t.key(j) == got.back());
    }
    CHECK(got == expected);
  }
}

TEST_CASE(
    "the block search: interpolation from scratch and galloping from a lower block agree with a linear "
    "scan") {
  std::mt19937_64 rng(15);
  const Pairs pairs = clustered_pairs(rng, 20000, 3);
  TempDir dir;
  BuildOptions o;
  o.scheme = Scheme::named("paper-4", 3, 0);
  o.block_bytes = 64;  // many blocks
  build(dir.file("s.sdx"), pairs, o);
  const Index index = Index::open(dir.file("s.sdx"));
  for (const auto& t : index_impl(index).file.tables()) {
    REQUIRE(t.block_count() > 1000);
    auto linear = [&](uint64_t x) {
      uint64_t j = 0;
      while (j < t.block_count() && t.key(j) < x) ++j;
      return j;
    };
    std::vector<uint64_t> xs = {0, ~uint64_t{0}, t.key(0), t.key(t.block_count() - 1),
                                t.key(t.block_count() - 1) + 1};
    for (int i = 0; i < 300; ++i) xs.push_back(rng());
    for (int i = 0; i < 300; ++i)
      xs.push_back(t.key(rng() % t.block_count()) - (rng() % 3));  // at and just below keys
    for (uint64_t x : xs) {
      CAPTURE(x);
      const uint64_t expected = linear(x);
      REQUIRE(t.first_block_not_below(x) == expected);
      // Any start at or below the answer gives it: near it (a sorted batch), far from it, at it.
      for (uint64_t from : {expected, expected / 2, expected > 0 ? expected - 1 : 0,
                            expected > 5 ? expected - 5 : 0, uint64_t{1}})
        if (from <= expected) REQUIRE(t.first_block_not_below(x, from) == expected);
      // A start past the end stays in bounds.
      CHECK(t.first_block_not_below(x, t.block_count() + 7) == t.block_count());
    }
  }
}

TEST_CASE("identical bytes for the same set of pairs: any order, repeats, any thread count") {
  std::mt19937_64 rng(15);
  Pairs pairs = clustered_pairs(rng, 4000, 3);
  for (int i = 0; i < 300; ++i) pairs.emplace_back(pairs[rng() % pairs.size()].first, rng() % 50000);
  TempDir dir;
  BuildOptions o;
  o.scheme = Scheme::named("paper-20", 3, 0);
  o.threads = 1;
  build(dir.file("a.sdx"), pairs, o);
  std::shuffle(pairs.begin(), pairs.end(), rng);
  pairs.push_back(pairs.front());  // a repeated pair is the same set
  o.threads = 3;
  build(dir.file("b.sdx"), pairs, o);
  CHECK(read_bytes(dir.file("a.sdx")) == read_bytes(dir.file("b.sdx")));
}

TEST_CASE("a write that fails mid-build, tables written by several workers: an error, nothing left") {
  // 700,000 fingerprints: tables of about 5 MB, which the workers copy through a mapping of the
  // file (AtomicFile::write_parallel), after fallocate, which meets the limit; 20,000: by pwrite.
  for (const std::size_t count : {std::size_t{20000}, std::size_t{700000}}) {
    CAPTURE(count);
    std::mt19937_64 rng(19);
    const Pairs pairs = random_pairs(rng, count);
    TempDir dir;
    BuildOptions o;
    o.scheme = Scheme::named("paper-10", 3, 0);
    const uint64_t size = build(dir.file("whole.sdx"), pairs, o).file_bytes;
    CHECK(Index::open(dir.file("whole.sdx")).verify().ok());  // every section's checksum
    // The file may grow to `limit` bytes (RLIMIT_FSIZE, SIGXFSZ ignored: a write past it fails with
    // EFBIG): in the first table, in a later one, in the ids, in the last section. The large file
    // only in a later table (its mapped writes), on one thread and several.
    const bool large = count > 20000;
    const std::vector<uint64_t> limits = large ? std::vector<uint64_t>{size / 2}
                                               : std::vector<uint64_t>{4096, size / 2, size - 4096, size - 1};
    const std::vector<unsigned> thread_counts =
        large ? std::vector<unsigned>{1, 4} : std::vector<unsigned>{1, 2, 4};
    // Direct writes (O_DIRECT) meet the limit in their fallocate, or, for the pages they share,
    // when those are written after the tables.
    using Writes = BuildOptions::OutputWrites;
    for (const uint64_t limit : limits) {
      for (const unsigned threads : thread_counts) {
        for (const Writes writes : {Writes::cached, Writes::direct}) {
          CAPTURE(limit);
          CAPTURE(threads);
          CAPTURE(writes == Writes::direct);
          o.threads = threads;
          o.output_writes = writes;
          rlimit old{};
          REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
          rlimit bound = old;
          bound.rlim_cur = static_cast<rlim_t>(limit);
          const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
          REQUIRE(::setrlimit(RLIMIT_FSIZE, &bound) == 0);
          std::string error;
          int os_error = 0;
          try {
            build(dir.file("cut.sdx"), pairs, o);
          } catch (const Error& e) {
            error = e.what();
            os_error = e.os_error();
          }
          ::setrlimit(RLIMIT_FSIZE, &old);
          std::signal(SIGXFSZ, old_handler);
          CHECK(error.find("cannot write") != std::string::npos);
          CHECK(os_error == EFBIG);  // the cause, for a caller to test
          CHECK(!std::filesystem::exists(dir.file("cut.sdx")));
          for (const auto& e : std::filesystem::directory_iterator(dir.file("")))
            CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);
        }
      }
    }
  }
}

TEST_CASE("k above the index's k is refused; a new build replaces the file atomically") {
  TempDir dir;
  std::mt19937_64 rng(16);
  BuildOptions o;
  o.k = 2;
  build(dir.file("i.sdx"), random_pairs(rng, 100), o);
  const Index old_index = Index::open(dir.file("i.sdx"));
  CHECK(old_index.max_distance() == 2);
  CHECK_THROWS_WITH_AS(old_index.query(1, 3), doctest::Contains("usage"), Error);
  CHECK(old_index.search_distance(-1) == 2);
  CHECK(old_index.search_distance(1) == 1);
  CHECK_THROWS_WITH_AS(old_index.search_distance(3), doctest::Contains("exceeds the index's k = 2"), Error);
  // checksum(): the file's header_checksum, the same at every open; the new file's is another.
  const uint64_t old_checksum = old_index.checksum();
  CHECK(old_checksum == format::load_le64(read_bytes(dir.file("i.sdx")).data() + 120));
  CHECK(Index::open(dir.file("i.sdx")).checksum() == old_checksum);
  CHECK(old_index.info().checksum == old_checksum);
  build(dir.file("i.sdx"), random_pairs(rng, 300), o);
  CHECK(old_index.fingerprint_count() == 100);  // the old mapping is untouched
  CHECK(old_index.verify().ok());
  CHECK(Index::open(dir.file("i.sdx")).fingerprint_count() == 300);
  CHECK(Index::open(dir.file("i.sdx")).checksum() != old_checksum);
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(dir.file("i.sdx")).parent_path()))
    CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);
}

TEST_CASE("the writer refuses what the reader would reject: block size, table count, scheme name") {
  TempDir dir;
  std::mt19937_64 rng(17);
  const Pairs pairs = random_pairs(rng, 50);
  auto refused = [&](BuildOptions o) {
    try {
      build(dir.file("r.sdx"), pairs, o);
    } catch (const Error& e) {
      return e.code() == errc::usage;
    }
    return false;
  };
  BuildOptions o;
  o.block_bytes = 1028;
  CHECK(refused(o));
  o = {};
  o.scheme = Scheme::named("paper-4", 3, 0);
  o.scheme->name = "tab\tin name";  // not printable ASCII: a reader rejects it (bad_header_field)
  CHECK(refused(o));
  o.scheme->name = std::string(33, 'x');
  CHECK(refused(o));
  o.scheme->name = "paper-4";
  o.scheme->tables.clear();
  CHECK(refused(o));
  // A scheme made by hand that misses fingerprints within k, or that no reader opens.
  o.scheme = Scheme::one_level(4, 3);
  o.scheme->tables.resize(1);  // one table of four: a difference in its prefix is missed
  CHECK(refused(o));
  o.scheme = Scheme::one_level(4, 3);
  o.scheme->tables[1].prefix_bits = 1000;
  CHECK(refused(o));
  o.scheme = Scheme::one_level(4, 3);
  o.scheme->tables[2].source_bit[0] = o.scheme->tables[2].source_bit[1];  // not a permutation
  CHECK(refused(o));
  CHECK(!std::filesystem::exists(dir.file("r.sdx")));
}

TEST_CASE("a builder writes once; what fails before its pairs are used leaves them for a retry") {
  TempDir dir;
  std::mt19937_64 rng(18);
  const Pairs pairs = random_pairs(rng, 100);
  IndexBuilder b({.k = 3});
  for (auto [f, id] : pairs) b.add(f, id);
  CHECK_THROWS_WITH_AS(b.write(dir.file("missing/x.sdx")), doctest::Contains("does not exist"), Error);
  const BuildSummary s = b.write(dir.file("x.sdx"));
  CHECK(s.fingerprint_count == Index::open(dir.file("x.sdx")).fingerprint_count());
  CHECK(s.fingerprint_count > 90);
  CHECK_THROWS_WITH_AS(b.write(dir.file("y.sdx")), doctest::Contains("uses up the pairs"), Error);
  CHECK_THROWS_AS(b.add(1, 1), Error);
  CHECK(!std::filesystem::exists(dir.file("y.sdx")));
  // A file replaced keeps its permissions.
  std::filesystem::permissions(dir.file("x.sdx"),
                               std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  build(dir.file("x.sdx"), pairs, {});
  CHECK(std::filesystem::status(dir.file("x.sdx")).permissions() ==
        (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));
  // Ids are ascending: the iterator is random access.
  const Index index = Index::open(dir.file("x.sdx"));
  const auto hits = index.query(pairs[0].first, 0);
  REQUIRE(hits.size() == 1);
  CHECK(std::binary_search(hits[0].ids.begin(), hits[0].ids.end(), pairs[0].second));
  CHECK(hits[0].ids.end() - hits[0].ids.begin() == static_cast<std::ptrdiff_t>(hits[0].ids.size()));
}

namespace {

// Builds `pairs` (paper-4) on one thread, then at every thread count and memory bound (0: the
// default) of the lists, through the page cache and by direct writes: the same bytes each time,
// and the first file verifies.
void check_same_bytes(const Pairs& pairs, std::initializer_list<unsigned> thread_counts,
                      std::initializer_list<uint64_t> memory_bounds) {
  TempDir dir;
  BuildOptions o;
  o.scheme = Scheme::named("paper-4", 3, 0);
  o.threads = 1;
  build(dir.file("one.sdx"), pairs, o);
  const auto expected = read_bytes(dir.file("one.sdx"));
  CHECK(Index::open(dir.file("one.sdx")).verify().ok());
  for (const unsigned threads : thread_counts)
    for (const uint64_t memory : memory_bounds) {
      for (const auto writes : {BuildOptions::OutputWrites::cached, BuildOptions::OutputWrites::direct}) {
        CAPTURE(threads);
        CAPTURE(memory);
        CAPTURE(writes == BuildOptions::OutputWrites::direct);
        o.threads = threads;
        o.memory_bytes = memory;
        o.output_writes = writes;
        build(dir.file("many.sdx"), pairs, o);
        CHECK(read_bytes(dir.file("many.sdx")) == expected);
      }
    }
}

}  // namespace

TEST_CASE("ids and id offsets written in parts on several threads: the same bytes, every checksum right") {
  // 2.6M ids (21 MB) and 2.1M offsets (17 MB): two parts each from memory on 3 threads, the second
  // starting on one of the file's 2 MiB regions; one piece on 1 thread; chunk by chunk from
  // temporary files under a bound too small to hold them.
  std::mt19937_64 rng(29);
  Pairs pairs = random_pairs(rng, 2100000);
  for (std::size_t i = 0; i < 500000; ++i) pairs.emplace_back(pairs[rng() % 2100000].first, 5000000 + i);
  check_same_bytes(pairs, {3u}, {uint64_t{0}, uint64_t{64} << 20});
}

TEST_CASE("identical bytes when the tables' sorts share threads: more threads than tables, any bound") {
  // Past 65,536 entries a table's radix sort runs on the threads beyond one a table, up to the
  // cores (paper-4 on 8 threads: 2 each on 8 cores, 1 on 2); under a small bound one table at a
  // time, on every core, or in sorted runs.
  std::mt19937_64 rng(23);
  Pairs pairs = clustered_pairs(rng, 150000, 3);
  // Fingerprints with several ids: the offsets that the parts of collect_sorted fill in turn.
  for (std::size_t i = 0; i < 40000; ++i) pairs.emplace_back(pairs[rng() % 150000].first, 1000000 + i);
  check_same_bytes(pairs, {3u, 8u, 13u}, {uint64_t{0}, uint64_t{8} << 20, uint64_t{2} << 20});
}

TEST_CASE("a build asked for far more threads than cores runs on about the cores, with the same bytes") {
  // --threads 4096: all ten of paper-10's tables in flight at once, each sorted and encoded on
  // hundreds of threads of its own (a 1M build took 2-4 s on two cores against 0.2 s). The table
  // workers and their sorts now take at most the cores between them: w workers, each waiting for
  // its sort's ceil(cores / w) threads (none of its own when one), and a few more: at most three
  // threads a core.
  std::mt19937_64 rng(31);
  const Pairs pairs = random_pairs(rng, 300000);
  TempDir dir;
  BuildOptions o;
  o.scheme = Scheme::named("paper-10", 3, 0);
  o.threads = 2;
  build(dir.file("two.sdx"), pairs, o);
  const long before = threads_in_process();
  std::atomic<bool> done{false};
  std::atomic<long> peak{0};
  std::thread sampler([&] {  // one thread more than the build's, counted in `before` + 1
    while (!done) {
      peak = std::max(peak.load(), threads_in_process());
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  o.threads = 4096;
  build(dir.file("many.sdx"), pairs, o);
  done = true;
  sampler.join();
  const long cores = format::thread_count(0);
  CHECK(peak - before - 1 <= 3 * cores + 4);
  CHECK(read_bytes(dir.file("many.sdx")) == read_bytes(dir.file("two.sdx")));
}
