// Single-query latency, simdex against FAISS IndexBinaryMultiHash measured fairly (issue 19): one
// process, the same fingerprints and queries, the engines alternating query by query (which one goes
// first alternates too), after one warm pass over all queries; FAISS in its fastest setting (see
// bench/faiss_peer.h). Answers are checked equal before timing. Then, per scheme, fresh processes:
// a new process opens the file (with each OpenOptions::preload) and times its first queries, either
// against a file evicted from the page cache (posix_fadvise DONTNEED) or against a file the process
// has read whole into the page cache (read(), not mapped) before it opens it. With --batch, per
// scheme and batch size B: the first B queries as one batch, simdex::join on one thread against
// FAISS's range_search on one OpenMP thread (issue 17), alternating, hit counts checked equal.
//   build/bench/latency_bench [--n 1000000] [--data random|clustered] [--schemes paper-10,paper-4,auto]
//                             [--queries 20000] [--fresh 10000] [--fresh-modes evicted,cached]
//                             [--batch 4096,200000] [--batch-runs 5] [--dir /tmp] [--no-faiss]
// Prints markdown tables (µs per query). Without FAISS (libfaiss-dev) only simdex's rows.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bench/bench_data.h"
#include "bench/uncompressed_baseline.h"
#include "simdex/batch.h"
#include "simdex/builder.h"
#include "simdex/index.h"
#ifdef SIMDEX_HAVE_FAISS
#include "bench/faiss_peer.h"
#endif

using namespace simdex;

namespace {

constexpr unsigned kK = 3;
using Clock = std::chrono::steady_clock;
double ns_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::nano>(b - a).count();
}
// This thread's CPU time: on a shared machine a query's wall time also counts the time the thread
// waited for a core; its CPU time does not.
double cpu_ns(clockid_t clock) {
  timespec t{};
  ::clock_gettime(clock, &t);
  return 1e9 * static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec);
}
double thread_cpu_ns() { return cpu_ns(CLOCK_THREAD_CPUTIME_ID); }
// What reading the CPU clock twice costs (its median), subtracted from each CPU-time figure.
double cpu_clock_overhead_ns() {
  std::vector<double> d;
  for (int i = 0; i < 1001; ++i) {
    const double a = thread_cpu_ns();
    d.push_back(thread_cpu_ns() - a);
  }
  std::nth_element(d.begin(), d.begin() + 500, d.end());
  return d[500];
}
// Times one call: wall and CPU nanoseconds appended when `record`.
struct Samples {
  std::vector<double> wall, cpu;
};
// `clock`: the thread's CPU time, or the process's for a call that may hand work to another thread.
template <class Call>
void timed(Samples& s, bool record, double cpu_overhead, Call&& call,
           clockid_t clock = CLOCK_THREAD_CPUTIME_ID) {
  const double c0 = cpu_ns(clock);
  const auto t0 = Clock::now();
  call();
  const auto t1 = Clock::now();
  const double c1 = cpu_ns(clock);
  if (!record) return;
  s.wall.push_back(ns_between(t0, t1));
  s.cpu.push_back(std::max(0.0, c1 - c0 - cpu_overhead));
}

struct Percentiles {
  double p50 = 0, p99 = 0, max = 0, mean = 0;  // µs
};
Percentiles percentiles(std::vector<double> ns) {
  Percentiles p;
  if (ns.empty()) return p;
  std::sort(ns.begin(), ns.end());
  double sum = 0;
  for (double x : ns) sum += x;
  p.p50 = ns[ns.size() / 2] / 1000;
  p.p99 = ns[std::min(ns.size() - 1, ns.size() * 99 / 100)] / 1000;
  p.max = ns.back() / 1000;
  p.mean = sum / static_cast<double>(ns.size()) / 1000;
  return p;
}

OpenOptions::Preload parse_preload(const std::string& s) {
  if (s == "none") return OpenOptions::Preload::none;
  if (s == "keys") return OpenOptions::Preload::keys;
  if (s == "all") return OpenOptions::Preload::all;
  std::fprintf(stderr, "latency_bench: unknown preload '%s'\n", s.c_str());
  std::exit(2);
}

