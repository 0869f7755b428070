// The bench suite of issue 7 (run by scripts/bench, which writes bench/RESULTS.md):
//   Latency/*       single-query latency, warm, k = 3, planted near-duplicates: simdex's compressed
//                   reader, the uncompressed baseline (bench/uncompressed_baseline.h) and FAISS
//                   IndexBinaryMultiHash when built with it; p50/p99 in counters; answers checked equal.
//   LatencyBelowK/* simdex's latency at k = 0, 1, 2 against the same index (k = 3): fewer tables read;
//                   its queries have k bits flipped (each finds its planted near-duplicate).
//   Batch/*         single-thread throughput over a batch of queries.
//   BlockSize/*     bytes per entry per table and latency for block sizes 256..4096 (paper-10).
//   Open/*          Index::open of the large file against a 1000-fingerprint one.
//   Build/*, Sort/* build throughput (entries/s per table), radix sort against std::sort.
//   Decode          block decode throughput; Cold/* page faults per query after dropping the cache.
// Environment: SIMDEX_BENCH_N (default 1000000), SIMDEX_BENCH_DATA (random | clustered),
// SIMDEX_BENCH_DIR (default /tmp; index files are built there and removed at exit).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include "bench/bench_data.h"
#include "bench/uncompressed_baseline.h"
#include "reader/index_impl.h"
#include "simdex/batch.h"
#include "simdex/builder.h"
#include "simdex/index.h"
#include "writer/radix_sort.h"

#ifdef SIMDEX_HAVE_FAISS
#include "bench/faiss_peer.h"
#endif

