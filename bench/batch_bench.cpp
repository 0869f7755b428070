// Batch work at scale: `pairs` on 1M random and 1M clustered fingerprints (k = 3) per scheme at 1 and
// 2 threads, checked against an independent brute force; build + pairs; `join` of 1M queries against
// a 10M index with blocks decoded per table. Prints a table; times are wall clock, median of runs.
//   build-batch/bench/batch_bench [--n 1000000] [--join-n 10000000] [--queries 1000000] [--runs 3]
//                                 [--schemes paper-4,paper-10] [--join-scheme paper-4] [--no-join]
//                                 [--no-pairs] [--no-single] [--threads 1,2] (join's thread counts)
//                                 [--ids] (join fills the hits' ids, as latency_bench's batches do)
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "simdex/batch.h"
#include "simdex/builder.h"
#include "simdex/index.h"

using namespace simdex;

namespace {

using Clock = std::chrono::steady_clock;

bool g_mismatch = false;  // an answer differed from its check: the run exits 1 (a figure of a wrong answer)
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
// CPU seconds of the whole process (all threads), user + system: on a shared machine wall time
// also counts waiting for a core.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

std::vector<uint64_t> random_set(uint64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}

// Centers with 1 or 2 variants 1..3 bits away, the rest random singletons; about 0.1 pairs per
// fingerprint (seomoz's clustered 1M set has 107,057 pairs).
std::vector<uint64_t> clustered_set(uint64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> v;
  v.reserve(n);
  while (v.size() < n) {
    const uint64_t center = rng();
    v.push_back(center);
    if (rng() % 100 >= 7) continue;  // a singleton
    const unsigned variants = 1 + rng() % 2;
    for (unsigned i = 0; i < variants && v.size() < n; ++i) {
      uint64_t x = center;
      const unsigned flips = 1 + rng() % 3;
      for (unsigned f = 0; f < flips; ++f) x ^= uint64_t{1} << (rng() % 64);
      v.push_back(x);
    }
  }
  return v;
}

// Independent brute force by pigeonhole: two fingerprints within 3 bits agree on one of 4 16-bit
// blocks; sort by each block and compare within equal blocks. Returns the distinct pairs (a < b).
std::vector<std::pair<uint64_t, uint64_t>> brute_pairs(std::vector<uint64_t> f, unsigned k) {
  std::sort(f.begin(), f.end());
  f.erase(std::unique(f.begin(), f.end()), f.end());
  std::vector<std::pair<uint64_t, uint64_t>> out;
  std::vector<uint64_t> g(f.size());
  for (unsigned block = 0; block < 4; ++block) {
    const unsigned shift = 16 * block;
    auto rot = [&](uint64_t x) { return std::rotr(x, shift); };  // the block on top, then the rest
    for (std::size_t i = 0; i < f.size(); ++i) g[i] = rot(f[i]);
    std::sort(g.begin(), g.end());
    for (std::size_t i = 0; i < g.size();) {
      std::size_t e = i + 1;
      while (e < g.size() && (g[e] >> 48) == (g[i] >> 48)) ++e;
      for (std::size_t a = i; a < e; ++a)
        for (std::size_t b = a + 1; b < e; ++b)
          if (static_cast<unsigned>(std::popcount(g[a] ^ g[b])) <= k) {
            const uint64_t x = std::rotl(g[a], shift), y = std::rotl(g[b], shift);
            out.emplace_back(std::min(x, y), std::max(x, y));
          }
      i = e;
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string temp_path(const std::string& name) {
  // The process id in it: two runs at once (two build types) keep apart.
  return (std::filesystem::temp_directory_path() /
          ("simdex-batch-bench-" + std::to_string(::getpid()) + "-" + name + ".sdx"))
      .string();
}

double build_index(const std::vector<uint64_t>& fps, const std::string& scheme, const std::string& path) {
  const auto t0 = Clock::now();
  BuildOptions o;
  o.scheme = Scheme::named(scheme, 3, fps.size());
  IndexBuilder b(o);
  for (std::size_t i = 0; i < fps.size(); ++i) b.add(fps[i], i);
  b.write(path);
  return seconds_since(t0);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct PairsRun {
  double seconds, cpu;
  uint64_t pairs;
  uint64_t checksum;  // order-independent: sum of a*3+b
};

PairsRun run_pairs(const Index& index, unsigned threads) {
  BatchOptions o;
  o.threads = threads;
  uint64_t sum = 0;
  const double c0 = cpu_seconds();
  const auto t0 = Clock::now();
  const BatchStats s = find_pairs(index, o, [&](std::span<const NearPair> batch) {
    for (const auto& p : batch) sum += p.a * 3 + p.b;
  });
  return {seconds_since(t0), cpu_seconds() - c0, s.results, sum};
}

void bench_pairs(const char* label, const std::vector<uint64_t>& fps, const std::vector<std::string>& schemes,
                 unsigned runs) {
  const auto tb = Clock::now();
  const auto expected = brute_pairs(fps, 3);
  const double brute_s = seconds_since(tb);
  uint64_t expected_sum = 0;
  for (auto [a, b] : expected) expected_sum += a * 3 + b;
  std::printf("\n%s: %zu fingerprints, brute force (pigeonhole, 4 x 16-bit blocks): %zu pairs in %.3f s\n",
              label, fps.size(), expected.size(), brute_s);
  std::printf("%-10s %7s %9s %10s %10s %10s %10s %10s %14s %s\n", "scheme", "tables", "build s", "pairs 1T s",
              "(cpu s)", "pairs 2T s", "(cpu s)", "pairs", "build+pairs s", "check");
  for (const auto& scheme : schemes) {
    const std::string path = temp_path(scheme);
    const double build_s = build_index(fps, scheme, path);
    const Index index = Index::open(path);
    std::vector<double> t1, t2, c1, c2;
    bool ok = true;
    uint64_t count = 0;
    for (unsigned r = 0; r < runs; ++r)
      for (unsigned threads : {1u, 2u}) {
        const PairsRun run = run_pairs(index, threads);
        (threads == 1 ? t1 : t2).push_back(run.seconds);
        (threads == 1 ? c1 : c2).push_back(run.cpu);
        ok = ok && run.pairs == expected.size() && run.checksum == expected_sum;
        count = run.pairs;
      }
    std::printf("%-10s %7zu %9.3f %10.3f %10.3f %10.3f %10.3f %10llu %14.3f %s\n", scheme.c_str(),
                index.table_count(), build_s, median(t1), median(c1), median(t2), median(c2),
                static_cast<unsigned long long>(count), build_s + median(t2),
                ok ? "= brute force" : "MISMATCH");
    g_mismatch = g_mismatch || !ok;
    std::filesystem::remove(path);
  }
}

void bench_join(uint64_t n, uint64_t query_count, const std::string& scheme, unsigned runs,
                const std::vector<unsigned>& thread_counts, bool check_single, bool with_ids) {
  const auto stored = random_set(n, 101);
  // Half the queries are stored fingerprints with 0..3 bits flipped, half random.
  std::mt19937_64 rng(102);
  std::vector<Query> queries(query_count);
  for (uint64_t i = 0; i < query_count; ++i) {
    uint64_t q = rng();
    if (i % 2 == 0) {
      q = stored[rng() % n];
      for (unsigned f = rng() % 4; f > 0; --f) q ^= uint64_t{1} << (rng() % 64);
    }
    queries[i] = {q, i};
  }
  const std::string path = temp_path("join-" + scheme);
  const double build_s = build_index(stored, scheme, path);
  const Index index = Index::open(path);
  std::printf("\njoin: %llu queries against %llu fingerprints (%s, %zu tables, built in %.2f s), k = 3\n",
              static_cast<unsigned long long>(query_count), static_cast<unsigned long long>(n),
              scheme.c_str(), index.table_count(), build_s);
  BatchStats last;
  for (unsigned threads : thread_counts) {
    std::vector<double> t, c;
    for (unsigned r = 0; r < runs; ++r) {
      const double c0 = cpu_seconds();
      BatchOptions o;
      o.threads = threads;
      o.with_ids = with_ids;
      uint64_t sum = 0;
      const auto t0 = Clock::now();
      last = join(index, queries, o, [&](std::span<const JoinHit> b) {
        for (const auto& h : b) sum += h.fingerprint;
      });
      t.push_back(seconds_since(t0));
      c.push_back(cpu_seconds() - c0);
    }
    std::printf("  %u thread(s): %.4f s wall, %.4f s cpu (medians of %u), %llu hits\n", threads, median(t),
                median(c), runs, static_cast<unsigned long long>(last.results));
  }
  // Cross-check the hit count with the single-query path.
  if (!check_single) {
    std::filesystem::remove(path);
    return;
  }
  const auto t0 = Clock::now();
  uint64_t single = 0;
  std::vector<Hit> hits;
  for (const auto& q : queries) {
    index.query(q.fingerprint, 3, hits);
    single += hits.size();
  }
  std::printf("  one query at a time (Index::query, 1 thread): %.3f s, %llu hits: %s\n", seconds_since(t0),
              static_cast<unsigned long long>(single), single == last.results ? "same count" : "MISMATCH");
  g_mismatch = g_mismatch || single != last.results;
  for (std::size_t i = 0; i < last.tables.size(); ++i)
    std::printf("  table %2zu: %8llu of %8llu blocks decoded (%.1f%%)\n", i,
                static_cast<unsigned long long>(last.tables[i].blocks_decoded),
                static_cast<unsigned long long>(last.tables[i].blocks),
                100.0 * static_cast<double>(last.tables[i].blocks_decoded) /
                    static_cast<double>(last.tables[i].blocks));
  std::filesystem::remove(path);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t b = 0;
  for (std::size_t e; (e = s.find(',', b)) != std::string::npos; b = e + 1) out.push_back(s.substr(b, e - b));
  out.push_back(s.substr(b));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t n = 1000000, join_n = 10000000, query_count = 1000000;
  unsigned runs = 3;
  std::string schemes = "paper-4,paper-10,paper-16,paper-20", join_scheme = "paper-4";
  bool do_join = true, do_pairs = true, single = true, with_ids = false;
  std::vector<unsigned> thread_counts = {1, 2};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--n")
      n = std::stoull(next());
    else if (a == "--join-n")
      join_n = std::stoull(next());
    else if (a == "--queries")
      query_count = std::stoull(next());
    else if (a == "--runs")
      runs = static_cast<unsigned>(std::stoul(next()));
    else if (a == "--schemes")
      schemes = next();
    else if (a == "--join-scheme")
      join_scheme = next();
    else if (a == "--no-join")
      do_join = false;
    else if (a == "--no-pairs")
      do_pairs = false;
    else if (a == "--no-single")
      single = false;
    else if (a == "--ids")
      with_ids = true;
    else if (a == "--threads") {
      thread_counts.clear();
      for (const auto& t : split(next())) thread_counts.push_back(static_cast<unsigned>(std::stoul(t)));
    } else {
      std::fprintf(stderr,
                   "usage: %s [--n N] [--join-n N] [--queries N] [--runs R] [--schemes a,b] [--join-scheme "
                   "s] [--no-join] [--no-pairs] [--no-single] [--threads 1,2,4] [--ids]\n",
                   argv[0]);
      return 2;
    }
  }
  if (runs == 0 || n == 0 || join_n == 0 || query_count == 0 || thread_counts.empty() ||
      std::find(thread_counts.begin(), thread_counts.end(), 0u) != thread_counts.end()) {
    std::fprintf(stderr, "%s: --runs, --n, --join-n, --queries and each of --threads must be at least 1\n",
                 argv[0]);
    return 2;
  }
  if (do_pairs) {
    bench_pairs("random", random_set(n, 1), split(schemes), runs);
    bench_pairs("clustered", clustered_set(n, 2), split(schemes), runs);
  }
  if (do_join) bench_join(join_n, query_count, join_scheme, runs, thread_counts, single, with_ids);
  if (g_mismatch) std::fprintf(stderr, "%s: MISMATCH: an answer differed from its check\n", argv[0]);
  return g_mismatch ? 1 : 0;
}