long faults(bool major) {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return major ? u.ru_majflt : u.ru_minflt;
}

// The child: open `path` (after evicting it when asked), time the first `count` queries of
// `queries_file`, print one line: open_ms p50 p99 max mean major_faults minor_faults.
int run_child(const std::string& path, const std::string& queries_file, std::size_t count,
              const std::string& preload, bool evict) {
  std::vector<uint64_t> queries(count);
  {
    std::ifstream in(queries_file, std::ios::binary);
    in.read(reinterpret_cast<char*>(queries.data()), static_cast<std::streamsize>(count * 8));
    queries.resize(static_cast<std::size_t>(in.gcount()) / 8);
  }
  {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (evict) {
      ::fdatasync(fd);
      ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    } else {
      // Cached: every page in the page cache (read, not mapped), as a file other processes use.
      std::vector<char> buf(1 << 20);
      while (::read(fd, buf.data(), buf.size()) > 0) {
      }
    }
    ::close(fd);
  }
  std::vector<Hit> hits;
  hits.reserve(1024);
  std::vector<double> ns;
  ns.reserve(queries.size());
  const long major0 = faults(true), minor0 = faults(false);
  const auto t0 = Clock::now();
  OpenOptions o;
  o.preload = parse_preload(preload);
  const Index index = Index::open(path, o);
  const auto t1 = Clock::now();
  for (uint64_t q : queries) {
    const auto a = Clock::now();
    index.query(q, kK, hits);
    ns.push_back(ns_between(a, Clock::now()));
  }
  const Percentiles p = percentiles(ns);
  std::printf("%.3f %.2f %.2f %.2f %.2f %ld %ld\n", ns_between(t0, t1) / 1e6, p.p50, p.p99, p.max, p.mean,
              faults(true) - major0, faults(false) - minor0);
  return 0;
}

struct Args {
  uint64_t n = 1000000;
  bool clustered = false;
  std::vector<std::string> schemes{"paper-10", "paper-4", "auto"};
  std::size_t queries = 20000, fresh = 10000;
  std::string dir = "/tmp";
  bool faiss = true;
  bool fresh_evicted = true, fresh_cached = true;  // --fresh-modes evicted,cached
  std::vector<std::size_t> batches;                // --batch: batch sizes (at most --queries)
  int batch_runs = 5;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= s.size()) {
    const std::size_t comma = std::min(s.find(',', at), s.size());
    if (comma > at) out.push_back(s.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string opt = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "latency_bench: %s needs a value\n", opt.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (opt == "--n")
      a.n = std::strtoull(value().c_str(), nullptr, 10);
    else if (opt == "--data")
      a.clustered = value() == "clustered";
    else if (opt == "--schemes")
      a.schemes = split(value());
    else if (opt == "--queries")
      a.queries = std::strtoull(value().c_str(), nullptr, 10);
    else if (opt == "--fresh")
      a.fresh = std::strtoull(value().c_str(), nullptr, 10);
    else if (opt == "--dir")
      a.dir = value();
    else if (opt == "--no-faiss")
      a.faiss = false;
    else if (opt == "--batch")
      for (const std::string& b : split(value())) a.batches.push_back(std::strtoull(b.c_str(), nullptr, 10));
    else if (opt == "--batch-runs")
      a.batch_runs = std::max(1, std::atoi(value().c_str()));
    else if (opt == "--fresh-modes") {
      const auto modes = split(value());
      a.fresh_evicted = std::find(modes.begin(), modes.end(), "evicted") != modes.end();
      a.fresh_cached = std::find(modes.begin(), modes.end(), "cached") != modes.end();
    } else {
      std::fprintf(stderr,
                   "latency_bench: unknown option %s (see the comment atop bench/latency_bench.cpp)\n",
                   opt.c_str());
      std::exit(2);
    }
  }
  return a;
}