namespace {

constexpr unsigned kK = 3;
constexpr std::size_t kQueries = 4096;

// Smallest SIMDEX_BENCH_N: Open/small takes 1000 of the fingerprints, Decode two blocks of a table.
constexpr uint64_t kMinN = 10000;

uint64_t env_u64(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v) return fallback;
  char* end = nullptr;
  const uint64_t n = std::strtoull(v, &end, 10);
  if (*v < '0' || *v > '9' || *end != '\0') {
    std::fprintf(stderr, "compare_bench: %s=%s is not a number\n", name, v);
    std::exit(2);
  }
  return n;
}
std::string env_str(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

const simdex::bench::BenchData& data() {
  static const simdex::bench::BenchData d =
      simdex::bench::make_bench_data(env_u64("SIMDEX_BENCH_N", 1000000),
                                     env_str("SIMDEX_BENCH_DATA", "random") == "clustered", kQueries, kK);
  return d;
}

std::vector<std::string> g_files;  // removed at exit
bool g_wrong_answers = false;      // a benchmark found a wrong answer: the run exits 1

// A wrong answer stops the benchmark, and fails the run: a row dropped from a report must not
// read as a figure that was never measured (scripts/bench stops on the exit status).
void wrong_answer(benchmark::State& state, const char* what) {
  g_wrong_answers = true;
  state.SkipWithError(what);
}

std::string build_index(const std::string& scheme, uint32_t block_bytes, const std::vector<uint64_t>& fps,
                        const std::string& suffix = "") {
  const std::string path = env_str("SIMDEX_BENCH_DIR", "/tmp") + "/simdex-bench-" +
                           std::to_string(::getpid()) + "-" + scheme + "-" + std::to_string(block_bytes) +
                           "-" + std::to_string(fps.size()) + suffix + ".sdx";
  simdex::BuildOptions o;
  o.scheme = simdex::Scheme::named(scheme, kK, fps.size());
  o.block_bytes = block_bytes;
  simdex::IndexBuilder b(o);
  for (std::size_t i = 0; i < fps.size(); ++i) b.add(fps[i], i);
  b.write(path);
  g_files.push_back(path);
  return path;
}

struct Built {
  std::string path;
  std::unique_ptr<simdex::Index> index;
};
// The block size of every benchmark but BlockSize/*: the library's default, or SIMDEX_BENCH_BLOCK_BYTES.
uint32_t default_block_bytes() {
  return static_cast<uint32_t>(env_u64("SIMDEX_BENCH_BLOCK_BYTES", simdex::BuildOptions{}.block_bytes));
}
// `evicted`: an index of its own (for the cold benchmarks), dropped from the page cache whole before
// it is opened. A file just written is cached in large folios, and a folio of which one page is
// mapped (or kept: the block keys) cannot be dropped; read again after this drop, its pages come
// back one by one.
enum class Fresh { cached, evicted };
const Built& simdex_index(const std::string& scheme, uint32_t block_bytes = default_block_bytes(),
                          Fresh fresh = Fresh::cached) {
  static std::map<std::tuple<std::string, uint32_t, Fresh>, Built> cache;
  auto [it, made] = cache.try_emplace({scheme, block_bytes, fresh});
  if (made) {
    it->second.path =
        build_index(scheme, block_bytes, data().fingerprints, fresh == Fresh::evicted ? "-cold" : "");
    if (fresh == Fresh::evicted) {
      const int fd = ::open(it->second.path.c_str(), O_RDONLY);
      ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
      ::close(fd);
    }
    it->second.index = std::make_unique<simdex::Index>(simdex::Index::open(it->second.path));
  }
  return it->second;
}
const simdex::bench::UncompressedTables& baseline(const std::string& scheme) {
  static std::map<std::string, std::unique_ptr<simdex::bench::UncompressedTables>> cache;
  auto& p = cache[scheme];
  if (!p)
    p = std::make_unique<simdex::bench::UncompressedTables>(data().fingerprints,
                                                            simdex::Scheme::named(scheme, kK, 0));
  return *p;
}

using simdex::bench::Answer;
using simdex::bench::simdex_answer;

// Percentile counters from per-query nanoseconds.
void report(benchmark::State& state, std::vector<double>& ns, uint64_t hits) {
  if (ns.empty()) return;
  std::sort(ns.begin(), ns.end());
  state.counters["p50_us"] = ns[ns.size() / 2] / 1000;
  state.counters["p99_us"] = ns[std::min(ns.size() - 1, ns.size() * 99 / 100)] / 1000;
  // Per query run (ns keeps at most 2^20 times, hits counts every query).
  state.counters["hits_per_query"] = static_cast<double>(hits) / static_cast<double>(state.iterations());
}

template <typename Query>
void latency_loop(benchmark::State& state, Query&& query,
                  const std::vector<uint64_t>& queries = data().queries) {
  std::vector<double> ns;
  ns.reserve(1 << 20);
  uint64_t hits = 0;
  std::size_t i = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    hits += query(queries[i++ % queries.size()]);
    const auto t1 = std::chrono::steady_clock::now();
    if (ns.size() < ns.capacity()) ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
  }
  report(state, ns, hits);
}

// The queries of a search at k: data().queries (kK bits flipped) at kK; below it, stored fingerprints
// with k bits flipped, so that the search below the index's k finds what it is for (with kK flips
// nearly every query would be a miss, and its answer check would compare empty answers).
const std::vector<uint64_t>& queries_at(unsigned k) {
  static std::map<unsigned, std::vector<uint64_t>> at;
  if (k == kK) return data().queries;
  auto [it, made] = at.try_emplace(k);
  if (made) it->second = simdex::bench::planted_queries(data().fingerprints, kQueries, k);
  return it->second;
}

