// Key maps (spec/KEYS.md) read whole (KeyMap::read) against looked up in place (MappedKeyMap, what
// `--keys` uses), for bench/RESULTS.md ("Key maps"):
//   Open/*        opening the map (cached in the page cache), and the process's resident memory after
//   Find/*        lookups of ids in random order: ids the map holds, and ids it does not
// Environment: SIMDEX_BENCH_KEYS (default 2000000 keys, URL-like, ~80 bytes a line),
// SIMDEX_BENCH_DIR (default /tmp; the map is written there and removed at exit).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "simdex/keys.h"

using namespace simdex;

namespace {

std::size_t env_size(const char* name, std::size_t otherwise) {
  const char* v = std::getenv(name);
  return v ? static_cast<std::size_t>(std::strtoull(v, nullptr, 10)) : otherwise;
}

// The map, written once: keys like crawled URLs; ids the map holds and ids it does not, shuffled.
struct Data {
  std::string path;
  std::vector<std::uint64_t> held, absent;
  Data() {
    const char* dir = std::getenv("SIMDEX_BENCH_DIR");
    path = (std::filesystem::path(dir ? dir : "/tmp") /
            ("simdex-key-map-bench-" + std::to_string(::getpid()) + ".keys.tsv"))
               .string();
    const std::size_t n = env_size("SIMDEX_BENCH_KEYS", 2'000'000);
    if (n == 0) {
      std::fprintf(stderr, "key_map_bench: SIMDEX_BENCH_KEYS must be at least 1\n");
      std::exit(2);
    }
    std::mt19937_64 rng(11);
    KeyMapBuilder builder;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string key = "https://site" + std::to_string(rng() % 100000) + ".example.org/articles/" +
                              std::to_string(rng()) + "/page.html?lang=en";
      builder.add(key_id(key), IdKind::key, key, i + 1);
      held.push_back(key_id(key));
      absent.push_back(rng());
    }
    builder.write(path);
    std::shuffle(held.begin(), held.end(), rng);
  }
  ~Data() { std::filesystem::remove(path); }
};

const Data& data() {
  static const Data d;
  return d;
}

// Resident memory of the process now, in MiB (VmRSS of /proc/self/status).
double rss_mib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("VmRSS:")) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
  return 0;
}

void open_whole(benchmark::State& state) {
  const Data& d = data();
  const double before = rss_mib();
  double after = before;
  for (auto _ : state) {
    const KeyMap map = KeyMap::read(d.path);
    after = rss_mib();
    benchmark::DoNotOptimize(map.size());
  }
  state.counters["rss_added_MiB"] = after - before;
  state.counters["map_MiB"] = static_cast<double>(std::filesystem::file_size(d.path)) / (1 << 20);
}

void open_mapped(benchmark::State& state) {
  const Data& d = data();
  const double before = rss_mib();
  double after = before;
  for (auto _ : state) {
    const MappedKeyMap map(d.path);  // the open alone: lookups are Find/mapped's
    after = rss_mib();
    benchmark::DoNotOptimize(map.path().data());
  }
  state.counters["rss_added_MiB"] = after - before;
}

template <class Map>
void find_in(benchmark::State& state, const Map& map, const std::vector<std::uint64_t>& ids) {
  std::size_t i = 0, found = 0;
  std::string scratch;
  for (auto _ : state) {
    if constexpr (std::is_same_v<Map, KeyMap>)
      found += map.find(ids[i]).has_value();
    else
      found += map.find(ids[i], scratch).has_value();
    if (++i == ids.size()) i = 0;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["found_share"] = static_cast<double>(found) / static_cast<double>(state.iterations());
}

void find_whole(benchmark::State& state, bool held) {
  static const KeyMap map = KeyMap::read(data().path);
  find_in(state, map, held ? data().held : data().absent);
}

void find_mapped(benchmark::State& state, bool held) {
  static const MappedKeyMap map(data().path);
  find_in(state, map, held ? data().held : data().absent);
}

}  // namespace

BENCHMARK(open_whole)->Name("Open/whole")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(open_mapped)->Name("Open/mapped")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(find_whole, held, true)->Name("Find/whole/held");
BENCHMARK_CAPTURE(find_mapped, held, true)->Name("Find/mapped/held");
BENCHMARK_CAPTURE(find_whole, absent, false)->Name("Find/whole/absent");
BENCHMARK_CAPTURE(find_mapped, absent, false)->Name("Find/mapped/absent");

BENCHMARK_MAIN();
