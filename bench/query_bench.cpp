// Hot paths of the reader: single-query latency per scheme (planted near-duplicates and random
// queries, warm cache) and raw block decode throughput. Indexes are built once per process into a
// temporary directory.
//   build/bench/query_bench --benchmark_filter=Query   (SIMDEX_BENCH_N=1000000 by default)
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>

#include "reader/index_impl.h"
#include "simdex/builder.h"
#include "simdex/index.h"

namespace {

uint64_t bench_n() {
  const char* v = std::getenv("SIMDEX_BENCH_N");
  return v ? std::strtoull(v, nullptr, 10) : 1000000;
}

struct Fixture {
  std::vector<uint64_t> fingerprints;
  std::unique_ptr<simdex::Index> index;
};

Fixture& fixture(const std::string& scheme) {
  static std::map<std::string, Fixture> cache;
  auto it = cache.find(scheme);
  if (it != cache.end()) return it->second;
  Fixture& f = cache[scheme];
  std::mt19937_64 rng(42);
  const uint64_t n = bench_n();
  for (uint64_t i = 0; i < n; ++i) f.fingerprints.push_back(rng());
  simdex::BuildOptions o;
  o.scheme = simdex::Scheme::named(scheme, 3, n);
  simdex::IndexBuilder b(o);
  for (uint64_t i = 0; i < n; ++i) b.add(f.fingerprints[i], i);
  const auto path = std::filesystem::temp_directory_path() / ("simdex-bench-" + scheme + ".sdx");
  b.write(path.string());
  f.index = std::make_unique<simdex::Index>(simdex::Index::open(path.string()));
  std::filesystem::remove(path);  // the mapping keeps the file alive
  return f;
}

void BM_Query(benchmark::State& state, const std::string& scheme, bool planted) {
  Fixture& f = fixture(scheme);
  std::mt19937_64 rng(7);
  std::vector<uint64_t> queries(4096);
  for (auto& q : queries) {
    if (planted) {
      q = f.fingerprints[rng() % f.fingerprints.size()];
      for (int b = 0; b < 3; ++b) q ^= uint64_t{1} << (rng() % 64);
    } else {
      q = rng();
    }
  }
  std::vector<simdex::Hit> hits;
  std::size_t i = 0, found = 0;
  for (auto _ : state) {
    f.index->query(queries[i++ & 4095], 3, hits);
    found += hits.size();
    benchmark::DoNotOptimize(hits.data());
  }
  state.counters["hits/query"] = benchmark::Counter(static_cast<double>(found) / static_cast<double>(state.iterations()));
}

void BM_BlockDecode(benchmark::State& state) {
  Fixture& f = fixture("paper-4");
  const auto& file = simdex::index_impl(*f.index).file;
  const auto& table = file.tables()[1];
  uint64_t entries = 0, j = 0, sink = 0;
  for (auto _ : state) {
    const auto r = file.decode(table, j, [&](uint64_t e, uint32_t) {
      sink += e;
      return true;
    });
    entries += r.decoded;
    j = (j + 1) % table.block_count();
  }
  benchmark::DoNotOptimize(sink);
  state.counters["entries/s"] = benchmark::Counter(static_cast<double>(entries), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK_CAPTURE(BM_Query, paper20_planted, std::string("paper-20"), true);
BENCHMARK_CAPTURE(BM_Query, paper20_random, std::string("paper-20"), false);
BENCHMARK_CAPTURE(BM_Query, paper16_planted, std::string("paper-16"), true);
BENCHMARK_CAPTURE(BM_Query, paper10_planted, std::string("paper-10"), true);
BENCHMARK_CAPTURE(BM_Query, paper4_planted, std::string("paper-4"), true);
BENCHMARK_CAPTURE(BM_Query, paper4_random, std::string("paper-4"), false);
BENCHMARK(BM_BlockDecode);
BENCHMARK_MAIN();
