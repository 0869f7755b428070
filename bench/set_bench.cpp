// Index sets (spec/SET.md) measured, for bench/RESULTS.md ("Index sets"):
//   1. adding `--add` pairs to a set whose base holds `--base` pairs, against rebuilding one file of
//      base + add: wall time and bytes written;
//   2. single-query latency p50/p99 (k = 3, warm, planted near-duplicates) over a set of 1, 4 and 16
//      members against one file of the same content (`--query-n` pairs);
//   3. merge throughput: `simdex merge` of the 16-member set, in entries read per second.
//   set_bench [--base 10000000] [--add 1000000] [--query-n 1000000] [--dir /tmp] [--threads 0]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <vector>

#include "simdex/builder.h"
#include "simdex/index.h"
#include "simdex/set.h"

using namespace simdex;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Pair i of the data: random fingerprints, one in 8 a near-duplicate of an earlier one.
struct Data {
  explicit Data(uint64_t seed) : rng(seed) {}
  std::mt19937_64 rng;
  std::vector<uint64_t> recent;
  uint64_t next_id = 0;
  std::pair<uint64_t, uint64_t> next() {
    uint64_t f = rng();
    if (!recent.empty() && f % 8 == 0) f = recent[f % recent.size()] ^ (uint64_t{1} << (rng() % 64));
    if (recent.size() < 4096) recent.push_back(f);
    return {f, next_id++};
  }
};

uint64_t dir_bytes(const std::filesystem::path& dir) {
  uint64_t total = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file()) total += e.file_size();
  return total;
}

void percentile_latency(const Index& index, const std::vector<uint64_t>& queries, const char* label) {
  std::vector<Hit> hits;
  for (uint64_t q : queries) index.query(q, 3, hits);  // warm
  std::vector<double> ns;
  uint64_t found = 0;
  for (int round = 0; round < 3; ++round)
    for (uint64_t q : queries) {
      const auto t = Clock::now();
      index.query(q, 3, hits);
      ns.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t).count());
      found += hits.size();
    }
  std::sort(ns.begin(), ns.end());
  std::printf("  %-28s p50 %8.0f ns   p99 %8.0f ns   (%llu hits)\n", label, ns[ns.size() / 2],
              ns[ns.size() * 99 / 100], (unsigned long long)found);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t base = 10'000'000, add = 1'000'000, query_n = 1'000'000;
  std::string dir_arg = "/tmp";
  unsigned threads = 0;
  CLI::App app{"Index sets: add against rebuild, query latency over members, merge throughput"};
  app.add_option("--base", base, "Pairs of the set's base member in part 1 (0 skips part 1)")
      ->capture_default_str();
  app.add_option("--add", add, "Pairs added to it, against a rebuild of base + add")->capture_default_str();
  app.add_option("--query-n", query_n,
                 "Pairs of the sets of 1, 4 and 16 members in parts 2 and 3 (0 skips them)")
      ->capture_default_str();
  app.add_option("--dir", dir_arg, "Directory of the files written (a subdirectory, removed at the end)")
      ->capture_default_str();
  app.add_option("--threads", threads, "Threads of the writes (0: every core)")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each figure out as soon as it is measured (long runs)
  const auto dir = std::filesystem::path(dir_arg) / ("simdex-set-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  BuildOptions build;
  build.k = 3;
  build.threads = threads;
  build.temp_dir = dir.string();

  // 1. Add against rebuild.
  if (base > 0) {
    Data data(1);
    std::printf("add %llu pairs to a set of %llu, against rebuilding one file of %llu\n",
                (unsigned long long)add, (unsigned long long)base, (unsigned long long)(base + add));
    const auto set_dir = dir / "grow";
    std::filesystem::create_directories(set_dir);
    const std::string set = (set_dir / "s.sdxs").string();
    std::vector<std::pair<uint64_t, uint64_t>> added;
    {
      IndexBuilder b(build);
      for (uint64_t i = 0; i < base; ++i) {
        const auto [f, id] = data.next();
        b.add(f, id);
      }
      const auto t = Clock::now();
      SetWriter(set).add(b);
      std::printf("  base member written in %.1f s, %llu bytes\n", seconds_since(t),
                  (unsigned long long)dir_bytes(set_dir));
    }
    for (uint64_t i = 0; i < add; ++i) added.push_back(data.next());
    {
      const auto t = Clock::now();
      IndexBuilder b(build);
      for (auto [f, id] : added) b.add(f, id);
      const SetChange c = SetWriter(set).add(b);
      std::printf("  simdex add:       %6.2f s, %12llu bytes written (%zu members after)\n", seconds_since(t),
                  (unsigned long long)c.bytes_written, c.members);
    }
    {
      // The same pairs made before the clock starts, as the add's are: both time the writes alone.
      Data again(1);
      std::vector<std::pair<uint64_t, uint64_t>> all(base + add);
      for (auto& p : all) p = again.next();
      const auto t = Clock::now();
      IndexBuilder b(build);
      for (auto [f, id] : all) b.add(f, id);
      const BuildSummary s = b.write((dir / "rebuilt.sdx").string());
      std::printf("  rebuild one file: %6.2f s, %12llu bytes written\n", seconds_since(t),
                  (unsigned long long)s.file_bytes);
    }
    std::filesystem::remove_all(set_dir);
    std::filesystem::remove(dir / "rebuilt.sdx");
  }

  // 2. Query latency over 1, 4 and 16 members against one file; 3. merge throughput.
  if (query_n == 0) {  // --query-n 0: the add-against-rebuild part only
    std::filesystem::remove_all(dir);
    return 0;
  }
  std::vector<std::pair<uint64_t, uint64_t>> pairs;
  {
    Data data(2);
    for (uint64_t i = 0; i < query_n; ++i) pairs.push_back(data.next());
  }
  std::vector<uint64_t> queries;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 4096; ++i)
    queries.push_back(pairs[rng() % pairs.size()].first ^ (uint64_t{1} << (rng() % 64)) ^
                      (i % 2 ? uint64_t{1} << (rng() % 64) : 0));
  {
    IndexBuilder b(build);
    for (auto [f, id] : pairs) b.add(f, id);
    b.write((dir / "one.sdx").string());
  }
  std::printf("query latency, %llu pairs, k = 3, 4096 queries x 3:\n", (unsigned long long)query_n);
  const Index one = Index::open((dir / "one.sdx").string());
  percentile_latency(one, queries, "one file");
  for (std::size_t members : {1, 4, 16}) {
    const auto set_dir = dir / ("set" + std::to_string(members));
    std::filesystem::create_directories(set_dir);
    const std::string set = (set_dir / "s.sdxs").string();
    SetWriterOptions wo;
    wo.merge_after_add = false;
    for (std::size_t m = 0; m < members; ++m) {
      IndexBuilder b(build);
      for (std::size_t i = m; i < pairs.size(); i += members) b.add(pairs[i].first, pairs[i].second);
      SetWriter(set, wo).add(b);
    }
    const Index index = Index::open(set);
    percentile_latency(index, queries, (std::to_string(members) + "-member set").c_str());
    if (members == 16) {
      SetWriterOptions mo;
      mo.build = build;
      const auto t = Clock::now();
      const SetChange c = SetWriter(set, mo).merge();
      const double s = seconds_since(t);
      std::printf("merge of 16 members: %llu entries in %.2f s = %.2f M entries/s\n",
                  (unsigned long long)c.merged_entries, s, static_cast<double>(c.merged_entries) / s / 1e6);
    }
  }
  std::filesystem::remove_all(dir);
  return 0;
}