// k: the search's, at most the index's kK (below it a search reads fewer tables).
void BM_Simdex(benchmark::State& state, std::string scheme, uint32_t block_bytes, unsigned k) {
  const Built& b = simdex_index(scheme, block_bytes);
  const std::vector<uint64_t>& queries = queries_at(k);
  // Answers checked against the baseline before timing.
  const auto& base = baseline(scheme);
  Answer expect;
  for (uint64_t q : queries) {
    base.query(q, k, expect);
    if (simdex_answer(*b.index, q, k) != expect) {
      wrong_answer(state, "simdex and the baseline disagree");
      return;
    }
  }
  std::vector<simdex::Hit> hits;
  hits.reserve(1024);
  latency_loop(
      state,
      [&](uint64_t q) {
        b.index->query(q, k, hits);
        return hits.size();
      },
      queries);
  const simdex::IndexInfo info = b.index->info();
  double table_bytes = 0;
  for (const auto& t : info.tables) table_bytes += static_cast<double>(t.bytes);
  const double n = static_cast<double>(info.fingerprint_count);
  state.counters["bytes_per_entry_per_table"] = table_bytes / n / static_cast<double>(info.tables.size());
  state.counters["floor_bytes_per_entry"] = info.floor_bits_per_entry / 8;
  state.counters["file_bytes_per_fp"] = static_cast<double>(info.file_bytes) / n;
  state.counters["tables"] = static_cast<double>(info.tables.size());
}

void BM_Baseline(benchmark::State& state, std::string scheme) {
  const auto& base = baseline(scheme);
  Answer out;
  out.reserve(1024);
  latency_loop(state, [&](uint64_t q) {
    base.query(q, kK, out);
    return out.size();
  });
  state.counters["bytes_per_fp"] =
      static_cast<double>(base.bytes()) / static_cast<double>(data().fingerprints.size());
}

void BM_SimdexBatch(benchmark::State& state, std::string scheme) {
  const Built& b = simdex_index(scheme);
  std::vector<simdex::Hit> hits;
  uint64_t queries = 0;
  for (auto _ : state) {
    for (uint64_t q : data().queries) {
      b.index->query(q, kK, hits);
      benchmark::DoNotOptimize(hits.data());
    }
    queries += data().queries.size();
  }
  state.counters["queries_per_s"] =
      benchmark::Counter(static_cast<double>(queries), benchmark::Counter::kIsRate);
}

// The same queries passed in one call of the batch API (simdex::join, 1 thread): each table's
// queries sorted and merged with the table, so blocks are read in ascending order.
void BM_SimdexJoin(benchmark::State& state, std::string scheme) {
  const Built& b = simdex_index(scheme);
  std::vector<simdex::Query> batch;
  uint64_t expected = 0;
  std::vector<simdex::Hit> hits;
  for (uint64_t q : data().queries) {
    batch.push_back({q, batch.size()});
    b.index->query(q, kK, hits);
    expected += hits.size();
  }
  simdex::BatchOptions o;
  o.k = kK;
  o.threads = 1;
  uint64_t queries = 0;
  for (auto _ : state) {
    uint64_t found = 0;
    simdex::join(*b.index, batch, o, [&](std::span<const simdex::JoinHit> h) { found += h.size(); });
    if (found != expected) {
      wrong_answer(state, "join found other hits than single queries");
      return;
    }
    queries += batch.size();
  }
  state.counters["queries_per_s"] =
      benchmark::Counter(static_cast<double>(queries), benchmark::Counter::kIsRate);
}

#ifdef SIMDEX_HAVE_FAISS
const simdex::bench::FaissPeer& faiss_index() {
  static const simdex::bench::FaissPeer f(data().fingerprints);
  return f;
}

// FAISS's per-call figures in a loop of their own; bench/latency_bench.cpp measures both engines
// alternating in one process, the fair comparison (issue 19).
void BM_Faiss(benchmark::State& state) {
  const auto& f = faiss_index();
  const auto& base = baseline("paper-20");
  Answer expect;
  for (std::size_t i = 0; i < 512; ++i) {
    base.query(data().queries[i], kK, expect);
    if (f.answer(data().queries[i], kK) != expect) {
      wrong_answer(state, "FAISS and the baseline disagree");
      return;
    }
  }
  latency_loop(state, [&](uint64_t q) { return f.query(q, kK); });
  state.counters["bytes_per_fp"] = f.bytes_per_fp();
}

