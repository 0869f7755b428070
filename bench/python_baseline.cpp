// The C++ side of bench/python_bench.py: the same work the Python bench times, through the C++ API
// with nothing around it, so the difference is the binding's cost.
//   python_baseline INDEX QUERIES.u64 REPEATS   single queries in a loop (REPEATS passes; 0: none), then
//                                               one join of them all
//   python_baseline --fingerprint THREADS...    fingerprint_all over the demo corpus
// Prints one JSON object. QUERIES.u64 is raw little-endian uint64 (numpy's tofile()).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "bench/corpus.h"
#include "simdex/batch.h"
#include "simdex/fingerprint.h"
#include "simdex/index.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<std::uint64_t> read_u64(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  std::vector<std::uint64_t> v(static_cast<std::size_t>(in.tellg()) / 8);
  in.seekg(0);
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 8));
  return v;
}

int queries(const std::string& index_path, const std::string& queries_path, int repeats) {
  const auto index = simdex::Index::open(index_path);
  const auto fps = read_u64(queries_path);
  std::vector<simdex::Hit> hits;
  const unsigned k = index.max_distance();
  double best = 0;
  std::uint64_t found = 0;
  for (int r = 0; r < repeats; ++r) {  // best of `repeats` passes over the queries: mean per query
    found = 0;
    const auto start = Clock::now();
    for (std::uint64_t q : fps) {
      index.query(q, k, hits);
      for (const auto& h : hits) found += h.ids.size();
    }
    best = r == 0 ? seconds_since(start) : std::min(best, seconds_since(start));
  }
  std::vector<simdex::Query> batch(fps.size());
  for (std::size_t i = 0; i < fps.size(); ++i) batch[i] = {fps[i], i};
  simdex::BatchOptions o;
  o.with_ids = true;
  std::uint64_t rows = 0;
  const auto start = Clock::now();
  simdex::join(index, batch, o, [&](std::span<const simdex::JoinHit> h) {
    for (const auto& x : h) rows += x.ids.size();
  });
  const double join_s = seconds_since(start);
  std::printf(
      "{\"queries\": %zu, \"query_mean_ns\": %.1f, \"ids_found\": %llu, \"join_s\": %.4f, \"join_rows\": "
      "%llu}\n",
      fps.size(), best / static_cast<double>(fps.size()) * 1e9, static_cast<unsigned long long>(found),
      join_s, static_cast<unsigned long long>(rows));
  return 0;
}

int fingerprints(const std::vector<unsigned>& thread_counts) {
  const auto corpus = simdex::bench::load_corpus(simdex::bench::corpus_dir());
  std::vector<std::string_view> texts(corpus.texts.begin(), corpus.texts.end());
  double bytes = 0;
  for (auto t : texts) bytes += static_cast<double>(t.size());
  std::vector<std::uint64_t> out(texts.size());
  std::printf("{\"bytes\": %.0f", bytes);
  for (unsigned threads : thread_counts) {
    double best = 1e30;
    for (int r = 0; r < 5; ++r) {
      const auto start = Clock::now();
      simdex::fingerprint_all(texts, out, {}, threads);
      best = std::min(best, seconds_since(start));
    }
    std::printf(", \"mb_per_s_%u\": %.2f", threads, bytes / best / 1e6);
  }
  std::printf("}\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "--fingerprint") {
    std::vector<unsigned> threads;
    for (std::size_t i = 1; i < args.size(); ++i)
      threads.push_back(static_cast<unsigned>(std::stoul(args[i])));
    return fingerprints(threads);
  }
  if (args.size() != 3) {
    std::fprintf(stderr, "usage: python_baseline INDEX QUERIES.u64 REPEATS | --fingerprint THREADS...\n");
    return 2;
  }
  return queries(args[0], args[1], std::stoi(args[2]));
}
