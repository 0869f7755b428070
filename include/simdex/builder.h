// Building an index file from (fingerprint, id) pairs.
//
//   simdex::IndexBuilder b({.k = 3});
//   b.add(0x1234abcd5678ef00, 42);
//   b.write("docs.sdx");   // atomic: temp file, fsync, rename
//
// The same set of pairs gives the same bytes, whatever the order of add() calls or the thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simdex/scheme.h"

namespace simdex {

struct BuildOptions {
  unsigned k = 3;                 // used when scheme is empty: Scheme::automatic(distinct count, k)
  std::optional<Scheme> scheme;   // the tables; overrides k
  uint32_t block_bytes = 1024;    // 32 .. 1 MiB, a multiple of 8
  unsigned threads = 0;           // 0: all cores
  // Called from the writing thread as work advances: stage name, units done, units in all.
  std::function<void(std::string_view stage, uint64_t done, uint64_t total)> progress;
};

struct BuildSummary {
  uint64_t fingerprint_count = 0;  // distinct
  uint64_t id_count = 0;           // distinct (fingerprint, id) pairs
  uint64_t file_bytes = 0;
  std::string scheme_name;
  std::size_t table_count = 0;
};

class IndexBuilder {
 public:
  explicit IndexBuilder(BuildOptions options = {});
  void add(uint64_t fingerprint, uint64_t id);
  uint64_t pairs_added() const { return pairs_.size(); }
  // Writes the index to `path` atomically. Throws simdex::Error; on failure `path` is untouched.
  BuildSummary write(const std::string& path);

 private:
  BuildOptions options_;
  std::vector<std::pair<uint64_t, uint64_t>> pairs_;
};

}  // namespace simdex