void BM_FaissBatch(benchmark::State& state) {
  const auto& f = faiss_index();
  std::vector<uint64_t> padded = data().queries;  // and one more word, as FaissPeer::batch takes them
  padded.push_back(0);
  const std::size_t queries = padded.size() - 1;
  uint64_t done = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.batch(padded, kK));
    done += queries;
  }
  state.counters["queries_per_s"] =
      benchmark::Counter(static_cast<double>(done), benchmark::Counter::kIsRate);
}
#endif

void BM_Open(benchmark::State& state, bool large) {
  static std::string small_path;
  std::string path;
  if (large) {
    path = simdex_index("paper-20").path;
  } else {
    if (small_path.empty()) {
      std::vector<uint64_t> few(data().fingerprints.begin(), data().fingerprints.begin() + 1000);
      small_path = build_index("paper-20", 1024, few);
    }
    path = small_path;
  }
  for (auto _ : state) {
    auto index = simdex::Index::open(path);
    benchmark::DoNotOptimize(&index);
  }
  state.counters["file_bytes"] = static_cast<double>(std::filesystem::file_size(path));
}

void BM_Build(benchmark::State& state, std::string scheme, uint64_t memory_divisor) {
  const auto& fps = data().fingerprints;
  const std::string path =
      env_str("SIMDEX_BENCH_DIR", "/tmp") + "/simdex-bench-build-" + std::to_string(::getpid()) + ".sdx";
  uint64_t tables = 0, temp_files = 0;
  for (auto _ : state) {
    simdex::BuildOptions o;
    o.scheme = simdex::Scheme::named(scheme, kK, fps.size());
    o.threads = 1;
    o.temp_dir = env_str("SIMDEX_BENCH_DIR", "/tmp");
    if (memory_divisor) o.memory_bytes = std::max<uint64_t>(fps.size() * 16 / memory_divisor, 1 << 20);
    simdex::IndexBuilder b(o);
    for (std::size_t i = 0; i < fps.size(); ++i) b.add(fps[i], i);
    const auto s = b.write(path);
    tables = s.table_count;
    temp_files = s.temp_files;
  }
  std::filesystem::remove(path);
  state.counters["entries_per_s_per_table"] = benchmark::Counter(
      static_cast<double>(state.iterations() * fps.size() * tables), benchmark::Counter::kIsRate);
  state.counters["temp_files"] = static_cast<double>(temp_files);
}

