// Two or more builds of simdex compared in one process, for a VM whose speed drifts from minute to
// minute: each build is a module (bench/ab_shim.cpp) loaded with dlopen(RTLD_LOCAL | RTLD_DEEPBIND),
// so that their same-named symbols stay apart; every run gives each module the same fresh queries
// in turn (the order rotating), and each run's time is divided by the first module's in that run.
// The medians of those paired ratios are what to quote (scripts/ab-libs builds the modules).
//   build/bench/ab_bench [--n 1000000] [--scheme paper-10] [--queries 4096] [--runs 300] [--single]
//                        [--index FILE] MODULE.so MODULE.so...
// Random fingerprints (seed 101); queries are stored fingerprints with 3 bits flipped. The index
// (by default /tmp/simdex-ab-N-SCHEME.sdx) is built by the first module when the file does not exist.
// --single: Index::query one at a time (mean seconds a query) instead of one join of all queries.
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
using Run = double (*)(const uint64_t*, std::size_t, uint64_t*);

struct Module {
  std::string path;
  Run run;
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

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}
}  // namespace

int main(int argc, char** argv) {
  std::size_t n = 1000000, queries = 4096;
  int runs = 300;
  bool single = false;
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
    auto number = [&] {
      const std::string v = value();
      char* end = nullptr;
      const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || x == 0 || x > (1ull << 40)) {
        std::fprintf(stderr, "ab_bench: %s wants a positive number, not '%s'\n", a.c_str(), v.c_str());
        std::exit(2);
      }
      return static_cast<std::size_t>(x);
    };
    if (a == "--n")
      n = number();
    else if (a == "--scheme")
      scheme = value();
    else if (a == "--queries")
      queries = number();
    else if (a == "--runs")
      runs = static_cast<int>(std::min<std::size_t>(number(), 1000000));
    else if (a == "--single")
      single = true;
    else if (a == "--index")
      index = value();
    else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "ab_bench: unknown option %s\n", a.c_str());
      return 2;
    } else
      modules.push_back({a, nullptr, {}, 0});
  }
  if (modules.empty()) {
    std::fprintf(stderr,
                 "usage: ab_bench [--n N] [--scheme S] [--queries B] [--runs R] [--single] "
                 "[--index FILE] MODULE.so...\n");
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
  std::vector<uint64_t> qs(queries);
  for (int r = 0; r < runs; ++r) {
    for (auto& q : qs) {
      q = stored[rng() % n];
      for (int f = 0; f < 3; ++f) q ^= uint64_t{1} << (rng() % 64);
    }
    for (std::size_t v = 0; v < modules.size(); ++v) {
      Module& m = modules[(static_cast<std::size_t>(r) + v) % modules.size()];
      m.seconds.push_back(m.run(qs.data(), qs.size(), &m.hits));
    }
  }
  std::printf("%s, %zu fingerprints, %s, %zu queries, %d runs (index %s)\n",
              single ? "single queries" : "join", n, scheme.c_str(), queries, runs, index.c_str());
  for (const Module& m : modules) {
    std::vector<double> ratio;
    for (int r = 0; r < runs; ++r) ratio.push_back(m.seconds[r] / modules[0].seconds[r]);
    std::printf(
        "%s: median %.4g s (p25 %.4g, p75 %.4g), hits %llu; paired ratio to the first: median %.3f "
        "(p25 %.3f, p75 %.3f)\n",
        m.path.c_str(), quantile(m.seconds, 0.5), quantile(m.seconds, 0.25), quantile(m.seconds, 0.75),
        static_cast<unsigned long long>(m.hits), quantile(ratio, 0.5), quantile(ratio, 0.25),
        quantile(ratio, 0.75));
  }
  for (const Module& m : modules)
    if (m.hits != modules[0].hits) {
      std::fprintf(stderr, "ab_bench: %s found %llu hits, %s %llu\n", m.path.c_str(),
                   static_cast<unsigned long long>(m.hits), modules[0].path.c_str(),
                   static_cast<unsigned long long>(modules[0].hits));
      return 1;
    }
}
