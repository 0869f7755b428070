// Builds an index of n random (or clustered) fingerprints and checks its answers against a
// brute-force scan: planted near-duplicates (stored fingerprints with 0..k bits flipped) and random
// queries. A small run is part of ctest; the issue-sized one is
//   build/tests/bruteforce_check --n 1000000 --scheme paper-20 --planted 10000 --random 10000
#include <CLI/CLI.hpp>
#include <bit>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>

#include "simdex/builder.h"
#include "simdex/index.h"

using namespace simdex;

int main(int argc, char** argv) {
  uint64_t n = 100000, planted = 1000, random_queries = 1000, seed = 1;
  std::string scheme_name = "paper-20", data = "random";
  unsigned k = 3;
  uint32_t block_bytes = simdex::BuildOptions{}.block_bytes;
  CLI::App app{"Check simdex query answers against brute force"};
  app.add_option("--n", n, "Fingerprints")->capture_default_str();
  app.add_option("--scheme", scheme_name, "Scheme")->capture_default_str();
  app.add_option("-k", k, "k of the index and the queries")->capture_default_str();
  app.add_option("--planted", planted, "Planted near-duplicate queries")->capture_default_str();
  app.add_option("--random", random_queries, "Random queries")->capture_default_str();
  app.add_option("--block-bytes", block_bytes, "Block size")->capture_default_str();
  app.add_option("--data", data, "random or clustered")->check(CLI::IsMember({"random", "clustered"}));
  app.add_option("--seed", seed, "Seed")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  std::mt19937_64 rng(seed);
  std::vector<uint64_t> fps;
  fps.reserve(n);
  while (fps.size() < n) {
    const uint64_t c = rng();
    fps.push_back(c);
    if (data == "clustered")
      for (unsigned v = rng() % 5; v > 0 && fps.size() < n; --v) {
        uint64_t x = c;
        for (unsigned f = 1 + rng() % k; f > 0; --f) x ^= uint64_t{1} << (rng() % 64);
        fps.push_back(x);
      }
  }
  const auto dir = std::filesystem::temp_directory_path() / ("simdex-bf-" + std::to_string(rng()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "check.sdx").string();
  BuildOptions options;
  options.scheme = Scheme::named(scheme_name, k, n);
  options.block_bytes = block_bytes;
  IndexBuilder builder(options);
  for (uint64_t i = 0; i < fps.size(); ++i) builder.add(fps[i], i);
  auto t0 = std::chrono::steady_clock::now();
  builder.write(path);
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const Index index = Index::open(path);
  std::filesystem::remove_all(dir);  // the mapping stays valid after unlink

  std::sort(fps.begin(), fps.end());
  fps.erase(std::unique(fps.begin(), fps.end()), fps.end());
  uint64_t passed = 0, failed = 0, hits = 0;
  std::vector<Hit> got;
  auto check = [&](uint64_t q) {
    std::vector<std::pair<unsigned, uint64_t>> want;
    for (uint64_t f : fps)
      if (const auto d = static_cast<unsigned>(std::popcount(f ^ q)); d <= k) want.emplace_back(d, f);
    std::sort(want.begin(), want.end());
    index.query(q, k, got);
    bool same = got.size() == want.size();
    for (std::size_t i = 0; same && i < got.size(); ++i)
      same = got[i].distance == want[i].first && got[i].fingerprint == want[i].second && !got[i].ids.empty();
    hits += got.size();
    if (same)
      ++passed;
    else if (++failed <= 5)
      std::printf("MISMATCH query 0x%016llx: %zu hits, brute force %zu\n", (unsigned long long)q, got.size(),
                  want.size());
  };
  for (uint64_t i = 0; i < planted; ++i) {
    uint64_t q = fps[rng() % fps.size()];
    for (unsigned f = static_cast<unsigned>(rng() % (k + 1)); f > 0; --f) q ^= uint64_t{1} << (rng() % 64);
    check(q);
  }
  for (uint64_t i = 0; i < random_queries; ++i) check(rng());
  std::printf("n=%llu distinct=%zu scheme=%s k=%u data=%s build=%.2fs queries=%llu hits=%llu\n",
              (unsigned long long)n, fps.size(), scheme_name.c_str(), k, data.c_str(), build_s,
              (unsigned long long)(planted + random_queries), (unsigned long long)hits);
  std::printf("%llu passed, %llu failed\n", (unsigned long long)passed, (unsigned long long)failed);
  return failed == 0 ? 0 : 1;
}