void BM_Sort(benchmark::State& state, bool radix) {
  const auto& fps = data().fingerprints;
  std::mt19937_64 rng(5);
  std::vector<uint64_t> v(fps.size()), scratch(fps.size());
  for (auto _ : state) {
    state.PauseTiming();
    for (auto& x : v) x = rng();
    state.ResumeTiming();
    if (radix)
      simdex::writer::radix_sort(v, scratch);
    else
      std::sort(v.begin(), v.end());
    benchmark::DoNotOptimize(v.data());
  }
  state.counters["entries_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * v.size()), benchmark::Counter::kIsRate);
}

// Blocks decoded one at a time (two = false) or two at a time, stepped in turn
// (format::decode_two_blocks: their chains of loads overlap).
void BM_Decode(benchmark::State& state, bool two) {
  const Built& b = simdex_index("paper-4");
  const auto& file = simdex::index_impl(*b.index).file;
  const auto& table = file.tables()[1];
  uint64_t entries = 0, j = 0, sink = 0;
  auto visit = [&](uint64_t e, uint32_t) {
    sink += e;
    return true;
  };
  const uint64_t blocks = table.block_count() & ~uint64_t{1};
  for (auto _ : state) {
    if (two) {
      const auto [ra, rb] = file.decode_two(table, j, visit, table, j + 1, visit);
      entries += ra.decoded + rb.decoded;
      j = (j + 2) % blocks;
    } else {
      const auto r = file.decode(table, j, visit);
      entries += r.decoded;
      j = (j + 1) % blocks;
    }
  }
  benchmark::DoNotOptimize(sink);
  state.counters["entries_per_s"] =
      benchmark::Counter(static_cast<double>(entries), benchmark::Counter::kIsRate);
}

// Cold cache: before each query the mapping's pages are dropped from the process (madvise) and from
// the page cache (posix_fadvise); the faults of the query are the pages it reads. `all`: every page
// of the file, so a probe pays for whatever it reads to find its block too; `blocks`: only the
// tables' blocks and the ids, the bulk of the file, while what a probe reads to find its block
// (BLOCK_DIRECTORY, BLOCK_KEYS: a few percent of the file, read by every query) stays cached, as it
// does in a process serving a file larger than memory.
void BM_Cold(benchmark::State& state, std::string scheme, bool all) {
  const Built& b = simdex_index(scheme, default_block_bytes(), Fresh::evicted);
  const auto& file = simdex::index_impl(*b.index).file;
  auto* base = const_cast<uint8_t*>(file.data());
  const int fd = ::open(b.path.c_str(), O_RDONLY);
  const long page = ::sysconf(_SC_PAGESIZE);
  std::vector<std::pair<uint64_t, uint64_t>> dropped;  // byte ranges, page-aligned outward
  auto drop = [&](uint64_t offset, uint64_t bytes) {
    const uint64_t first = offset / static_cast<uint64_t>(page) * static_cast<uint64_t>(page);
    dropped.emplace_back(first, offset + bytes - first);
  };
  if (all) {
    drop(0, file.size());
  } else {
    for (const auto& s : file.sections())
      if (s.kind == simdex::format::SectionKind::blocks || s.kind == simdex::format::SectionKind::ids ||
          s.kind == simdex::format::SectionKind::id_offsets)
        drop(s.offset, s.bytes);
    simdex::reader::preload(simdex::index_impl(*b.index), simdex::OpenOptions::Preload::keys);
  }
  auto drop_all = [&] {
    for (auto [offset, bytes] : dropped) {
      ::madvise(base + offset, bytes, MADV_DONTNEED);
      ::posix_fadvise(fd, static_cast<off_t>(offset), static_cast<off_t>(bytes), POSIX_FADV_DONTNEED);
    }
  };
  // The drop must work for the figures to be cold: a file on tmpfs (or pages another process
  // holds) stays resident, and every query would read warm pages.
  drop_all();
  uint64_t resident = 0, pages = 0;
  std::vector<unsigned char> in_core;
  for (auto [offset, bytes] : dropped) {
    const uint64_t span = std::min<uint64_t>(bytes, file.size() - offset);
    in_core.assign((span + static_cast<uint64_t>(page) - 1) / static_cast<uint64_t>(page), 0);
    if (::mincore(base + offset, span, in_core.data()) != 0) continue;
    for (unsigned char c : in_core) resident += c & 1;
    pages += in_core.size();
  }
  if (resident * 10 > pages) {
    ::close(fd);
    state.SkipWithError(("the page cache kept " + std::to_string(resident) + " of " + std::to_string(pages) +
                         " pages dropped (tmpfs?): cold figures need SIMDEX_BENCH_DIR on a disk")
                            .c_str());
    return;
  }
  uint64_t major = 0, minor = 0, queries = 0;
  std::vector<simdex::Hit> hits;
  // What a process does once, as open does, is not counted: its first query builds the tables'
  // decode tables and copies their directories into memory (format 2.2; bench/RESULTS.md gives the
  // pages that costs a fresh process).
  b.index->query(data().queries[0], kK, hits);
  std::size_t i = 0;
  for (auto _ : state) {
    state.PauseTiming();
    drop_all();
    rusage before{}, after{};
    ::getrusage(RUSAGE_SELF, &before);
    state.ResumeTiming();
    b.index->query(data().queries[i++ % kQueries], kK, hits);
    state.PauseTiming();
    ::getrusage(RUSAGE_SELF, &after);
    major += static_cast<uint64_t>(after.ru_majflt - before.ru_majflt);
    minor += static_cast<uint64_t>(after.ru_minflt - before.ru_minflt);
    ++queries;
    state.ResumeTiming();
  }
  ::close(fd);
  const double q = static_cast<double>(std::max<uint64_t>(queries, 1));
  const double tables = static_cast<double>(file.tables().size());
  state.counters["major_faults_per_query"] = static_cast<double>(major) / q;
  state.counters["minor_faults_per_query"] = static_cast<double>(minor) / q;
  state.counters["major_faults_per_table_probe"] = static_cast<double>(major) / q / tables;
  state.counters["file_pages"] = static_cast<double>(file.size()) / static_cast<double>(page);
  state.counters["tables"] = tables;
}

}  // namespace