std::string build(const Args& a, const std::string& scheme, const std::vector<uint64_t>& fps) {
  const std::string path = a.dir + "/simdex-latency-" + std::to_string(::getpid()) + "-" + scheme + ".sdx";
  BuildOptions o;
  o.scheme = Scheme::named(scheme, kK, fps.size());
  o.temp_dir = a.dir;
  IndexBuilder b(o);
  for (std::size_t i = 0; i < fps.size(); ++i) b.add(fps[i], i);
  b.write(path);
  return path;
}

// One fresh process: its line of figures, split.
std::vector<double> fresh_run(const std::string& path, const std::string& queries_file, std::size_t count,
                              const char* preload, bool evict) {
  const std::string cmd = "/proc/" + std::to_string(::getpid()) + "/exe --child " + path + " " +
                          queries_file + " " + std::to_string(count) + " " + preload + " " +
                          (evict ? "evict" : "cached");
  FILE* p = ::popen(cmd.c_str(), "r");
  std::vector<double> v(7, 0);
  if (!p ||
      std::fscanf(p, "%lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
    std::fprintf(stderr, "latency_bench: the fresh process failed: %s\n", cmd.c_str());
  if (p) ::pclose(p);
  return v;
}

#ifdef SIMDEX_HAVE_FAISS
// simdex::join of `queries` on one thread, with ids (FAISS returns its labels): the hit count.
std::size_t simdex_batch(const Index& index, const std::vector<Query>& queries) {
  BatchOptions o;
  o.k = static_cast<int>(kK);
  o.threads = 1;
  o.with_ids = true;
  std::size_t hits = 0;
  join(index, queries, o, [&](std::span<const JoinHit> batch) { hits += batch.size(); });
  return hits;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc == 7 && std::strcmp(argv[1], "--child") == 0)
    return run_child(argv[2], argv[3], std::strtoull(argv[4], nullptr, 10), argv[5],
                     std::strcmp(argv[6], "evict") == 0);
  const Args a = parse(argc, argv);
  // Checked before any file is made: a scheme that does not exist would throw after the queries file.
  if (a.n == 0 || a.queries == 0) {
    std::fprintf(stderr, "latency_bench: --n and --queries must be at least 1\n");
    return 2;
  }
  for (const std::string& scheme : a.schemes) try {
      (void)Scheme::named(scheme, kK, a.n);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "latency_bench: --schemes %s: %s\n", scheme.c_str(), e.what());
      return 2;
    }
#ifndef SIMDEX_HAVE_FAISS
  if (!a.batches.empty()) {
    std::fprintf(stderr,
                 "latency_bench: --batch compares with FAISS, and this build has none (see README)\n");
    return 2;
  }
#endif
  const bench::BenchData data = bench::make_bench_data(a.n, a.clustered, a.queries, kK);
  const auto& queries = data.queries;
  const std::string queries_file = a.dir + "/simdex-latency-" + std::to_string(::getpid()) + ".queries";
  {
    std::ofstream out(queries_file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(queries.data()),
              static_cast<std::streamsize>(queries.size() * 8));
  }
  std::printf("n = %llu %s fingerprints, k = %u, %zu queries (stored fingerprints with %u bits flipped)\n\n",
              static_cast<unsigned long long>(data.fingerprints.size()), a.clustered ? "clustered" : "random",
              kK, queries.size(), kK);

#ifdef SIMDEX_HAVE_FAISS
  std::unique_ptr<bench::FaissPeer> faiss;
  Percentiles faiss_first;
  if (a.faiss) {
    faiss = std::make_unique<bench::FaissPeer>(data.fingerprints);
    // FAISS's counterpart of a fresh process: its first queries right after add().
    std::vector<double> ns;
    for (std::size_t i = 0; i < std::min(a.fresh, queries.size()); ++i) {
      const auto t = Clock::now();
      faiss->query(queries[i], kK);
      ns.push_back(ns_between(t, Clock::now()));
    }
    faiss_first = percentiles(ns);
  }
#else
  if (a.faiss) std::printf("(built without FAISS: simdex only)\n\n");
#endif

  const double cpu_overhead = cpu_clock_overhead_ns();
  std::printf(
      "Warm, µs per query, wall / CPU time of the thread (the CPU time leaves out waits for a core)\n\n"
      "| scheme | simdex p50 | simdex p99 | FAISS p50 | FAISS p99 | FAISS default-buffer p50 (wall) | p50 "
      "ratio | p99 ratio | simdex bytes/fp | FAISS bytes/fp "
      "|\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::map<std::string, std::string> paths;
  std::map<std::string, Percentiles> warm;
  for (const std::string& scheme : a.schemes) {
    const std::string path = build(a, scheme, data.fingerprints);
    paths[scheme] = path;
    const Index index = Index::open(path);
    std::vector<Hit> hits;
    hits.reserve(1024);
    Samples s_ns, f_ns, fd_ns;
    bool faiss_on = false;
#ifdef SIMDEX_HAVE_FAISS
    faiss_on = faiss != nullptr;
#endif
    {  // the answers checked before any is timed: against the uncompressed tables, and FAISS's
      const bench::UncompressedTables base(data.fingerprints,
                                           Scheme::named(scheme, kK, data.fingerprints.size()));
      bench::Answer expect;
      for (std::size_t i = 0; i < std::min<std::size_t>(queries.size(), 2000); ++i) {
        base.query(queries[i], kK, expect);
        const bench::Answer got = bench::simdex_answer(index, queries[i], kK);
        if (got != expect) {
          std::fprintf(stderr, "latency_bench: simdex and the uncompressed baseline disagree on query %zu\n",
                       i);
          return 1;
        }
#ifdef SIMDEX_HAVE_FAISS
        if (faiss_on && faiss->answer(queries[i], kK) != got) {
          std::fprintf(stderr, "latency_bench: FAISS and simdex disagree on query %zu\n", i);
          return 1;
        }
#endif
      }
    }
    // The warm pass, then the timed one, alternating engines and their order.
    for (int pass = 0; pass < 2; ++pass) {
      for (std::size_t i = 0; i < queries.size(); ++i) {
        const uint64_t q = queries[i];
        auto time_simdex = [&] { timed(s_ns, pass, cpu_overhead, [&] { index.query(q, kK, hits); }); };
#ifdef SIMDEX_HAVE_FAISS
        auto time_faiss = [&] {
          if (!faiss_on) return;
          timed(f_ns, pass, cpu_overhead, [&] { faiss->query(q, kK); });
          // FAISS's default result buffers, on another query (the same one again would find its
          // buckets in cache): the difference is what compare_bench measured before.
          const uint64_t other = queries[(i + queries.size() / 2) % queries.size()];
          timed(fd_ns, pass, cpu_overhead, [&] { faiss->query_default_buffers(other, kK); });
        };
#else
        auto time_faiss = [] {};
#endif
        if (i % 2) {
          time_simdex();
          time_faiss();
        } else {
          time_faiss();
          time_simdex();
        }
      }
    }
    const Percentiles s = percentiles(s_ns.wall), f = percentiles(f_ns.wall), fd = percentiles(fd_ns.wall);
    const Percentiles sc = percentiles(s_ns.cpu), fc = percentiles(f_ns.cpu);
    warm[scheme] = s;
    const double bytes =
        static_cast<double>(index.info().file_bytes) / static_cast<double>(data.fingerprints.size());
    double faiss_bytes = 0;
#ifdef SIMDEX_HAVE_FAISS
    if (faiss_on) faiss_bytes = faiss->bytes_per_fp();
#endif
    if (faiss_on)
      std::printf(
          "| %s | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f | %.2f / %.2f | %.2f / %.2f | "
          "%.1f | %.1f |\n",
          index.info().scheme_name.c_str(), s.p50, sc.p50, s.p99, sc.p99, f.p50, fc.p50, f.p99, fc.p99,
          fd.p50, s.p50 / f.p50, sc.p50 / fc.p50, s.p99 / f.p99, sc.p99 / fc.p99, bytes, faiss_bytes);
    else
      std::printf("| %s | %.2f / %.2f | %.2f / %.2f | - | - | - | - | - | %.1f | - |\n",
                  index.info().scheme_name.c_str(), s.p50, sc.p50, s.p99, sc.p99, bytes);
    std::fflush(stdout);
  }

#ifdef SIMDEX_HAVE_FAISS
  if (!a.batches.empty() && faiss) {
    std::printf(
        "\nBatches, one thread each: the first B queries at once, seconds (median of %d alternating runs "
        "after a warm one, "
        "wall / CPU time of the process)\n\n"
        "| scheme | B | hits | simdex join | FAISS range_search | FAISS / simdex (wall / CPU) |\n"
        "|---|---:|---:|---:|---:|---:|\n",
        a.batch_runs);
    for (const std::string& scheme : a.schemes) {
      const Index index = Index::open(paths[scheme]);
      for (std::size_t b : a.batches) {
        b = std::min(b, queries.size());
        std::vector<Query> qs(b);
        for (std::size_t i = 0; i < b; ++i) qs[i] = {queries[i], i};
        std::vector<uint64_t> padded(queries.begin(), queries.begin() + static_cast<std::ptrdiff_t>(b));
        padded.push_back(0);
        Samples s, f;
        std::size_t s_hits = 0, f_hits = 0;
        for (int run = -1; run < a.batch_runs; ++run) {  // run -1: the warm pass, not timed
          const bool record = run >= 0;
          auto time_simdex = [&] {
            timed(
                s, record, 0, [&] { s_hits = simdex_batch(index, qs); }, CLOCK_PROCESS_CPUTIME_ID);
          };
          auto time_faiss = [&] {
            timed(
                f, record, 0, [&] { f_hits = faiss->batch(padded, kK); }, CLOCK_PROCESS_CPUTIME_ID);
          };
          if (run % 2 != 0) {
            time_simdex();
            time_faiss();
          } else {
            time_faiss();
            time_simdex();
          }
          if (s_hits != f_hits) {
            std::fprintf(stderr, "latency_bench: batch of %zu: simdex found %zu hits, FAISS %zu\n", b, s_hits,
                         f_hits);
            return 1;
          }
        }
        const Percentiles sw = percentiles(s.wall), sc = percentiles(s.cpu), fw = percentiles(f.wall),
                          fc = percentiles(f.cpu);  // µs
        std::printf("| %s | %zu | %zu | %.4f / %.4f | %.4f / %.4f | %.2f / %.2f |\n", scheme.c_str(), b,
                    s_hits, sw.p50 / 1e6, sc.p50 / 1e6, fw.p50 / 1e6, fc.p50 / 1e6, fw.p50 / sw.p50,
                    fc.p50 / sc.p50);
        std::fflush(stdout);
      }
    }
  }
#endif

  if (a.fresh > 0) {
#ifdef SIMDEX_HAVE_FAISS
    if (faiss)
      std::printf("\nFAISS, its first %zu queries right after add(): p50 %.2f, p99 %.2f, max %.2f µs\n",
                  std::min(a.fresh, queries.size()), faiss_first.p50, faiss_first.p99, faiss_first.max);
#endif
    std::printf(
        "\nFresh processes: the first %zu queries of a new process (µs; open includes the preload)\n\n"
        "| scheme | file pages | preload | open ms | p50 | p99 | max | p99 / warm p99 | major faults | minor "
        "faults |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n",
        std::min(a.fresh, queries.size()));
    for (const std::string& scheme : a.schemes) {
      for (bool evict : {true, false})
        for (const char* preload : {"none", "keys", "all"}) {
          if (!(evict ? a.fresh_evicted : a.fresh_cached)) continue;
          const auto v = fresh_run(paths[scheme], queries_file, a.fresh, preload, evict);
          std::printf("| %s | %s | %s | %.1f | %.2f | %.2f | %.1f | %.2f | %.0f | %.0f |\n", scheme.c_str(),
                      evict ? "evicted" : "cached", preload, v[0], v[1], v[2], v[3], v[2] / warm[scheme].p99,
                      v[5], v[6]);
          std::fflush(stdout);
        }
    }
  }
  for (const auto& [scheme, path] : paths) std::filesystem::remove(path);
  std::filesystem::remove(queries_file);
  return 0;
}
