// Shared helpers for the integration tests: data generators, a brute-force oracle, temp files.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "simdex/builder.h"
#include "simdex/error.h"
#include "simdex/index.h"

// SIMDEX_TEST_ASAN: built with AddressSanitizer (GCC and clang 16+ say so with
// __SANITIZE_ADDRESS__; older clang only through __has_feature).
#if defined(__SANITIZE_ADDRESS__)
#define SIMDEX_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIMDEX_TEST_ASAN 1
#endif
#endif

namespace simdex::test {

using Pairs = std::vector<std::pair<uint64_t, uint64_t>>;

inline Pairs random_pairs(std::mt19937_64& rng, std::size_t n) {
  Pairs p;
  for (std::size_t i = 0; i < n; ++i) p.emplace_back(rng(), i);
  return p;
}

// Clusters of near-duplicates: each center plus variants 1..max_flip bits away.
inline Pairs clustered_pairs(std::mt19937_64& rng, std::size_t n, unsigned max_flip) {
  Pairs p;
  while (p.size() < n) {
    const uint64_t center = rng();
    p.emplace_back(center, p.size());
    const unsigned variants = 1 + rng() % 6;
    for (unsigned v = 0; v < variants && p.size() < n; ++v) {
      uint64_t x = center;
      const unsigned flips = 1 + rng() % max_flip;
      for (unsigned f = 0; f < flips; ++f) x ^= uint64_t{1} << (rng() % 64);
      p.emplace_back(x, p.size());
    }
  }
  return p;
}

// Every fingerprint shares its top `shared` bits: a dense prefix that fills many blocks per probe.
inline Pairs dense_prefix_pairs(std::mt19937_64& rng, std::size_t n, unsigned shared) {
  const uint64_t top = rng() & ~(~uint64_t{0} >> shared);
  Pairs p;
  for (std::size_t i = 0; i < n; ++i) p.emplace_back(top | (rng() >> shared), i);
  return p;
}

// The expected answer: (fingerprint, distance, sorted ids) sorted by (distance, fingerprint).
struct Expected {
  uint64_t fingerprint;
  unsigned distance;
  std::vector<uint64_t> ids;
  bool operator==(const Expected&) const = default;
};

class Oracle {
 public:
  explicit Oracle(const Pairs& pairs) {
    for (auto [f, id] : pairs) ids_[f].push_back(id);
    for (auto& [f, v] : ids_) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    }
  }
  std::vector<Expected> query(uint64_t q, unsigned k) const {
    std::vector<Expected> out;
    for (const auto& [f, v] : ids_) {
      const auto d = static_cast<unsigned>(std::popcount(f ^ q));
      if (d <= k) out.push_back({f, d, v});
    }
    std::sort(out.begin(), out.end(), [](const Expected& a, const Expected& b) {
      return a.distance != b.distance ? a.distance < b.distance : a.fingerprint < b.fingerprint;
    });
    return out;
  }
  const std::map<uint64_t, std::vector<uint64_t>>& all() const { return ids_; }

 private:
  std::map<uint64_t, std::vector<uint64_t>> ids_;
};

inline std::vector<Expected> answer(const Index& index, uint64_t q, unsigned k) {
  std::vector<Expected> out;
  for (const Hit& h : index.query(q, k)) out.push_back({h.fingerprint, h.distance, h.ids.to_vector()});
  return out;
}

// Queries: stored fingerprints with 0..k bits flipped (planted near-duplicates) and random ones.
inline std::vector<uint64_t> queries_for(std::mt19937_64& rng, const Pairs& pairs, unsigned k,
                                         std::size_t count) {
  std::vector<uint64_t> q;
  for (std::size_t i = 0; i < count; ++i) {
    if (pairs.empty() || i % 3 == 2) {
      q.push_back(rng());
      continue;
    }
    uint64_t x = pairs[rng() % pairs.size()].first;
    const unsigned flips = k == 0 ? 0 : static_cast<unsigned>(rng() % (k + 1));
    for (unsigned f = 0; f < flips; ++f) x ^= uint64_t{1} << (rng() % 64);
    q.push_back(x);
  }
  return q;
}

class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("simdex-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }
  // Writes `content` to the file `name` below the directory (making its directories); its path.
  std::string write(const std::string& name, const std::string& content) const {
    const std::filesystem::path p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

inline BuildSummary build(const std::string& path, const Pairs& pairs, BuildOptions options) {
  IndexBuilder b(std::move(options));
  for (auto [f, id] : pairs) b.add(f, id);
  return b.write(path);
}

// An index of the named scheme (k = 3) and block size.
inline BuildSummary build(const std::string& path, const Pairs& pairs, const char* scheme,
                          uint32_t block_bytes) {
  BuildOptions o;
  o.scheme = Scheme::named(scheme, 3, 0);
  o.block_bytes = block_bytes;
  return build(path, pairs, std::move(o));
}

// The code of the Error that f() throws (errc::io when it throws none).
template <typename F>
errc error_code(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return errc::io;
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The threads this process has now (Linux: /proc/self/task).
inline long threads_in_process() {
  return static_cast<long>(std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                                         std::filesystem::directory_iterator{}));
}

}  // namespace simdex::test