int main(int argc, char** argv) {
  if (env_u64("SIMDEX_BENCH_N", kMinN) < kMinN) {
    std::fprintf(stderr, "compare_bench: SIMDEX_BENCH_N must be at least %llu\n",
                 static_cast<unsigned long long>(kMinN));
    return 2;
  }
  for (const char* s : {"paper-20", "paper-16", "paper-10", "paper-4"}) {
    benchmark::RegisterBenchmark((std::string("Latency/simdex/") + s).c_str(), BM_Simdex, std::string(s),
                                 default_block_bytes(), kK);
    benchmark::RegisterBenchmark((std::string("Latency/baseline/") + s).c_str(), BM_Baseline, std::string(s));
  }
#ifdef SIMDEX_HAVE_FAISS
  benchmark::RegisterBenchmark("Latency/faiss/multihash-2x32-flip1", BM_Faiss);
  benchmark::RegisterBenchmark("Batch/faiss/multihash-2x32-flip1", BM_FaissBatch)->UseRealTime();
#endif
  for (const char* s : {"paper-20", "paper-10", "paper-4"}) {
    benchmark::RegisterBenchmark((std::string("Batch/simdex/") + s).c_str(), BM_SimdexBatch, std::string(s))
        ->UseRealTime();
    benchmark::RegisterBenchmark((std::string("Batch/simdex-join/") + s).c_str(), BM_SimdexJoin,
                                 std::string(s))
        ->UseRealTime();
  }
  for (unsigned k = 0; k < kK; ++k)
    benchmark::RegisterBenchmark(("LatencyBelowK/paper-10/" + std::to_string(k)).c_str(), BM_Simdex,
                                 std::string("paper-10"), default_block_bytes(), k);
  for (uint32_t b : {256u, 512u, 1024u, 2048u, 4096u})
    benchmark::RegisterBenchmark(("BlockSize/paper-10/" + std::to_string(b)).c_str(), BM_Simdex,
                                 std::string("paper-10"), b, kK);
  benchmark::RegisterBenchmark("Open/large", BM_Open, true);
  benchmark::RegisterBenchmark("Open/small", BM_Open, false);
  benchmark::RegisterBenchmark("Decode/paper-4", BM_Decode, false);
  benchmark::RegisterBenchmark("Decode/paper-4/two-blocks", BM_Decode, true);
  for (const char* s : {"paper-20", "paper-10", "paper-4"})
    for (bool all : {true, false})
      benchmark::RegisterBenchmark((std::string("Cold/") + (all ? "" : "blocks/") + s).c_str(), BM_Cold,
                                   std::string(s), all)
          ->Iterations(2000);
  benchmark::RegisterBenchmark("Build/paper-10/in-memory", BM_Build, std::string("paper-10"), uint64_t{0})
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1)
      ->UseRealTime();
  benchmark::RegisterBenchmark("Build/paper-10/memory-n-div-8", BM_Build, std::string("paper-10"),
                               uint64_t{8})
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1)
      ->UseRealTime();
  benchmark::RegisterBenchmark("Sort/radix", BM_Sort, true)->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("Sort/std", BM_Sort, false)->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (const auto& f : g_files) std::filesystem::remove(f);
  if (g_wrong_answers) std::fprintf(stderr, "compare_bench: wrong answers (the benchmarks marked ERROR)\n");
  return g_wrong_answers ? 1 : 0;
}
