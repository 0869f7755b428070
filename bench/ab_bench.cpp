// Two or more builds of simdex compared in one process, for a VM whose speed drifts from minute to
// minute: each build is a module (bench/ab_shim.cpp) loaded with dlopen(RTLD_LOCAL | RTLD_DEEPBIND),
// so that their same-named symbols stay apart; every run gives each module the same fresh queries
// in turn (the order rotating), and each run's time is divided by the first module's in that run.
// The medians of those paired ratios are what to quote (scripts/ab-libs builds the modules).
//   build/bench/ab_bench [--n 1000000] [--scheme paper-10] [--queries 4096] [--runs 300] [--single]
//                        [--threads 1[,2...]] [--index FILE] [--evict MIB] MODULE.so MODULE.so...
// Random fingerprints (seed 101); queries are stored fingerprints with 3 bits flipped. The index
// (by default /tmp/simdex-ab-N-SCHEME.sdx) is built by the first module when the file does not exist.
// --single: Index::query one at a time (mean seconds a query) instead of one join of all queries.
// --threads: the join's thread counts (wall seconds): each module runs at each of them in every run,
// its times compared with the first module's at the same count, and its speed-up from the first
// count to each other taken per run too.
// --evict: before each timed call, MIB MiB of other memory written through (a line at a time), so
// that the call finds the caches as after another engine's batch (latency_bench alternates simdex
// with FAISS, whose hash tables take 191 bytes a fingerprint), not warm from the call before.
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace {
using Build = void (*)(const char*, const uint64_t*, std::size_t, const char*);
using Open = void (*)(const char*);
using Run = double (*)(const uint64_t*, std::size_t, unsigned, uint64_t*);

struct Module {
  std::string path;
  Run run;
};
// One module at one thread count: its time in each run.
struct Entry {
  std::size_t module;
  unsigned threads;
  std::vector<double> seconds;
  uint64_t hits = 0;
};

void* symbol(void* handle, const std::string& path, const char* name) {
  void* s = dlsym(handle, name);
  if (!s) {
    std::fprintf(stderr, "ab_bench: %s has no %s\n", path.c_str(), name);
    std::exit(1);
  }
  return s;
}

template <typename... T>
std::string buffer(const char* format, T... values) {
  char text[256];
  std::snprintf(text, sizeof text, format, values...);
  return text;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}
}  // namespace

int main(int argc, char** argv) {
  std::size_t n = 1000000, queries = 4096;
  int runs = 300;
  std::vector<unsigned> threads{1};
  bool single = false;
  std::size_t evict_mib = 0;
  std::string scheme = "paper-10", index;
  std::vector<Module> modules;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "ab_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return std::string(argv[++i]);
    };
    // v as a positive decimal number up to `most`; else a message and exit 2.
    auto number = [&](const std::string& v, unsigned long long most = 1ull << 40) {
      char* end = nullptr;
      const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || x == 0 || x > most) {
        std::fprintf(stderr, "ab_bench: %s wants a positive number, not '%s'\n", a.c_str(), v.c_str());
        std::exit(2);
      }
      return static_cast<std::size_t>(x);
    };
    if (a == "--n")
      n = number(value());
    else if (a == "--scheme")
      scheme = value();
    else if (a == "--queries")
      queries = number(value());
    else if (a == "--runs")
      runs = static_cast<int>(std::min<std::size_t>(number(value()), 1000000));
    else if (a == "--threads") {
      threads.clear();
      const std::string list = value();
      for (std::size_t at = 0; at <= list.size();) {  // counts such as 1,2
        const std::size_t comma = std::min(list.find(',', at), list.size());
        threads.push_back(static_cast<unsigned>(number(list.substr(at, comma - at), 1024)));
        at = comma + 1;
      }
    } else if (a == "--single")
      single = true;
    else if (a == "--index")
      index = value();
    else if (a == "--evict")
      evict_mib = number(value(), 65536);
    else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "ab_bench: unknown option %s\n", a.c_str());
      return 2;
    } else
      modules.push_back({a, nullptr});
  }
  if (modules.empty()) {
    std::fprintf(stderr,
                 "usage: ab_bench [--n N] [--scheme S] [--queries B] [--runs R] [--single] "
                 "[--threads T[,T...]] [--index FILE] [--evict MIB] MODULE.so...\n");
    return 2;
  }
  if (index.empty()) index = "/tmp/simdex-ab-" + std::to_string(n) + "-" + scheme + ".sdx";
  std::mt19937_64 rng(101);
  std::vector<uint64_t> stored(n);
  for (auto& x : stored) x = rng();
  for (std::size_t m = 0; m < modules.size(); ++m) {
    void* h = dlopen(modules[m].path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) {
      std::fprintf(stderr, "ab_bench: %s\n", dlerror());
      return 1;
    }
    if (m == 0 && !std::filesystem::exists(index))
      reinterpret_cast<Build>(symbol(h, modules[m].path, "simdex_ab_build"))(index.c_str(), stored.data(), n,
                                                                             scheme.c_str());
    reinterpret_cast<Open>(symbol(h, modules[m].path, "simdex_ab_open"))(index.c_str());
    modules[m].run =
        reinterpret_cast<Run>(symbol(h, modules[m].path, single ? "simdex_ab_query" : "simdex_ab_join"));
  }
  if (single) threads = {1};
  std::vector<Entry> entries;  // module by module, thread count by thread count
  for (std::size_t m = 0; m < modules.size(); ++m)
    for (unsigned t : threads) entries.push_back({m, t, {}, 0});
  std::vector<uint64_t> qs(queries);
  std::vector<uint8_t> other(evict_mib << 20);
  for (int r = 0; r < runs; ++r) {
    for (auto& q : qs) {
      q = stored[rng() % n];
      for (int f = 0; f < 3; ++f) q ^= uint64_t{1} << (rng() % 64);
    }
    for (std::size_t v = 0; v < entries.size(); ++v) {
      Entry& e = entries[(static_cast<std::size_t>(r) + v) % entries.size()];
      volatile uint8_t* touch = other.data();  // (volatile: the writes are never read)
      for (std::size_t i = 0; i < other.size(); i += 64) touch[i] = static_cast<uint8_t>(touch[i] + 1);
      e.seconds.push_back(modules[e.module].run(qs.data(), qs.size(), e.threads, &e.hits));
    }
  }
  std::printf("%s, %zu fingerprints, %s, %zu queries, %d runs (index %s)\n",
              single ? "single queries" : "join", n, scheme.c_str(), queries, runs, index.c_str());
  auto quartiles = [](const std::vector<double>& v) {
    return buffer("median %.3f (p25 %.3f, p75 %.3f)", quantile(v, 0.5), quantile(v, 0.25), quantile(v, 0.75));
  };
  const std::size_t per_module = threads.size();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    const Entry& base = entries[i % per_module];             // the first module at the same thread count
    const Entry& first_count = entries[i - i % per_module];  // this module at the first count
    std::vector<double> ratio, speedup;
    for (int r = 0; r < runs; ++r) {
      ratio.push_back(e.seconds[r] / base.seconds[r]);
      speedup.push_back(first_count.seconds[r] / e.seconds[r]);
    }
    std::printf(
        "%s, %u thread(s): median %.4g s (p25 %.4g, p75 %.4g), hits %llu; paired ratio to the first: %s",
        modules[e.module].path.c_str(), e.threads, quantile(e.seconds, 0.5), quantile(e.seconds, 0.25),
        quantile(e.seconds, 0.75), static_cast<unsigned long long>(e.hits), quartiles(ratio).c_str());
    if (i % per_module != 0)
      std::printf("; speed-up from %u thread(s): %s", first_count.threads, quartiles(speedup).c_str());
    std::printf("\n");
  }
  for (const Entry& e : entries)
    if (e.hits != entries[0].hits) {
      std::fprintf(stderr, "ab_bench: %s at %u thread(s) found %llu hits, %s at %u %llu\n",
                   modules[e.module].path.c_str(), e.threads, static_cast<unsigned long long>(e.hits),
                   modules[0].path.c_str(), entries[0].threads,
                   static_cast<unsigned long long>(entries[0].hits));
      return 1;
    }
}
